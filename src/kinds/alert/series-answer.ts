/**
 * Whether a chart series answer answers its request. A row counts when its bucket is one the
 * request asked for (inside its range, on its granularity's grid) and it carries every series
 * asked (`series_0.data`, …). An answer with rows, none of which counts, answered another
 * question — another range, granularity or series: evaluated, every window would read as empty,
 * a confident "0 of 2016 windows" that is no evidence at all. Such an answer is unavailable, with
 * the reason. No rows at all is an answer (nothing happened in the range), and rows that count
 * beside some that do not are evaluated on the ones that count, as the checker would.
 */
import type { WireSeriesRow } from '../../core/wire.js';
import { INTERVAL_MS } from './checker.js';
import type { SeriesRequest } from './series-query.js';

/** Why `rows` do not answer `request`, or null when they do. */
export function unansweredRequest(request: SeriesRequest, rows: readonly WireSeriesRow[]): string | null {
  if (rows.length === 0) return null;
  const step = INTERVAL_MS[request.granularity] ?? 0;
  const series = request.series.map((_, i) => `series_${i}.data`);
  let inBuckets = 0;
  for (const row of rows) {
    if (!askedBucket(row, request, step)) continue;
    inBuckets += 1;
    if (series.every((key) => Object.hasOwn(row, key))) return null;
  }
  const range = `${new Date(request.startTime).toISOString()} to ${new Date(request.endTime).toISOString()}, every ${request.granularity}`;
  const none =
    inBuckets === 0
      ? `none of its ${rows.length} row(s) is for a bucket asked for (${range})`
      : `none of its ${rows.length} row(s) carries the series asked for (${series.join(', ')})`;
  return `the chart series answer does not answer the request: ${none}; not evaluated`;
}

function askedBucket(row: WireSeriesRow, request: SeriesRequest, step: number): boolean {
  const raw = row.ts_bucket;
  const bucket = typeof raw === 'number' ? raw : typeof raw === 'string' ? Date.parse(raw) : Number.NaN;
  return (
    Number.isFinite(bucket) &&
    bucket >= request.startTime &&
    bucket < request.endTime &&
    step > 0 &&
    (bucket - request.startTime) % step === 0
  );
}
