/**
 * The threshold nearest the alert's own that would have kept its backtest within an episode
 * budget, from the same series (no request): a suggestion for the plan, never applied.
 *
 * Only a threshold that moves one way makes the alert quieter: raised for above and
 * above_exclusive, lowered for below and below_or_equal (equal, not_equal, between and
 * not_between get none). The values the windows take (0 for a window without rows) are where the
 * firing windows change: between two of them every threshold fires the same windows. The
 * candidates are, nearest first, the threshold at each such change — a value the series takes
 * (`above` fires on it: at v the windows of v and more fire), and past the last value one that
 * fires nothing — and the suggestion is the first within budget. Episodes are not monotonic in
 * the threshold (a raised threshold can split an episode in two), so every candidate is
 * evaluated, nearest first.
 */
import type { BacktestCounts } from '../../core/backtest.js';
import { evaluateWindows } from './backtest-counts.js';
import type { AlertCondition, SeriesPoint, Windows } from './checker.js';

export interface Suggested {
  threshold: number;
  counts: BacktestCounts;
}

/** The nearest threshold whose episodes are at most `allowed`, or null (no quieter direction, or none within it). */
export function suggestThreshold(
  c: AlertCondition,
  windows: Windows,
  points: readonly SeriesPoint[],
  grouped: boolean,
  allowed: number,
): Suggested | null {
  for (const threshold of candidates(c, points)) {
    const counts = evaluateWindows({ ...c, threshold }, windows, points, grouped);
    if (counts.episodes <= allowed) return { threshold, counts };
  }
  return null;
}

/** The thresholds where the firing windows change, nearest the current one first, in the quieter direction. */
export function candidates(c: Pick<AlertCondition, 'thresholdType' | 'threshold'>, points: readonly SeriesPoint[]): number[] {
  const values = [...new Set([0, ...points.flatMap((p) => (p.value === null || Number.isNaN(p.value) ? [] : [p.value]))])].sort(
    (a, b) => a - b,
  );
  const t = c.threshold;
  const max = values[values.length - 1] ?? 0;
  const min = values[0] ?? 0;
  switch (c.thresholdType) {
    case 'above': // fires v >= t: at v, the windows of v and more; past the largest, none.
      return [...values.filter((v) => v > t), nextAbove(max)];
    case 'above_exclusive': // fires v > t: at v, the windows above v (at the largest: none).
      return values.filter((v) => v > t);
    case 'below': // fires v < t: at v, the windows below v (at the smallest: none).
      return values.filter((v) => v < t).reverse();
    case 'below_or_equal': // fires v <= t: at v, the windows of v and less; under the smallest, none.
      return [...values.filter((v) => v < t).reverse(), nextBelow(min)];
    default:
      return [];
  }
}

/** A round number above the largest value: what fires nothing for `above`. */
function nextAbove(v: number): number {
  return Math.floor(v) + 1;
}

function nextBelow(v: number): number {
  return Math.ceil(v) - 1;
}
