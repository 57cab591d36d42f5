/** What `--smoke` judges in the rows the measures wrote (bench/smoke.ts). */
import { describe, expect, it } from 'vitest';
import { defineMeasure } from '../../bench/measure.js';
import { smokeProblems } from '../../bench/smoke.js';

const measure = defineMeasure({
  name: 'm',
  title: 'a measure',
  tables: { 'm-one': ['n', 'ratio'], 'm-two': ['figures'] },
  sizes: { full: 1, quick: 1, smoke: 1 },
  run: () => Promise.resolve(),
});

describe('smokeProblems', () => {
  it('accepts rows with every column, all figures finite', () => {
    expect(smokeProblems([measure], [{ measure: 'm-one', n: 1, ratio: 0.5, label: 'x', samples: [1, 2] }])).toEqual([]);
  });

  it('names a measure that wrote nothing, a missing column and every figure that is not finite', () => {
    expect(smokeProblems([measure], [{ measure: 'other', n: 1 }])).toEqual(['m: wrote no result']);
    expect(smokeProblems([measure], [{ measure: 'm-one', n: 1, ratio: null }])).toEqual(['m: m-one.ratio is missing']);
    expect(smokeProblems([measure], [{ measure: 'm-one', n: Number.NaN, ratio: 1 }])).toEqual(['m: m-one.n is not a finite figure (NaN)']);
    expect(smokeProblems([measure], [{ measure: 'm-two', figures: { heap: [1, Number.POSITIVE_INFINITY] } }])).toEqual([
      'm: m-two.figures is not a finite figure (Infinity)',
    ]);
  });
});
