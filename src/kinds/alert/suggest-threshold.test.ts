import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { evaluateWindows } from './backtest-counts.js';
import type { AlertCondition, SeriesPoint } from './checker.js';
import { suggestThreshold } from './suggest-threshold.js';

const STEP = 300_000;
const N = 24;
const windows = { start: 0, count: N, stepMs: STEP };
const cond = (thresholdType: string, threshold: number, numConsecutiveWindows = 1): AlertCondition => ({
  thresholdType,
  threshold,
  interval: '5m',
  numConsecutiveWindows,
});
const points = (values: (number | null | undefined)[], group = ''): SeriesPoint[] =>
  values.flatMap((value, i) => (value === undefined ? [] : [{ bucket: i * STEP, group, value }]));

describe('suggestThreshold', () => {
  it('raises an above threshold to the nearest value the series takes that keeps the episodes within the budget', () => {
    // Above 5: bursts of 6, 8 and 12 are three episodes; at 7, two; at 9, one.
    const pts = points([0, 6, 0, 8, 0, 12, 0, 0]);
    const w = { start: 0, count: 8, stepMs: STEP };
    expect(suggestThreshold(cond('above', 5), w, pts, false, 2)).toMatchObject({ threshold: 8, counts: { episodes: 2 } });
    expect(suggestThreshold(cond('above', 5), w, pts, false, 1)).toMatchObject({ threshold: 12, counts: { episodes: 1 } });
    expect(suggestThreshold(cond('above', 5), w, pts, false, 0)).toMatchObject({ threshold: 13, counts: { episodes: 0 } });
  });

  it('lowers a below threshold, and suggests nothing for equal or between', () => {
    const pts = points([9, 2, 9, 4, 9, 9]);
    const w = { start: 0, count: 6, stepMs: STEP };
    expect(suggestThreshold(cond('below', 5), w, pts, false, 1)).toMatchObject({ threshold: 4, counts: { episodes: 1 } });
    expect(suggestThreshold(cond('not_equal', 9), w, pts, false, 0)).toBeNull();
  });
});

const QUIETER = ['above', 'above_exclusive', 'below', 'below_or_equal'] as const;
const raises = (type: string) => type.startsWith('above');

describe('property: the suggestion, re-backtested, is within the budget, and no threshold closer to the current one is', () => {
  it('holds for every series, type, threshold, numConsecutiveWindows and budget', () => {
    const value = fc.option(fc.integer({ min: 0, max: 20 }), { nil: undefined, freq: 6 });
    fc.assert(
      fc.property(
        fc.array(value, { minLength: N, maxLength: N }),
        fc.array(value, { minLength: N, maxLength: N }),
        fc.boolean(),
        fc.constantFrom(...QUIETER),
        fc.integer({ min: 0, max: 20 }),
        fc.integer({ min: 1, max: 3 }),
        fc.integer({ min: 1, max: 3 }),
        (a, b, grouped, type, t, m, over) => {
          const pts = grouped ? [...points(a, 'g:a'), ...points(b, 'g:b')] : points(a);
          const c = cond(type, t, m);
          // A budget just under what the alert does: the nearest candidates matter.
          const allowed = Math.max(0, evaluateWindows(c, windows, pts, grouped).episodes - over);
          if (evaluateWindows(c, windows, pts, grouped).episodes <= allowed) return;
          const s = suggestThreshold(c, windows, pts, grouped, allowed);
          // Firing nothing is always within budget: there is a suggestion.
          expect(s).not.toBeNull();
          if (!s) return;
          expect(raises(type) ? s.threshold > t : s.threshold < t).toBe(true);
          expect(evaluateWindows({ ...c, threshold: s.threshold }, windows, pts, grouped)).toEqual(s.counts);
          expect(s.counts.episodes).toBeLessThanOrEqual(allowed);
          // Every threshold between: each value the series takes, each midpoint, and a hair past the current one.
          const values = [...new Set([0, ...pts.map((p) => p.value ?? 0)])].sort((x, y) => x - y);
          const between = [...values, ...values.map((v) => v + 0.5), t + (raises(type) ? 1e-9 : -1e-9)].filter((x) =>
            raises(type) ? x > t && x < s.threshold : x < t && x > s.threshold,
          );
          for (const x of between) {
            const counts = evaluateWindows({ ...c, threshold: x }, windows, pts, grouped);
            // Closer and within budget only when it fires exactly as the suggestion does (the same windows).
            if (counts.episodes <= allowed) expect(counts).toEqual(s.counts);
          }
        },
      ),
      { numRuns: 100 },
    );
  });
});
