// The operations of an OpenAPI document and the top-level fields of each one's JSON request body
// ($ref, allOf, oneOf and anyOf followed), and the difference of two sets of routes.
import { routeKey } from './routes.js';

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];
const MAX_DEPTH = 32;

function resolveRef(doc, ref) {
  if (!ref.startsWith('#/')) return undefined;
  let value = doc;
  for (const key of ref.slice(2).split('/')) value = value?.[key.replaceAll('~1', '/').replaceAll('~0', '~')];
  return value;
}

/** The property names a schema accepts at its top level, or null when it names none it can be read for. */
export function schemaProperties(doc, schema, depth = 0) {
  if (!schema || typeof schema !== 'object' || depth > MAX_DEPTH) return null;
  if (typeof schema.$ref === 'string') return schemaProperties(doc, resolveRef(doc, schema.$ref), depth + 1);
  const parts = [...(schema.allOf ?? []), ...(schema.oneOf ?? []), ...(schema.anyOf ?? [])];
  const own = schema.properties && typeof schema.properties === 'object' ? Object.keys(schema.properties) : [];
  // A part that only constrains (`{type: object, required: [...]}` in an allOf) adds no field.
  if (parts.length === 0) return schema.properties || schema.type === 'object' ? new Set(own) : null;
  const sets = parts.map((p) => schemaProperties(doc, p, depth + 1));
  return sets.some((s) => s === null) ? null : new Set([...own, ...sets.flatMap((s) => [...s])]);
}

/** `[{ key, fields }]` of a document: fields undefined without a JSON request body. */
export function openapiRoutes(doc) {
  const out = [];
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const method of METHODS) {
      const op = item?.[method];
      if (!op) continue;
      const body = op.requestBody?.$ref ? resolveRef(doc, op.requestBody.$ref) : op.requestBody;
      const schema = body?.content?.['application/json']?.schema;
      out.push({ key: routeKey(method, path), fields: schema ? schemaProperties(doc, schema) : undefined });
    }
  }
  return out;
}

const sorted = (xs) => [...xs].sort();

/**
 * What `newer` has that `older` does not, and the reverse: routes, and for each route both have
 * with a readable body on both sides, its fields. A body one side cannot read is listed as such.
 */
export function diffRoutes(newer, older) {
  const index = (routes) => new Map(routes.map((r) => [r.key, r]));
  const [n, o] = [index(newer), index(older)];
  const result = { onlyNewer: [], onlyOlder: [], fields: [], unreadable: [] };
  for (const key of sorted(n.keys())) if (!o.has(key)) result.onlyNewer.push(key);
  for (const key of sorted(o.keys())) if (!n.has(key)) result.onlyOlder.push(key);
  for (const key of sorted(n.keys())) {
    const [a, b] = [n.get(key)?.fields, o.get(key)?.fields];
    if (!o.has(key) || (a === undefined && b === undefined)) continue;
    if (a === null || b === null || a === undefined || b === undefined) {
      result.unreadable.push({ key, newer: describe(a), older: describe(b) });
      continue;
    }
    const onlyNewer = sorted([...a].filter((f) => !b.has(f)));
    const onlyOlder = sorted([...b].filter((f) => !a.has(f)));
    if (onlyNewer.length + onlyOlder.length > 0) result.fields.push({ key, onlyNewer, onlyOlder });
  }
  return result;
}

const describe = (fields) => (fields === null ? 'unreadable' : fields === undefined ? 'no body' : `${fields.size} fields`);
