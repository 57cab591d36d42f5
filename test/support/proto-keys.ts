/**
 * What the tests of the `__proto__` invariant share: data with own `__proto__` keys (as JSON.parse
 * gives them), generated as the same data under an ordinary key (the twin), and the check that
 * a result is plain data. A function keeps the invariant when it answers for the `__proto__`
 * data what it answers for the twin's, the key spelled back, with plain objects only.
 */
import fc from 'fast-check';
import { setOwn } from '../../src/core/json.js';
import type { Json } from '../../src/core/wire.js';

export const PROTO = '__proto__';
/** Stands for `__proto__`: an ordinary key that sorts where it does (diffs list changes in key order). */
export const TWIN = '__proto_';

/** The same JSON with every twin key named `__proto__`, as JSON.parse gives it (own keys). */
export function withProto<T>(json: T): T {
  return JSON.parse(JSON.stringify(json).replaceAll(`"${TWIN}":`, `"${PROTO}":`)) as T;
}

/** JSON text of a value with every `__proto__` (keys, and paths in values) spelled as the twin. */
export function spelledAsTwin(value: unknown): string | undefined {
  return JSON.stringify(value)?.replaceAll(PROTO, TWIN);
}

/** A copy with every own `from` key named `to` (order kept); what is not an own key is not copied. */
export function renamedKey(value: unknown, from: string, to: string): unknown {
  if (Array.isArray(value)) return value.map((item: unknown) => renamedKey(item, from, to));
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) setOwn(out, k === from ? to : k, renamedKey(v, from, to));
  return out;
}

/** What is not plain data: objects and arrays with another prototype, and keys a `for…in` reaches that are not own. */
export function foreignParts(value: unknown, path = '$', out: string[] = []): string[] {
  if (typeof value !== 'object' || value === null) return out;
  const proto: unknown = Object.getPrototypeOf(value);
  if (Array.isArray(value)) {
    if (proto !== Array.prototype) out.push(`${path}: an array with another prototype`);
    value.forEach((item: unknown, i) => foreignParts(item, `${path}[${i}]`, out));
    return out;
  }
  if (proto !== Object.prototype) out.push(`${path}: prototype is ${JSON.stringify(proto)?.slice(0, 80) ?? '?'}`);
  for (const key in value) if (!Object.hasOwn(value, key)) out.push(`${path}: inherits enumerable ${key}`);
  for (const [key, item] of Object.entries(value)) foreignParts(item, `${path}.${key}`, out);
  return out;
}

const keys = fc.constantFrom(TWIN, 'a', 'b', 'polluted', 'toString');
/** As JSON text carries them (no -0), and no string spells either key: the comparisons spell `__proto__` as the twin in the text. */
const leaf = fc.jsonValue({ maxDepth: 0 }).filter((v) => !Object.is(v, -0) && (typeof v !== 'string' || !v.includes(TWIN)));

/** JSON values holding twin keys at arbitrary depths, among keys every object inherits a meaning for. */
export const twinnedJson: fc.Arbitrary<Json> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.constant({ polluted: 'yes' }),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(keys, tie('value'), { maxKeys: 4 }),
  ),
})).value as fc.Arbitrary<Json>;
