import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Json } from '../../core/wire.js';
import { evaluateWindows } from './backtest-counts.js';
import { alertWindows, exceedsThreshold, seriesPoints, type AlertCondition, type SeriesPoint } from './checker.js';

const FIVE_MIN = 300_000;
const cond = (thresholdType: string, threshold: number, more: Partial<AlertCondition> = {}): AlertCondition => ({
  thresholdType,
  threshold,
  interval: '5m',
  ...more,
});
const windows = (count: number) => ({ start: 1_767_225_600_000, count, stepMs: FIVE_MIN });
const at = (i: number) => 1_767_225_600_000 + i * FIVE_MIN;
const points = (values: (number | null)[]): SeriesPoint[] => values.map((value, i) => ({ bucket: at(i), group: '', value }));

describe('the checker comparison (doesExceedThreshold)', () => {
  it('fires at the boundary for above, never for below', () => {
    expect(exceedsThreshold(cond('above', 10), 10)).toBe(true);
    expect(exceedsThreshold(cond('above', 10), 9.999)).toBe(false);
    expect(exceedsThreshold(cond('below', 10), 10)).toBe(false);
    expect(exceedsThreshold(cond('below', 10), 9)).toBe(true);
    expect(exceedsThreshold(cond('above_exclusive', 10), 10)).toBe(false);
    expect(exceedsThreshold(cond('below_or_equal', 10), 10)).toBe(true);
    expect(exceedsThreshold(cond('equal', 10), 10)).toBe(true);
    expect(exceedsThreshold(cond('not_equal', 10), 10)).toBe(false);
  });

  it('between is inclusive at both ends, not_between outside them; a missing upper bound never fires', () => {
    const between = cond('between', 10, { thresholdMax: 20 });
    expect([9, 10, 15, 20, 21].map((v) => exceedsThreshold(between, v))).toEqual([false, true, true, true, false]);
    const outside = cond('not_between', 10, { thresholdMax: 20 });
    expect([9, 10, 20, 21].map((v) => exceedsThreshold(outside, v))).toEqual([true, false, false, true]);
    expect(exceedsThreshold(cond('between', 10), 15)).toBe(false);
  });
});

describe('windows', () => {
  it('end where the latest run began (now rounded down to the interval) and keep the most recent', () => {
    const now = Date.UTC(2026, 10, 26, 12, 7, 30);
    const w = alertWindows(now, 7 * 86_400_000, FIVE_MIN);
    expect(w.count).toBe(2016);
    expect(w.start + w.count * FIVE_MIN).toBe(Date.UTC(2026, 10, 26, 12, 5));
    const capped = alertWindows(now, 7 * 86_400_000, FIVE_MIN, 100);
    expect(capped.count).toBe(100);
    expect(capped.start + capped.count * FIVE_MIN).toBe(Date.UTC(2026, 10, 26, 12, 5));
  });
});

describe('evaluateWindows', () => {
  it('counts firing windows and episodes (runs), with the first and last firing window', () => {
    const counts = evaluateWindows(cond('above', 5), windows(8), points([1, 6, 7, 1, 5, 1, 1, 9]), false);
    expect(counts).toEqual({
      evaluated: 8,
      firing: 4,
      episodes: 3,
      firstFiringAt: new Date(at(1)).toISOString(),
      lastFiringAt: new Date(at(7)).toISOString(),
      notifications: 4,
      resolutions: 2,
      flapping: 3,
      // One span per episode, what a backtest chart shades: [start of its first window, end of its last).
      fired: [
        [at(1), at(3)],
        [at(4), at(5)],
        [at(7), at(8)],
      ],
    });
  });

  it('evaluates a window without rows as 0, and skips a row without a value', () => {
    const empty = evaluateWindows(cond('below', 1), windows(3), points([3]), false);
    expect(empty.firing).toBe(2);
    const noValue = evaluateWindows(cond('below', 1), windows(2), points([null, null]), false);
    expect(noValue.firing).toBe(0);
  });

  it('fires only after numConsecutiveWindows breaching windows in a row', () => {
    const c = cond('above', 5, { numConsecutiveWindows: 3 });
    const counts = evaluateWindows(c, windows(9), points([6, 6, 6, 6, 1, 6, 6, 1, 6]), false);
    expect(counts.firing).toBe(2);
    expect(counts.episodes).toBe(1);
    expect(counts.firstFiringAt).toBe(new Date(at(2)).toISOString());
  });

  it('keeps a history per group: a window fires when any group does; a group missing from a window breaks its run', () => {
    const rows: SeriesPoint[] = [
      { bucket: at(0), group: 'svc:a', value: 9 },
      { bucket: at(0), group: 'svc:b', value: 1 },
      { bucket: at(1), group: 'svc:b', value: 9 },
      { bucket: at(2), group: 'svc:a', value: 9 },
      { bucket: at(2), group: 'svc:b', value: 9 },
    ];
    const counts = evaluateWindows(cond('above', 5), windows(3), rows, true);
    expect(counts).toMatchObject({ firing: 3, episodes: 1, groups: 2 });
    const twice = evaluateWindows(cond('above', 5, { numConsecutiveWindows: 2 }), windows(3), rows, true);
    // a: windows 0 and 2 (missing in 1); b: windows 1 and 2 → only b in window 2.
    expect(twice).toMatchObject({ firing: 1, episodes: 1, groups: 1 });
  });

  it('reads series rows as the checker does: counts through parseInt, groups as column:value, ratios on numbers', () => {
    const rows: { [key: string]: Json }[] = [
      { ts_bucket: at(0), group: ['api'], 'series_0.data': '12', 'series_1.data': '4' },
      { ts_bucket: at(1), group: ['api'], 'series_0.data': '7.9' },
    ];
    expect(seriesPoints(rows, ['ServiceName'], false)).toEqual([
      { bucket: at(0), group: 'ServiceName:api', value: 12 },
      { bucket: at(1), group: 'ServiceName:api', value: 7 },
    ]);
    expect(seriesPoints(rows, ['ServiceName'], true).map((p) => p.value)).toEqual([3, null]);
  });
});

const series = fc.array(fc.option(fc.integer({ min: 0, max: 100 }), { nil: null, freq: 8 }), { minLength: 0, maxLength: 60 });
const gapped = series.map((values) => points(values).filter((_, i) => i % 7 !== 3));

describe('properties', () => {
  it('raising an above threshold never increases firing', () => {
    fc.assert(
      fc.property(
        gapped,
        fc.integer({ min: -5, max: 105 }),
        fc.integer({ min: 0, max: 50 }),
        fc.integer({ min: 1, max: 4 }),
        (pts, t, raise, m) => {
          const w = windows(60);
          const low = evaluateWindows(cond('above', t, { numConsecutiveWindows: m }), w, pts, false);
          const high = evaluateWindows(cond('above', t + raise, { numConsecutiveWindows: m }), w, pts, false);
          expect(high.firing).toBeLessThanOrEqual(low.firing);
        },
      ),
    );
  });

  it('episodes ≤ firing ≤ evaluated, for every condition type', () => {
    const types = ['above', 'below', 'above_exclusive', 'below_or_equal', 'equal', 'not_equal', 'between', 'not_between'];
    fc.assert(
      fc.property(
        gapped,
        fc.constantFrom(...types),
        fc.integer({ min: 0, max: 100 }),
        fc.integer({ min: 0, max: 50 }),
        (pts, type, t, width) => {
          const c = cond(type, t, { thresholdMax: t + width });
          const counts = evaluateWindows(c, windows(60), pts, false);
          expect(counts.episodes).toBeLessThanOrEqual(counts.firing);
          expect(counts.firing).toBeLessThanOrEqual(counts.evaluated);
          expect(counts.firing === 0).toBe(counts.lastFiringAt === null);
        },
      ),
    );
  });
});
