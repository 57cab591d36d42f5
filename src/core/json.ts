/** Plain JSON predicates shared by the planner, the applier and the kinds. */
import type { Json, JsonObject } from './wire.js';

export function isJsonObject(value: Json | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Deep equality of JSON values, insensitive to object key order. A key whose value is undefined counts as absent. */
export function sameJson(a: Json | undefined, b: Json | undefined): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined || a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  let count = 0;
  for (const key in a) {
    const value = a[key];
    if (value === undefined) continue;
    count += 1;
    if (!sameJson(value, ownMember(b, key))) return false;
  }
  for (const key in b) if (b[key] !== undefined) count -= 1;
  return count === 0;
}

/** `obj[key]`, but a `__proto__` the object does not own is absent (read plainly it is Object.prototype, which equals `{}`). */
export function ownMember(obj: JsonObject, key: string): Json | undefined {
  return key === '__proto__' && !Object.hasOwn(obj, key) ? undefined : obj[key];
}

/**
 * `record[key]` for a key that is data (a tile key, a label, a path): only the record's own value,
 * never one it inherits (`constructor`, `toString`, `__proto__` read plainly are Object.prototype's).
 */
export function ownValue<V>(record: Readonly<Record<string, V>> | undefined, key: string): V | undefined {
  return record !== undefined && Object.hasOwn(record, key) ? record[key] : undefined;
}

/**
 * A deep copy of a plain JSON-like value that shares its strings (structuredClone copies every
 * string: a store of 20,000 entries held 20,000 copies of "owned"). A `__proto__` key stays a key.
 */
export function copyJson<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map((item: unknown) => copyJson(item)) as T;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    setOwn(out, key, copyJson((value as Record<string, unknown>)[key]));
  }
  return out as T;
}

/** Sets a key of a plain object as its own data property: a `__proto__` key (JSON may have one) stays a key, never the prototype. */
export function setOwn(out: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  // eslint-disable-next-line no-restricted-syntax -- the one place a computed key is set: not __proto__ here
  else out[key] = value;
}

/** `Object.assign(target, source)` for data: a `__proto__` key of `source` is copied as a key, never as the prototype. */
export function assignOwn<T extends Record<string, unknown>>(target: T, source: Readonly<Record<string, unknown>>): T {
  for (const key of Object.keys(source)) setOwn(target, key, source[key]);
  return target;
}
