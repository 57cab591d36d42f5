/**
 * Shared by the kinds' `toManifest` (obsync export): leaving out what the service's own
 * normalisation would fill in anyway, so exported manifests carry only what differs from the
 * defaults, and stay equal to the live object once normalised again.
 */
import { isJsonObject, sameJson, setOwn } from '../core/json.js';
import type { Json, JsonObject } from '../core/wire.js';

export { isJsonObject };

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

/** Sets `key` of `out` (as an own key) unless the value is absent, null, '' or an empty list. */
export function setPresent(out: JsonObject, key: string, value: Json | undefined): void {
  if (value === undefined || value === null || value === '') return;
  if (Array.isArray(value) && value.length === 0) return;
  setOwn(out, key, value);
}

/** A reference as an exported manifest writes it: a name, or `{id: ...}`. */
export function nameOrIdJson(ref: string | { id: string }): Json {
  return typeof ref === 'string' ? ref : { id: ref.id };
}
