/** Changed leaves, as a summary names them: a `__proto__` key (JSON may carry one) is a key like any other. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { spelledAsTwin, TWIN, twinnedJson, withProto } from '../../test/support/proto-keys.js';
import { leafChanges } from './summary.js';

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
    fc.assert(
      fc.property(twinnedJson, twinnedJson, (a, b) => {
        expect(spelledAsTwin(leafChanges(withProto(a), withProto(b)))).toBe(JSON.stringify(leafChanges(a, b)));
      }),
      { numRuns: 300 },
    );
  });
});
