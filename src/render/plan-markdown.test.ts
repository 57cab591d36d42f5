import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fairShares } from './markdown-budget.js';

const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);

describe('fairShares (the markdown budget between targets)', () => {
  it('gives each what it needs when all fit, and equal shares to the large ones otherwise', () => {
    expect(fairShares([100, 200], 1_000)).toEqual([100, 200]);
    expect(fairShares([10_000, 300], 1_000)).toEqual([700, 300]);
    expect(fairShares([10_000, 10_000, 50], 1_000)).toEqual([475, 475, 50]);
    expect(fairShares([5, 5], -10)).toEqual([0, 0]);
    expect(fairShares([], 100)).toEqual([]);
  });

  it('never gives more than asked or than there is, wastes nothing but rounding, and short-changes no one below another', () => {
    fc.assert(
      fc.property(fc.array(fc.nat({ max: 100_000 }), { maxLength: 8 }), fc.integer({ min: -1_000, max: 200_000 }), (demands, available) => {
        const shares = fairShares(demands, available);
        expect(shares).toHaveLength(demands.length);
        shares.forEach((s, i) => {
          expect(s).toBeGreaterThanOrEqual(0);
          expect(s).toBeLessThanOrEqual(demands[i] ?? 0);
        });
        expect(sum(shares)).toBeLessThanOrEqual(Math.max(0, available));
        const short = shares.flatMap((s, i) => (s < (demands[i] ?? 0) ? [i] : []));
        if (short.length === 0) return;
        // Someone got less than asked: the room is used up (up to rounding), and no one got more than them.
        expect(Math.max(0, available) - sum(shares)).toBeLessThan(short.length);
        for (const i of short) for (const s of shares) expect(shares[i]).toBeGreaterThanOrEqual(s);
      }),
    );
  });
});
