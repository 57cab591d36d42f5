/** deepFreeze: every object and array reachable from a JSON-like value is frozen, and nothing in it changes. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { deepFreeze } from './freeze.js';

function everyObjectFrozen(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return true;
  return Object.isFrozen(value) && Object.values(value).every(everyObjectFrozen);
}

describe('deepFreeze', () => {
  it('freezes every object and array in any JSON value, in place, without changing it', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const before = structuredClone(value);
        expect(deepFreeze(value)).toBe(value);
        expect(value).toEqual(before);
        expect(everyObjectFrozen(value)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('freezes own values only: an inherited enumerable property is not its to freeze', () => {
    const proto = { shared: { mutable: true } };
    const value = Object.assign(Object.create(proto) as Record<string, unknown>, { own: { list: [{ a: 1 }] } });
    deepFreeze(value);
    expect(Object.isFrozen((value.own as { list: object[] }).list[0])).toBe(true);
    expect(Object.isFrozen(proto.shared)).toBe(false);
  });
});
