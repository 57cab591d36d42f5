/**
 * Trust invariant, past the kinds (src/kinds/proto-keys.test.ts covers those): a `__proto__` key in
 * service or manifest data stays data in every copy obsync makes of it on the way to the service,
 * a file or a screen: the applier's payloads, the exporter's manifests, the plan's shown forms and
 * their Terraform-style shapes, the string tables of a read. Each is fed JSON with own `__proto__`
 * keys at arbitrary depths and must answer what it answers for the same data under an ordinary
 * name (the twin, `__proto_`), with plain objects only.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { resolvePayload } from '../../src/applier/resolve.js';
import { IdMap } from '../../src/core/id-map.js';
import { StringTable } from '../../src/core/intern.js';
import { sameJson } from '../../src/core/json.js';
import type { Json, JsonObject } from '../../src/core/wire.js';
import { inertSpec } from '../../src/export/inert-templates.js';
import { mask } from '../../src/render/forms.js';
import { knownAfterUnknown } from '../../src/render/terraform-address.js';
import { foreignParts, PROTO, renamedKey, TWIN, twinnedJson, withProto } from '../support/proto-keys.js';

/** A JSON object holding twin keys at arbitrary depths, one at its top. */
const twinned: fc.Arbitrary<JsonObject> = twinnedJson.map((value) => ({ [TWIN]: { polluted: 'yes' }, value }));

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
          expect(foreignParts(got)).toEqual([]);
          expect(renamedKey(got, PROTO, TWIN)).toEqual(copy(twin));
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
