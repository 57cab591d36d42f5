import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MultiMatcher, type Pattern, type Range } from './matcher.js';
import { fold, standsAlone } from './text-units.js';

/** The meaning of `ranges`, by brute force: every occurrence of every pattern, merged. */
function naive(patterns: readonly Pattern[], text: string): Range[] {
  const same = (a: string, b: string, foldCase: boolean) =>
    a.length === b.length &&
    [...Array(a.length).keys()].every((i) => (foldCase ? fold(a.charCodeAt(i)) === fold(b.charCodeAt(i)) : a[i] === b[i]));
  const found: Range[] = [];
  for (const p of patterns) {
    if (p.text === '') continue;
    for (let start = 0; start + p.text.length <= text.length; start++) {
      const end = start + p.text.length;
      if (same(text.slice(start, end), p.text, p.foldCase) && (!p.wholeWord || standsAlone(text, start, end))) found.push([start, end]);
    }
  }
  found.sort((a, b) => a[0] - b[0]);
  const out: Range[] = [];
  for (const [s, e] of found) {
    const last = out.at(-1);
    if (last && s <= last[1]) last[1] = Math.max(last[1], e);
    else out.push([s, e]);
  }
  return out;
}

// A small alphabet makes overlaps, shared prefixes and repeats likely; long patterns cross the anchor length.
const unit = fc.constantFrom('a', 'b', 'A', 'B', ' ', '_', 'é', 'É', '界', '\ud83d', '\ude00');
const text = (max: number) => fc.array(unit, { maxLength: max }).map((u) => u.join(''));
const pattern = fc.record({
  text: fc.oneof(text(6), text(80), fc.constantFrom('ab'.repeat(40), 'a'.repeat(70), `${'a'.repeat(64)}b`)),
  foldCase: fc.boolean(),
  wholeWord: fc.boolean(),
});

describe('MultiMatcher', () => {
  it('finds what a brute-force search finds: every occurrence of every pattern, merged (property)', () => {
    fc.assert(
      fc.property(fc.array(pattern, { maxLength: 6 }), text(300), (patterns, t) => {
        expect(new MultiMatcher(patterns).ranges(t)).toEqual(naive(patterns, t));
      }),
      { numRuns: 400 },
    );
  });

  it('finds patterns that are pieces of each other, in texts made of those pieces (property)', () => {
    // Suffixes of other patterns' prefixes are what the failure and dictionary links exist for.
    const slices = (base: string) =>
      fc.array(
        fc.record({ from: fc.nat(base.length), length: fc.integer({ min: 1, max: 90 }), foldCase: fc.boolean(), wholeWord: fc.boolean() }),
        { minLength: 1, maxLength: 8 },
      );
    const setup = text(120)
      .filter((b) => b.length > 0)
      .chain((base) => fc.tuple(fc.constant(base), slices(base), fc.array(fc.oneof(fc.nat(base.length), text(4)), { maxLength: 12 })));
    fc.assert(
      fc.property(setup, ([base, cuts, pieces]) => {
        const patterns = cuts.map((c) => ({ text: base.slice(c.from, c.from + c.length), foldCase: c.foldCase, wholeWord: c.wholeWord }));
        const t = pieces.map((p) => (typeof p === 'number' ? base.slice(p, p + 70).toUpperCase() : p)).join('') + base;
        expect(new MultiMatcher(patterns).ranges(t)).toEqual(naive(patterns, t));
      }),
      { numRuns: 400 },
    );
  });

  it('finds a pattern embedded in a text built from its own repetitions (periodic long patterns)', () => {
    const p = 'ab'.repeat(50);
    const t = `x${'ab'.repeat(120)}x`;
    expect(new MultiMatcher([{ text: p, foldCase: false, wholeWord: false }]).ranges(t)).toEqual([[1, 241]]);
  });

  it('ignores case only for patterns that ask, and whole words only where asked', () => {
    const m = new MultiMatcher([
      { text: 'Token', foldCase: true, wholeWord: true },
      { text: 'QmFz', foldCase: false, wholeWord: false },
    ]);
    expect(m.ranges('a TOKEN, tokens, xQmFzx qmfz')).toEqual([
      [2, 7],
      [18, 22],
    ]);
  });

  it('folds letters that change length or meet through upper case', () => {
    expect(fold('ſ'.charCodeAt(0))).toBe('s'.charCodeAt(0));
    expect(fold('İ'.charCodeAt(0))).toBe('İ'.charCodeAt(0));
    expect(fold('Ä'.charCodeAt(0))).toBe('ä'.charCodeAt(0));
  });
});
