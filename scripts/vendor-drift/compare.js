// The drift report: the vendor's routers against the sandbox's route tables, and the vendor's
// newer OpenAPI document against the baseline the sandbox was built from. Files come through
// `read(path)` functions (a checkout, a git snapshot, or test fixtures): nothing is fetched.
import { posix } from 'node:path';
import { diffRoutes, openapiRoutes } from './openapi.js';
import { sandboxRoutes, vendorRoutes } from './routes.js';
import { sourceProject } from './zod-fields.js';

export const VENDOR_INDEX = 'packages/api/src/routers/external-api/v2/index.ts';
export const SANDBOX_TABLES = ['src/sandbox/http/selfhosted-routes.ts', 'src/sandbox/http/observability-routes.ts'];
export const SANDBOX_DOMAIN = 'src/sandbox/domain/index.ts';
/** Served outside the route tables: `GET /api/v2` (src/sandbox/http/handlers.ts, the version and caller). */
const SANDBOX_OUTSIDE_TABLES = [{ key: 'GET /api/v2', fields: undefined }];

const withExtension = (read, base) => [`${base}.ts`, `${base}.tsx`, `${base}/index.ts`, base].find((p) => read(p) !== undefined);

/** hyperdx's module names: `@/x` (packages/api/src), `@hyperdx/common-utils/dist/x` (its src), relative paths. */
export function vendorImports(read) {
  return (spec, from) => {
    if (spec.startsWith('@/')) return withExtension(read, `packages/api/src/${spec.slice(2)}`);
    if (spec.startsWith('@hyperdx/common-utils/dist/')) return withExtension(read, `packages/common-utils/src/${spec.slice(27)}`);
    if (spec.startsWith('.')) return withExtension(read, posix.join(posix.dirname(from), spec));
    return undefined;
  };
}

/** obsync's own module names: relative, `.js` written for `.ts`. */
export function sandboxImports(read) {
  return (spec, from) =>
    spec.startsWith('.') ? withExtension(read, posix.join(posix.dirname(from), spec).replace(/\.js$/, '')) : undefined;
}

export function compare({ vendorRead, sandboxRead, newerDoc, baselineDoc }) {
  const vendor = vendorRoutes(sourceProject(vendorRead, vendorImports(vendorRead)), VENDOR_INDEX);
  const sandbox = sandboxRoutes(sourceProject(sandboxRead, sandboxImports(sandboxRead)), SANDBOX_TABLES, SANDBOX_DOMAIN);
  // Enterprise-only routes are the sandbox's other edition: not drift of the open-source routers.
  const routers = diffRoutes(vendor, [...sandbox.filter((r) => r.edition === undefined), ...SANDBOX_OUTSIDE_TABLES]);
  const openapi = newerDoc && baselineDoc ? diffRoutes(openapiRoutes(newerDoc), openapiRoutes(baselineDoc)) : undefined;
  return { routers, openapi };
}

const section = (title, lines) => (lines.length === 0 ? [`${title}: none`] : [`${title}:`, ...lines.map((l) => `  ${l}`)]);

function describeDiff(diff, newer, older) {
  return [
    ...section(`routes ${newer} has and ${older} does not`, diff.onlyNewer),
    ...section(`routes ${older} has and ${newer} does not`, diff.onlyOlder),
    ...section(
      'body fields',
      diff.fields.map((f) => `${f.key}: ${newer} only [${f.onlyNewer.join(', ')}]; ${older} only [${f.onlyOlder.join(', ')}]`),
    ),
    ...section(
      'bodies not read on one side',
      diff.unreadable.map((u) => `${u.key}: ${newer} ${u.newer}, ${older} ${u.older}`),
    ),
  ];
}

export function format(result, labels) {
  const lines = [
    `# vendor drift: ${labels.vendor}`,
    '',
    `## routers (zod schemas): vendor against sandbox`,
    ...describeDiff(result.routers, 'vendor', 'sandbox'),
  ];
  if (result.openapi)
    lines.push('', `## OpenAPI: ${labels.newer} against ${labels.baseline}`, ...describeDiff(result.openapi, 'newer', 'baseline'));
  return `${lines.join('\n')}\n`;
}

export const hasDrift = (result) =>
  [result.routers, result.openapi]
    .filter((d) => d !== undefined)
    .some((d) => d.onlyNewer.length + d.onlyOlder.length + d.fields.length > 0);
