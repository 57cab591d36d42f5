/**
 * Trust invariant, past the kinds (src/kinds/proto-keys.test.ts covers those): a `__proto__` key in
 * service or manifest data stays data in every copy obsync makes of it on the way to the service,
 * a file or a screen: the applier's payloads, the exporter's manifests, the plan's shown forms and
 * their Terraform-style shapes, the string tables of a read. Each is fed JSON with own `__proto__`
 * keys at arbitrary depths and must answer what it answers for the same data under an ordinary
 * name (`proto_`), with plain objects only.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { resolvePayload } from '../../src/applier/resolve.js';
import { IdMap } from '../../src/core/id-map.js';
import { StringTable } from '../../src/core/intern.js';
import { sameJson } from '../../src/core/json.js';
import type { Json, JsonObject } from '../../src/core/wire.js';
import { inertSpec } from '../../src/export/exporter.js';
import { mask } from '../../src/render/forms.js';
import { knownAfterUnknown } from '../../src/render/terraform-address.js';

const PROTO = '__proto__';
const TWIN = 'proto_';

/** A JSON object holding `proto_` keys at arbitrary depths (values of every JSON type, objects with a `polluted` key among them). */
const twinned: fc.Arbitrary<JsonObject> = fc
  .letrec((tie) => ({
    value: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      fc.jsonValue({ maxDepth: 0 }),
      fc.constant({ polluted: 'yes' }),
      fc.array(tie('value'), { maxLength: 3 }),
      tie('object'),
    ),
    object: fc.dictionary(fc.constantFrom(TWIN, 'a', 'b', 'polluted', 'toString'), tie('value'), { maxKeys: 4 }),
  }))
  .object.map((o) => ({ [TWIN]: { polluted: 'yes' }, ...(o as JsonObject) }));

/** The same data with every `proto_` key named `__proto__`, as JSON.parse gives it (own keys). */
function withProto(value: JsonObject): JsonObject {
  return JSON.parse(JSON.stringify(value).replaceAll(`"${TWIN}":`, `"${PROTO}":`)) as JsonObject;
}

/** Back: every own `__proto__` key named `proto_` again, keys in the same order. */
function renamed(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(renamed);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.keys(value).map((k) => [k === PROTO ? TWIN : k, renamed((value as Record<string, unknown>)[k])]));
}

/** Every object reachable is plain (its prototype Object.prototype or Array.prototype), and for…in sees only own keys. */
function plainEverywhere(value: unknown, path = '$'): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== Array.prototype) return `${path}: prototype is ${JSON.stringify(proto)}`;
  for (const key in value) if (!Object.hasOwn(value, key)) return `${path}: inherits ${key}`;
  for (const key of Object.keys(value)) {
    const wrong = plainEverywhere((value as Record<string, unknown>)[key], `${path}.${key}`);
    if (wrong) return wrong;
  }
  return undefined;
}

const COPIES: Record<string, (value: JsonObject) => unknown> = {
  "the applier's payload (resolvePayload)": (v) => resolvePayload(v, new IdMap(), new Map(), 'Dashboard/x'),
  "the exporter's manifest spec (inertSpec)": (v) => inertSpec(v),
  "a plan's shown form (mask)": (v) => mask(v).value,
  'the Terraform-style after-unknown shape (knownAfterUnknown)': (v) => knownAfterUnknown(v),
  "a read's string table (internAll, in place)": (v) => new StringTable().internAll(v),
};

describe('a __proto__ key stays data in every copy obsync makes', () => {
  for (const [name, copy] of Object.entries(COPIES))
    it(name, () => {
      fc.assert(
        fc.property(twinned, (twin) => {
          const got = copy(withProto(twin));
          expect(plainEverywhere(got)).toBeUndefined();
          expect(renamed(got)).toEqual(copy(twin));
          expect(Object.prototype).not.toHaveProperty('polluted');
        }),
        { numRuns: 200 },
      );
    });

  it('the diff sees a __proto__ key wherever it would see the same key under another name', () => {
    fc.assert(
      fc.property(twinned, twinned, (a, b) => {
        expect(sameJson(withProto(a) as Json, withProto(b) as Json)).toBe(sameJson(a as Json, b as Json));
        // The same object without the key: the diff must see it.
        const { [TWIN]: _dropped, ...without } = a;
        expect(sameJson(withProto(a) as Json, without as Json)).toBe(false);
      }),
      { numRuns: 200 },
    );
  });
});
