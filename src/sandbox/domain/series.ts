/**
 * `POST /charts/series` (reference §3.7): validation as the server does it, then deterministic
 * synthetic rows — the numbers are derived from a hash of the parsed request, so the same
 * request always yields the same rows. Counts come back as strings (ClickHouse 64-bit JSON).
 */
import { createHash } from 'node:crypto';
import * as z from 'zod';
import type { DomainResult, JsonRecord, JsonValue } from './contract.js';
import { luceneSyntaxError } from './lucene.js';
import { failErrorKey, ok, zodFailure } from './result.js';
import type { Store } from './store.js';
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

/** mulberry32 seeded from the request hash. */
function random(seedHex: string): () => number {
  let state = Number.parseInt(seedHex.slice(0, 8), 16) >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

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

function value(agg: string, next: () => number): JsonValue {
  if (agg === 'count' || agg === 'count_distinct') return String(Math.floor(next() * 1000));
  return Math.round(next() * 100000) / 100;
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
    const syntax = connected && (s.whereLanguage ?? 'lucene') === 'lucene' ? luceneSyntaxError(s.where.trim()) : undefined;
    if (syntax) return failErrorKey(500, syntax);
  }
  for (const [i, source] of found.entries()) {
    if (!source) return failErrorKey(404, `Source not found for series ${i}`);
    if (!store.state.connections.some((c) => c.id === source.connection)) return failErrorKey(404, `Connection not found for series ${i}`);
  }
  return undefined;
}

const clickhouseTime = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');

export function chartSeries(store: Store, body: unknown): DomainResult<JsonRecord[]> {
  const parsed = seriesBody.safeParse(body, ZOD3);
  if (!parsed.success) return zodFailure('Body', parsed.error);
  const req = parsed.data;
  const problem = seriesProblem(store, req);
  if (problem) return problem;
  const next = random(createHash('sha256').update(JSON.stringify(req)).digest('hex'));
  const groupBy = req.series[0]?.groupBy ?? [];
  const groups = groupBy.length === 0 ? [[]] : [1, 2].map((k) => groupBy.map((col) => `${col}-${k}`));
  const rows: JsonRecord[] = [];
  for (const ts of buckets(req)) {
    for (const group of groups) {
      const values = req.series.map((s) => value(s.aggFn, next));
      if (req.seriesReturnType === 'column') {
        values.forEach((v, i) => {
          const row: JsonRecord = { __hdx_time_bucket: clickhouseTime(ts), [`series_${i}`]: v };
          groupBy.forEach((col, c) => (row[col] = group[c] ?? ''));
          rows.push(row);
        });
      } else {
        const row: JsonRecord = { ts_bucket: ts, group };
        values.forEach((v, i) => (row[`series_${i}.data`] = v));
        rows.push(row);
      }
    }
  }
  return ok(rows);
}
