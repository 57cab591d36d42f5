/**
 * The alert checker's rule, as the self-hosted server runs it every minute (hyperdxio/hyperdx at
 * b52a6fa83a1a8f6d1cc70e8b676103ade6a1b207, packages/api/src/tasks/checkAlerts/index.ts and
 * tasks/util.ts), replayed over a history of series buckets. Pure: the rows come from the chart
 * series API through the engine.
 *
 * - Windows: one per `interval`, aligned on the interval since the epoch (`roundDownToXMinutes`);
 *   the query buckets by the same granularity, start inclusive, end exclusive.
 * - The value of a window is its bucket's value; a 64-bit count arrives as a string and is read
 *   with `parseInt` (`parseAlertData`; NaN compares as the checker's does). A bucket with no row at
 *   all is evaluated as 0 (an empty window can fire a `below` alert); a row whose value is null is
 *   skipped.
 * - The comparison is `doesExceedThreshold`: `above` is `>=` (the boundary fires), `below` is `<`,
 *   `above_exclusive` `>`, `below_or_equal` `<=`, `between` inclusive at both ends,
 *   `not_between` outside them.
 * - groupBy: each group is its own history; in one bucket a group breaches when any of its rows
 *   does.
 * - numConsecutiveWindows M: a breaching window puts the group in ALERT only when its previous M-1
 *   windows breached too (their histories ALERT or PENDING, `getConsecutiveWindowHistories`); a
 *   window in which the group has no row breaks the run.
 *
 * The replay of the checker's histories and notifications is notifications.ts; the counts a
 * backtest reports, backtest-counts.ts.
 */
import type { Json } from '../../core/wire.js';
import { INTERVAL_MINUTES } from './schema.js';

export const INTERVAL_MS: Readonly<Record<string, number>> = Object.fromEntries(
  Object.entries(INTERVAL_MINUTES).map(([interval, minutes]) => [interval, minutes * 60_000]),
);

export interface AlertCondition {
  thresholdType: string;
  threshold: number;
  thresholdMax?: number | null;
  interval: string;
  numConsecutiveWindows?: number | null;
}

/** `doesExceedThreshold` of the checker (an unknown type never fires). */
export function exceedsThreshold(c: Pick<AlertCondition, 'thresholdType' | 'threshold' | 'thresholdMax'>, value: number): boolean {
  const { threshold } = c;
  switch (c.thresholdType) {
    case 'above':
      return value >= threshold;
    case 'below':
      return value < threshold;
    case 'above_exclusive':
      return value > threshold;
    case 'below_or_equal':
      return value <= threshold;
    case 'equal':
      return value === threshold;
    case 'not_equal':
      return value !== threshold;
    case 'between':
      return c.thresholdMax != null && value >= threshold && value <= c.thresholdMax;
    case 'not_between':
      return c.thresholdMax != null && (value < threshold || value > c.thresholdMax);
    default:
      return false;
  }
}

/** The alert windows over a history: `count` windows of `stepMs`, the first starting at `start`. */
export interface Windows {
  start: number;
  count: number;
  stepMs: number;
}

/**
 * The windows the checker would have evaluated over `historyMs` before `now`: the last one ends
 * where the checker's latest run began (now rounded down to the interval). `maxWindows` keeps
 * the most recent ones.
 */
export function alertWindows(now: number, historyMs: number, intervalMs: number, maxWindows = Number.POSITIVE_INFINITY): Windows {
  const end = Math.floor(now / intervalMs) * intervalMs;
  const count = Math.max(0, Math.min(Math.floor(historyMs / intervalMs), maxWindows));
  return { start: end - count * intervalMs, count, stepMs: intervalMs };
}

/** One bucket of one group; `value` null when the row has none (a gap of a metric, a ratio over zero). */
export interface SeriesPoint {
  bucket: number;
  group: string;
  value: number | null;
}

/** A series value as the checker reads it: strings (64-bit integers) through parseInt. */
export function checkerValue(v: Json | undefined): number | null {
  if (typeof v === 'number') return v;
  if (typeof v === 'string') return Number.parseInt(v, 10);
  return null;
}

/**
 * The points of series rows in the route's default shape (`ts_bucket` in ms, `group` values in
 * groupBy order, `series_N.data`). A group is named as the checker names it: `column:value, …`.
 */
export function seriesPoints(rows: readonly { [key: string]: Json }[], groupBy: readonly string[], ratio: boolean): SeriesPoint[] {
  return rows.map((row) => {
    const values = row.group;
    return {
      bucket:
        typeof row.ts_bucket === 'number' ? row.ts_bucket : typeof row.ts_bucket === 'string' ? Date.parse(row.ts_bucket) : Number.NaN,
      group: Array.isArray(values) ? groupBy.map((c, i) => `${c}:${scalarText(values[i])}`).join(', ') : '',
      value: ratio ? ratioValue(row['series_0.data'], row['series_1.data']) : checkerValue(row['series_0.data']),
    };
  });
}

/** A group value as the checker prints it (`${v}`); anything but a scalar as JSON. */
function scalarText(v: Json | undefined): string {
  if (v === undefined) return '';
  return typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v);
}

/** A ratio is computed on the numbers themselves; a missing or zero denominator is no value. */
function ratioValue(a: Json | undefined, b: Json | undefined): number | null {
  const num = typeof a === 'number' || typeof a === 'string' ? Number(a) : Number.NaN;
  const den = typeof b === 'number' || typeof b === 'string' ? Number(b) : Number.NaN;
  if (Number.isNaN(num) || Number.isNaN(den) || den === 0) return null;
  return num / den;
}
