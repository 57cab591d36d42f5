/**
 * A chart series on a metric source, answered from the metric points the receiver stored, as
 * HyperDX renders it over ClickHouse's otel_metrics_* tables (hyperdxio/hyperdx b52a6fa8,
 * packages/common-utils/src/core/renderChartConfig.ts, `translateMetricChartConfig`):
 * - one series of points per metric stream (its AttributesHash: resource and point attributes),
 *   in time order;
 * - `sum`: each point's Rate is, for a delta sum, its value; for a cumulative sum,
 *   `greatest(Value - previous Value, 0)` — a counter reset (the value falls) adds 0, not the
 *   value after the reset (unlike Prometheus' increase), and a stream's first point has no
 *   previous value, so it adds nothing. A stream's value in a bucket is the sum of its Rates;
 * - `gauge`: a stream's value in a bucket is its last point's value;
 * - the points read reach one bucket before the range and one after (`includedDataInterval`), so
 *   the first bucket's points have their previous point;
 * - the tile's aggFn then runs over the streams' bucket values (`increase` sums them), grouped by
 *   the groupBy columns (`Attributes['kind']` is the point's attribute).
 * Histograms, exponential histograms and summaries are not translated here (the caller keeps the
 * sandbox's synthetic series for them).
 */
import { clickhouseTime, type Row } from './rows.js';
import { rowTime } from './query.js';

/** The metric types answered from stored points, and the Type column the receiver wrote for each. */
const STORED_TYPES: Record<string, string> = { sum: 'Sum', gauge: 'Gauge' };
const DELTA = 1;

export interface MetricSelect {
  metricName: string;
  metricDataType: string;
}

export interface BucketGrid {
  startTime: number;
  endTime: number;
  stepMs: number;
}

/** Whether a series' metric type is one this module answers from stored points. */
export const answersMetricType = (type: string | undefined): boolean => type !== undefined && Object.hasOwn(STORED_TYPES, type);

/** The stored points of the series' metric (its name and type). */
export function metricPoints(rows: readonly Row[], m: MetricSelect): Row[] {
  const type = STORED_TYPES[m.metricDataType];
  return rows.filter((r) => r.MetricName === m.metricName && r.Type === type);
}

const sortedEntries = (v: unknown) => Object.entries(typeof v === 'object' && v !== null ? v : {}).sort(([a], [b]) => (a < b ? -1 : 1));
const streamKey = (r: Row) => JSON.stringify([r.ServiceName, sortedEntries(r.ResourceAttributes), sortedEntries(r.Attributes)]);
const timeText = (r: Row) => (typeof r.TimeUnix === 'string' ? r.TimeUnix : '');

/**
 * One row per (stream, bucket) with the stream's value in the bucket as `Value` (a Rate sum or the
 * last gauge value; absent when no point of a sum's stream had a previous one), at the bucket's
 * start as `TimeUnix`, with the stream's columns (Attributes, ResourceAttributes, ServiceName…)
 * for the groupBy. `points` are one metric's points, the series' where already applied.
 */
export function bucketedStreams(points: readonly Row[], type: string, grid: BucketGrid): Row[] {
  const first = Math.floor(grid.startTime / grid.stepMs) * grid.stepMs - grid.stepMs;
  const last = Math.floor(grid.endTime / grid.stepMs) * grid.stepMs + grid.stepMs;
  const streams = new Map<string, Row[]>();
  for (const p of points) {
    const t = rowTime(p, 'TimeUnix');
    if (!(t >= first && t <= last)) continue;
    const key = streamKey(p);
    const stream = streams.get(key);
    if (stream) stream.push(p);
    else streams.set(key, [p]);
  }
  const out: Row[] = [];
  for (const stream of streams.values()) {
    stream.sort((a, b) => (timeText(a) < timeText(b) ? -1 : timeText(a) > timeText(b) ? 1 : 0));
    const buckets = new Map<number, { row: Row; value: number | undefined }>();
    stream.forEach((p, i) => {
      const bucket = Math.floor(rowTime(p, 'TimeUnix') / grid.stepMs) * grid.stepMs;
      const value = type === 'gauge' ? Number(p.Value) : sumRate(p, stream[i - 1]);
      const seen = buckets.get(bucket);
      if (!seen) buckets.set(bucket, { row: p, value });
      else seen.value = type === 'gauge' ? value : addRate(seen.value, value);
    });
    for (const [bucket, { row, value }] of buckets) {
      const { Value: _raw, ...columns } = row;
      out.push({ ...columns, TimeUnix: clickhouseTime(BigInt(bucket) * 1_000_000n), ...(value === undefined ? {} : { Value: value }) });
    }
  }
  return out;
}

/** A sum point's Rate (undefined for a cumulative stream's first point, ClickHouse's NULL). */
function sumRate(point: Row, previous: Row | undefined): number | undefined {
  if (Number(point.AggregationTemporality) === DELTA) return Number(point.Value);
  if (previous === undefined) return undefined;
  return Math.max(Number(point.Value) - Number(previous.Value), 0);
}

/** ClickHouse's sum() of a Nullable column: NULLs are skipped, all NULL is NULL. */
function addRate(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b;
  return b === undefined ? a : a + b;
}

/** The aggregation HyperDX runs over the streams' bucket values: `increase` is their sum. */
export const streamAggFn = (aggFn: string): string => (aggFn === 'increase' ? 'sum' : aggFn);
