/**
 * Shared by the kinds' `toManifest` (obsync export): leaving out what the service's own
 * normalisation would fill in anyway, so exported manifests carry only what differs from the
 * defaults, and stay equal to the live object once normalised again.
 */
import type { Json, JsonObject } from '../core/wire.js';

/**
 * `obj` without the keys whose absence the kind's normalisation fills back to the same value.
 * Greedy, key by key in order, so the result is deterministic; `canonical` must be pure.
 */
export function withoutDefaults(obj: JsonObject, canonical: (o: JsonObject) => Json, keep: readonly string[] = []): JsonObject {
  const target = canonical(obj);
  let out: JsonObject = { ...obj };
  for (const key of Object.keys(obj)) {
    if (keep.includes(key)) continue;
    const { [key]: _dropped, ...rest } = out;
    if (sameJson(canonical(rest), target)) out = rest;
  }
  return out;
}

/** `out[key] = value` unless the value is absent, null, '' or an empty list. */
export function setPresent(out: JsonObject, key: string, value: Json | undefined): void {
  if (value === undefined || value === null || value === '') return;
  if (Array.isArray(value) && value.length === 0) return;
  out[key] = value;
}

export function isJsonObject(v: Json | undefined): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Deep equality of JSON values, whatever the order of object keys. */
export function sameJson(a: Json | undefined, b: Json | undefined): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((v, i) => sameJson(v, b[i]));
  }
  const keys = Object.keys(a).filter((k) => a[k] !== undefined);
  if (keys.length !== Object.keys(b).filter((k) => b[k] !== undefined).length) return false;
  return keys.every((k) => sameJson(a[k], b[k]));
}
