// Cuts the named operations out of a forge's official API description, with every `$ref` they
// reach, for the write-back tests' fake forge (test/support/fake-forge.ts). The text is the
// description's own, only smaller; provenance (source, sha256 of the input, an optional note on how
// the input was obtained) goes into `info['x-obsync-subset']`. Two dialects: OpenAPI 3
// (`#/components/SECTION/NAME`, GitHub's) and Swagger 2.0 (`#/definitions/NAME`, GitLab's); the
// input may be JSON or YAML (.yaml/.yml), the output is JSON.
//
//   node scripts/forge-openapi-subset.js DESCRIPTION OUT.json --source SOURCE [--note TEXT] OPERATION_ID...
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import process from 'node:process';
import { parse as parseYaml } from 'yaml';

const [input, output, flag, source, ...rest] = process.argv.slice(2);
const note = rest[0] === '--note' ? rest[1] : undefined;
const operationIds = note === undefined ? rest : rest.slice(2);
if (!input || !output || flag !== '--source' || !source || operationIds.length === 0) {
  process.stderr.write('usage: node scripts/forge-openapi-subset.js DESCRIPTION OUT.json --source SOURCE [--note TEXT] OPERATION_ID...\n');
  process.exit(1);
}
const text = readFileSync(input);
const description = /\.ya?ml$/.test(input) ? parseYaml(text.toString('utf8')) : JSON.parse(text.toString('utf8'));
const swagger2 = description.swagger === '2.0';
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** `#/a/b~1c` → the value at that JSON pointer of the description. */
function resolve(ref) {
  if (!ref.startsWith('#/')) throw new Error(`only local $ref are expected, found ${ref}`);
  const keys = ref
    .slice(2)
    .split('/')
    .map((k) => k.replaceAll('~1', '/').replaceAll('~0', '~'));
  let value = description;
  for (const key of keys) {
    value = value?.[key];
    if (value === undefined) throw new Error(`${ref} does not resolve in ${input}`);
  }
  return { keys, value };
}

const subset = swagger2
  ? { swagger: description.swagger, info: { ...description.info }, paths: {}, definitions: {} }
  : { openapi: description.openapi, info: { ...description.info }, paths: {}, components: {} };
/** Where a reached `$ref` is copied to in the subset: `definitions` (2.0) or `components[section]` (3). */
function sectionOf(keys, ref) {
  if (swagger2 && keys[0] === 'definitions' && keys.length === 2) return subset.definitions;
  if (!swagger2 && keys[0] === 'components' && keys.length === 3) return (subset.components[keys[1]] ??= {});
  throw new Error(`unexpected $ref ${ref}`);
}
const seen = new Set();
function collectRefs(value) {
  if (Array.isArray(value)) return value.forEach(collectRefs);
  if (value === null || typeof value !== 'object') return;
  for (const [key, inner] of Object.entries(value)) {
    if (key === '$ref' && typeof inner === 'string') {
      if (seen.has(inner)) continue;
      seen.add(inner);
      const { keys, value: target } = resolve(inner);
      sectionOf(keys, inner)[keys.at(-1)] = target;
      collectRefs(target);
    } else collectRefs(inner);
  }
}

const wanted = new Set(operationIds);
for (const [path, item] of Object.entries(description.paths)) {
  for (const method of METHODS) {
    const operation = item[method];
    if (!operation || !wanted.has(operation.operationId)) continue;
    wanted.delete(operation.operationId);
    subset.paths[path] ??= item.parameters ? { parameters: item.parameters } : {};
    subset.paths[path][method] = operation;
    collectRefs(operation);
    collectRefs(item.parameters);
  }
}
if (wanted.size > 0) throw new Error(`not in ${input}: ${[...wanted].join(', ')}`);

// Sorted sections and names: regenerating from the same description gives the same file.
const sortedByName = (section) => Object.fromEntries(Object.entries(section).sort(([a], [b]) => a.localeCompare(b)));
if (swagger2) subset.definitions = sortedByName(subset.definitions);
else
  subset.components = Object.fromEntries(
    Object.keys(subset.components)
      .sort()
      .map((section) => [section, sortedByName(subset.components[section])]),
  );
subset.info['x-obsync-subset'] = {
  source,
  sha256: createHash('sha256').update(text).digest('hex'),
  ...(note === undefined ? {} : { note }),
  operations: operationIds,
  generatedBy: 'scripts/forge-openapi-subset.js',
};
writeFileSync(output, `${JSON.stringify(subset, null, 2)}\n`);
process.stdout.write(`${output}: ${operationIds.length} operations, ${seen.size} referenced schemas\n`);
