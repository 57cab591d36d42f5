/** Exported values made inert: a `${` an object holds on the service is not interpolated when its manifest is loaded. */
import type { Json, JsonObject } from '../core/wire.js';
import { setOwn } from '../core/json.js';

/**
 * Data from the service is never code (DESIGN §4, trust invariant 4): every `${` in a string the
 * spec holds is written `$${`, which interpolation reads back as `${`, so a name such as
 * `exfil ${env:CI_TOKEN}` is applied back as those very characters, never as the variable's
 * value. Only the placeholders export itself writes for secrets (`secret(path)`) stay references.
 * Keys are never interpolated and are written as they are.
 */
export function inertSpec(spec: JsonObject, placeholders: ReadonlyMap<string, string> = new Map()): JsonObject {
  return inert(spec, '', placeholders) as JsonObject;
}

function inert(value: Json, path: string, placeholders: ReadonlyMap<string, string>): Json {
  if (typeof value === 'string') return placeholders.get(path) === value ? value : escapeTemplate(value);
  if (Array.isArray(value)) return value.map((item, i) => inert(item, `${path}[${i}]`, placeholders));
  if (value === null || typeof value !== 'object') return value;
  const out: JsonObject = {};
  for (const [key, item] of Object.entries(value)) setOwn(out, key, inert(item, path === '' ? key : `${path}.${key}`, placeholders));
  return out;
}

/** The manifest spelling of a literal string: `${` as `$${` (manifests/interpolate.ts reads it back). */
export function escapeTemplate(text: string): string {
  // A function, not a replacement string: in one of those, `$$` means a single `$`.
  return text.replaceAll('${', () => '$${');
}
