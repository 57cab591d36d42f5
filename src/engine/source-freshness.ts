/**
 * Whether an alert's source still receives data (issue 47, data checks): one count of the whole
 * source per hour over the backtest's history, asked once per source per plan and only with
 * budget left over from the alerts themselves. The last hour with a row is when the source last
 * had data; an answer without any is "no data over the history".
 */
import type { WireSeriesRow } from '../core/wire.js';
import type { SeriesRequest } from '../kinds/alert/series-query.js';

const HOUR_MS = 3_600_000;

/** The count of every row of the source, by the hour, over [start, end) widened to whole hours. */
export function sourceRequest(sourceId: string, start: number, end: number): SeriesRequest {
  const startTime = Math.floor(start / HOUR_MS) * HOUR_MS;
  const endTime = Math.ceil(end / HOUR_MS) * HOUR_MS;
  return {
    series: [{ sourceId, aggFn: 'count', where: '', whereLanguage: 'lucene', groupBy: [] }],
    startTime,
    endTime,
    granularity: '1h',
  };
}

/**
 * When the source last had data (the end of its last hour with a row, ISO 8601), null when it had
 * none over the request; undefined when it has data in one of the last two hours (fresh: the
 * current hour may not have reached the service yet).
 */
export function staleSince(request: SeriesRequest, rows: readonly WireSeriesRow[]): string | null | undefined {
  let last = Number.NEGATIVE_INFINITY;
  for (const row of rows) {
    const bucket =
      typeof row.ts_bucket === 'number' ? row.ts_bucket : typeof row.ts_bucket === 'string' ? Date.parse(row.ts_bucket) : Number.NaN;
    const value = row['series_0.data'];
    if (Number.isFinite(bucket) && value !== undefined && value !== null && value !== '0' && value !== 0) last = Math.max(last, bucket);
  }
  if (last === Number.NEGATIVE_INFINITY) return null;
  return last + HOUR_MS >= request.endTime - HOUR_MS ? undefined : new Date(last + HOUR_MS).toISOString();
}
