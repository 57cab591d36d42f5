/**
 * `POST /charts/series` (reference §3.7): validation as the server does it, then rows of the
 * sandbox's synthetic telemetry (./telemetry.ts): each bucket's value depends only on the source,
 * the series, the group, the bucket's start and the granularity, so overlapping queries agree.
 * Counts come back as strings (ClickHouse 64-bit JSON); a bucket without data has no row, as
 * ClickHouse returns none. With the OTLP receiver on, what it stored answers instead where it can
 * (storedSeries below).
 */
import * as z from 'zod';
import type { DomainResult, JsonRecord, StoredTelemetry } from './contract.js';
import { answersMetricType, bucketedStreams, metricPoints, streamAggFn, type BucketGrid } from '../otlp/metric-series.js';
import { seriesRows, storedBucketValue, storedGroups, type StoredSeries } from '../otlp/query.js';
import { luceneSyntaxError } from './lucene.js';
import { failErrorKey, ok, zodFailure } from './result.js';
import type { Store } from './store.js';
import { bucketValue, groupValues } from './telemetry.js';
import { aggFn, METRIC_TYPES, objectId } from './tile-config-schema.js';
import { ZOD3 } from './zod3-messages.js';

const GRANULARITY_MS: Record<string, number> = {
  '30s': 30e3,
  '1m': 60e3,
  '5m': 300e3,
  '10m': 600e3,
  '15m': 900e3,
  '30m': 1800e3,
  '1h': 3600e3,
  '2h': 7200e3,
  '6h': 21600e3,
  '12h': 43200e3,
  '1d': 86400e3,
  '2d': 172800e3,
  '7d': 604800e3,
  '30d': 2592000e3,
};
const MAX_BUCKETS = 500;
const AUTO_TARGET_BUCKETS = 60;

const millis = z
  .number()
  .int({ error: 'Timestamp must be an integer' })
  .positive({ error: 'Timestamp must be positive' })
  .refine((n) => n.toString().length >= 13, { error: 'Timestamp must be in milliseconds' });
const seriesItem = z.object({
  sourceId: objectId,
  aggFn,
  where: z.string(),
  groupBy: z.array(z.string()).max(10),
  field: z.string().optional(),
  whereLanguage: z.enum(['sql', 'lucene', 'promql']).optional(),
  level: z.number().min(0).max(1).optional(),
  metricName: z.string().optional(),
  metricDataType: z.enum(METRIC_TYPES).optional(),
  dataSource: z.enum(['events', 'metrics']).optional(),
  sortOrder: z.enum(['asc', 'desc']).optional(),
});
const seriesBody = z
  .object({
    series: z.array(seriesItem).min(1, { error: 'Series array cannot be empty' }).max(5),
    startTime: millis,
    endTime: millis,
    granularity: z.enum(['auto', ...Object.keys(GRANULARITY_MS)] as [string, ...string[]]).optional(),
    seriesReturnType: z.enum(['ratio', 'column']).optional(),
  })
  .superRefine((body, ctx) => {
    const first = JSON.stringify(body.series[0]?.groupBy);
    if (body.series.some((s) => JSON.stringify(s.groupBy) !== first)) {
      ctx.addIssue({ code: 'custom', path: ['series'], message: 'All series must have the same groupBy fields' });
    }
  });
type SeriesBody = z.output<typeof seriesBody>;

function stepMs(body: SeriesBody): number {
  const span = Math.max(body.endTime - body.startTime, 1);
  if (body.granularity && body.granularity !== 'auto') return GRANULARITY_MS[body.granularity] ?? 60e3;
  const steps = Object.values(GRANULARITY_MS);
  return steps.find((ms) => span / ms <= AUTO_TARGET_BUCKETS) ?? steps[steps.length - 1] ?? 60e3;
}

function buckets(body: SeriesBody): number[] {
  const step = stepMs(body);
  const out: number[] = [];
  for (let t = Math.floor(body.startTime / step) * step; t < body.endTime && out.length < MAX_BUCKETS; t += step) out.push(t);
  return out;
}

/**
 * The server runs the series concurrently: a series whose source resolves but whose Lucene `where`
 * does not parse throws (500 `{error}`, whatever the other series do); otherwise the first series
 * without a source or connection answers 404.
 */
function seriesProblem(store: Store, req: SeriesBody): ReturnType<typeof failErrorKey> | undefined {
  const found = req.series.map((s) => store.state.sources.find((src) => src.id === s.sourceId));
  for (const [i, s] of req.series.entries()) {
    const source = found[i];
    const connected = source !== undefined && store.state.connections.some((c) => c.id === source.connection);
    const syntax = connected && (s.whereLanguage ?? 'lucene') === 'lucene' ? luceneSyntaxError(s.where) : undefined;
    if (syntax) return failErrorKey(500, syntax);
  }
  for (const [i, source] of found.entries()) {
    if (!source) return failErrorKey(404, `Source not found for series ${i}`);
    if (!store.state.connections.some((c) => c.id === source.connection)) return failErrorKey(404, `Connection not found for series ${i}`);
  }
  return undefined;
}

const clickhouseTime = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');

export function chartSeries(store: Store, body: unknown, telemetry?: StoredTelemetry): DomainResult<JsonRecord[]> {
  const parsed = seriesBody.safeParse(body, ZOD3);
  if (!parsed.success) return zodFailure('Body', parsed.error);
  const req = parsed.data;
  const problem = seriesProblem(store, req);
  if (problem) return problem;
  const groupBy = req.series[0]?.groupBy ?? [];
  const step = stepMs(req);
  const stored = telemetry
    ? storedSeries(store, req, telemetry, { startTime: req.startTime, endTime: req.endTime, stepMs: step })
    : undefined;
  const groups = stored
    ? storedGroups(
        stored.flatMap((s) => s.rows),
        groupBy,
      )
    : groupValues(groupBy);
  const rows: JsonRecord[] = [];
  for (const ts of buckets(req)) {
    for (const [g, group] of groups.entries()) {
      const values = req.series.map((s, i) => {
        const answer = stored?.[i];
        return answer
          ? storedBucketValue(answer.rows, answer.series, groupBy, group, ts, step)
          : bucketValue(s, group, g, groups.length, ts, step);
      });
      if (req.seriesReturnType === 'column') {
        // Raw ClickHouse rows, series after series: a series without data in the bucket has none.
        values.forEach((v, i) => {
          if (v === null) return;
          const row: JsonRecord = { __hdx_time_bucket: clickhouseTime(ts), [`series_${i}`]: v };
          groupBy.forEach((col, c) => (row[col] = group[c] ?? ''));
          rows.push(row);
        });
      } else if (values.some((v) => v !== null)) {
        // Merged per (bucket, group) as the route's formatCHResult does: only the series that have a row.
        const row: JsonRecord = { ts_bucket: ts, group };
        values.forEach((v, i) => {
          if (v !== null) row[`series_${i}.data`] = v;
        });
        rows.push(row);
      }
    }
  }
  return ok(rows);
}

type SeriesItem = SeriesBody['series'][number];

/** One series answered from stored rows: the rows its aggregation runs over, and the series as it runs there. */
interface StoredAnswer {
  rows: Record<string, unknown>[];
  series: StoredSeries;
}

/**
 * With the OTLP receiver on, a request whose every series can be answered from what the receiver
 * stored is: a series on a source whose table is otel_traces or otel_logs reads those rows
 * (../otlp/query.ts); a sum or gauge series on a metric source reads its metric's points when the
 * receiver has any (../otlp/metric-series.ts). Otherwise the whole request gets the synthetic series.
 */
function storedSeries(store: Store, req: SeriesBody, telemetry: StoredTelemetry, grid: BucketGrid): StoredAnswer[] | undefined {
  const answers = req.series.map((s) => storedAnswer(store, s, telemetry, grid));
  return answers.every((a) => a !== undefined) ? answers : undefined;
}

function storedAnswer(store: Store, s: SeriesItem, telemetry: StoredTelemetry, grid: BucketGrid): StoredAnswer | undefined {
  const source = store.state.sources.find((src) => src.id === s.sourceId);
  const from = source?.from;
  const table = typeof from === 'object' && from !== null && !Array.isArray(from) ? from.tableName : undefined;
  if (table === 'otel_traces' || table === 'otel_logs') return { rows: seriesRows(telemetry.rows(table), s), series: s };
  if (source?.kind !== 'metric' || !s.metricName || !answersMetricType(s.metricDataType)) return undefined;
  const type = s.metricDataType ?? '';
  const points = metricPoints(telemetry.rows('otel_metrics'), { metricName: s.metricName, metricDataType: type });
  if (points.length === 0) return undefined;
  return { rows: bucketedStreams(seriesRows(points, s), type, grid), series: { ...s, aggFn: streamAggFn(s.aggFn), field: 'Value' } };
}
