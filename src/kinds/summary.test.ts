/** Changed leaves, as a summary names them: a `__proto__` key (JSON may carry one) is a key like any other. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Json } from '../core/wire.js';
import { leafChanges } from './summary.js';

// The twin sorts where `__proto__` does, and is spelled back in the paths and values shown.
const TWIN = '__proto_';
const withProto = (json: Json): Json => JSON.parse(JSON.stringify(json).replaceAll(`"${TWIN}":`, '"__proto__":')) as Json;
const asTwin = (changes: ReturnType<typeof leafChanges>) => JSON.stringify(changes).replaceAll('__proto__', TWIN);

describe('leafChanges', () => {
  it('names a changed, added or removed leaf by its path', () => {
    expect(leafChanges({ a: 1, b: { c: 'x' } }, { a: 2, b: { c: 'x', d: true } })).toEqual([
      { path: 'a', before: 1, after: 2 },
      { path: 'b.d', before: undefined, after: true },
    ]);
  });

  it('sees an own __proto__ key whole, never what every object inherits', () => {
    expect(leafChanges({ a: 1 }, withProto({ a: 1, [TWIN]: {} }))).toEqual([{ path: '__proto__', before: undefined, after: {} }]);
    expect(leafChanges(withProto({ a: 1, [TWIN]: { x: 1 } }), { a: 1 })).toEqual([
      { path: '__proto__', before: { x: 1 }, after: undefined },
    ]);
  });

  it('treats a __proto__ key exactly as the same data under an ordinary key', () => {
    const key = fc.constantFrom(TWIN, 'a', 'b');
    const value = fc.letrec((tie) => ({
      v: fc.oneof({ depthSize: 'small' }, fc.jsonValue({ maxDepth: 0 }), fc.dictionary(key, tie('v'), { maxKeys: 3 })),
    })).v as fc.Arbitrary<Json>;
    fc.assert(
      fc.property(value, value, (a, b) => {
        expect(asTwin(leafChanges(withProto(a), withProto(b)))).toBe(JSON.stringify(leafChanges(a, b)));
      }),
      { numRuns: 300 },
    );
  });
});
