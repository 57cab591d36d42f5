// Cuts the named operations out of a forge's official OpenAPI description, with every `$ref` they
// reach, for the write-back tests' fake forge (test/support/fake-forge.ts). The text is the
// description's own, only smaller; provenance (package, version, file, sha256 of the whole
// description) goes into `info['x-obsync-subset']`.
//
//   node scripts/forge-openapi-subset.js DESCRIPTION.json OUT.json --source PACKAGE@VERSION:FILE OPERATION_ID...
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import process from 'node:process';

const [input, output, flag, source, ...operationIds] = process.argv.slice(2);
if (!input || !output || flag !== '--source' || !source || operationIds.length === 0) {
  process.stderr.write(
    'usage: node scripts/forge-openapi-subset.js DESCRIPTION.json OUT.json --source PACKAGE@VERSION:FILE OPERATION_ID...\n',
  );
  process.exit(1);
}
const text = readFileSync(input);
const description = JSON.parse(text.toString('utf8'));
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

const subset = { openapi: description.openapi, info: { ...description.info }, paths: {}, components: {} };
const seen = new Set();
function collectRefs(value) {
  if (Array.isArray(value)) return value.forEach(collectRefs);
  if (value === null || typeof value !== 'object') return;
  for (const [key, inner] of Object.entries(value)) {
    if (key === '$ref' && typeof inner === 'string') {
      if (seen.has(inner)) continue;
      seen.add(inner);
      const { keys, value: target } = resolve(inner);
      if (keys[0] !== 'components' || keys.length !== 3) throw new Error(`unexpected $ref ${inner}`);
      const [, section, name] = keys;
      subset.components[section] ??= {};
      subset.components[section][name] = target;
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
subset.components = Object.fromEntries(
  Object.keys(subset.components)
    .sort()
    .map((section) => [section, Object.fromEntries(Object.entries(subset.components[section]).sort(([a], [b]) => a.localeCompare(b)))]),
);
subset.info['x-obsync-subset'] = {
  source,
  sha256: createHash('sha256').update(text).digest('hex'),
  operations: operationIds,
  generatedBy: 'scripts/forge-openapi-subset.js',
};
writeFileSync(output, `${JSON.stringify(subset, null, 2)}\n`);
process.stdout.write(`${output}: ${operationIds.length} operations, ${seen.size} components\n`);
