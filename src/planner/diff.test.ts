import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Json } from '../core/wire.js';
import { spelledAsTwin, TWIN, twinnedJson, withProto } from '../../test/support/proto-keys.js';
import { diffCanonical, sameJson, splitPath, stableJson, valueAt } from './diff.js';

describe('diffCanonical', () => {
  it('reports changed, added and removed leaves with their paths', () => {
    const before = { name: 'A', tiles: { p99: { x: 0, name: 'p99' } }, tags: ['a'] };
    const after = { name: 'B', tiles: { p99: { x: 4, name: 'p99' }, 'error-rate': { x: 0 } }, tags: ['a', 'b'] };
    expect(diffCanonical(before, after)).toEqual([
      { path: 'name', before: 'A', after: 'B' },
      { path: 'tags', before: ['a'], after: ['a', 'b'] },
      { path: 'tiles[error-rate]', after: { x: 0 } },
      { path: 'tiles.p99.x', before: 0, after: 4 },
    ]);
  });

  it('compares sensitive values by fingerprint and never shows them', () => {
    const changes = diffCanonical({ creds: { $sensitive: 'fp1' } }, { creds: { $sensitive: 'fp2' } });
    expect(changes).toEqual([{ path: 'creds', before: '(sensitive)', after: '(sensitive)', sensitive: true }]);
    expect(diffCanonical({ creds: { $sensitive: 'fp1' } }, { creds: { $sensitive: 'fp1' } })).toEqual([]);
    expect(JSON.stringify(diffCanonical(undefined, { creds: { $sensitive: 'fp' } }))).not.toContain('fp');
  });

  it('is empty exactly when the values are equal (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.jsonValue(), (a, b) => {
        const changes = diffCanonical(a as Json, b as Json);
        expect(changes.length === 0).toBe(sameJson(a as Json, b as Json));
        expect(diffCanonical(a as Json, structuredClone(a) as Json)).toEqual([]);
      }),
    );
  });

  it('addresses every change so valueAt finds the after value', () => {
    fc.assert(
      fc.property(
        fc.dictionary(
          fc.string({ minLength: 1 }).filter((k) => !/[.[\]]/.test(k)),
          fc.jsonValue(),
        ),
        fc.dictionary(
          fc.string({ minLength: 1 }).filter((k) => !/[.[\]]/.test(k)),
          fc.jsonValue(),
        ),
        (a, b) => {
          for (const c of diffCanonical(a as Json, b as Json)) {
            expect(sameJson(valueAt(b as Json, c.path), c.after)).toBe(true);
          }
        },
      ),
      // A key with a leading zero is a key, not an array index.
      { examples: [[{}, { '00': 0 }]] },
    );
  });
});

describe('a __proto__ key (JSON may carry one as an own key)', () => {
  it('is a change of that key, with its whole value, never of an inherited one', () => {
    const after = withProto({ a: 1, [TWIN]: { polluted: 1 } });
    expect(diffCanonical({ a: 1 }, after)).toEqual([{ path: '__proto__', after: { polluted: 1 } }]);
    expect(diffCanonical(after, { a: 1 })).toEqual([{ path: '__proto__', before: { polluted: 1 } }]);
    expect(valueAt(after, '__proto__')).toEqual({ polluted: 1 });
    expect(valueAt({ a: 1 }, '__proto__')).toBeUndefined();
  });

  it('is diffed exactly as the same data under an ordinary key', () => {
    fc.assert(
      fc.property(twinnedJson, twinnedJson, (a, b) => {
        expect(spelledAsTwin(diffCanonical(withProto(a), withProto(b)))).toBe(JSON.stringify(diffCanonical(a, b)));
      }),
      { numRuns: 300 },
    );
  });
});

describe('stableJson', () => {
  it('ignores key order', () => {
    expect(stableJson({ b: 1, a: [{ d: 1, c: 2 }] })).toBe(stableJson({ a: [{ c: 2, d: 1 }], b: 1 }));
  });
  it('splits paths with brackets', () => {
    expect(splitPath('tiles[p99-x].config.select[0].aggFn')).toEqual(['tiles', 'p99-x', 'config', 'select', 0, 'aggFn']);
  });
});
