/**
 * Source bodies (hyperdx common-utils `SourceSchemaNoId` at b52a6fa8), discriminated by `kind`,
 * and the short/long granularity mapping of the v2 sources router: requests may send `5m`,
 * the server stores `5 minute` and answers `5m`.
 */
import * as z from 'zod';
import { AGG_FNS, METRIC_TYPES } from './tile-config-schema.js';

const SQL_INTERVAL = /^\d+ (second|minute|hour|day)$/;
const sqlInterval = z.string().regex(SQL_INTERVAL);

const querySettings = z.array(z.object({ setting: z.string().min(1), value: z.string().min(1) })).max(10);

const base = {
  name: z.string().min(1, 'Name is required'),
  section: z.string().max(256).optional(),
  connection: z.string().min(1, 'Server Connection is required'),
  from: z.object({
    databaseName: z.string().min(1, 'Database is required'),
    tableName: z.string().min(1, 'Table is required'),
  }),
  disabled: z.boolean().optional(),
  querySettings: querySettings.optional(),
  timestampValueExpression: z.string().min(1, 'Timestamp Column is required'),
};

const highlighted = z.array(
  z.object({
    sqlExpression: z.string().min(1, 'Attribute SQL Expression is required'),
    luceneExpression: z.string().optional(),
    alias: z.string().optional(),
  }),
);

const aggregatedColumn = z
  .object({
    sourceColumn: z.string().optional(),
    aggFn: z.enum([...AGG_FNS, 'histogram']),
    mvColumn: z.string().min(1, 'Materialized View Column is required'),
  })
  .refine(({ sourceColumn, aggFn }) => aggFn === 'count' || !!sourceColumn?.length, {
    error: 'Materialized View Source Column is required',
  });

const materializedView = z.object({
  databaseName: z.string().min(1, 'Materialized View Database is required'),
  tableName: z.string().min(1, 'Materialized View Table is required'),
  dimensionColumns: z.string(),
  minGranularity: sqlInterval,
  minDate: z.iso.datetime().nullish(),
  timestampColumn: z.string().min(1, 'Materialized View Timestamp column is required'),
  aggregatedColumns: z.array(aggregatedColumn).min(1, 'At least one aggregated column is required'),
});

const metadataMaterializedViews = z.object({
  keyRollupTable: z.string().nullish(),
  kvRollupTable: z.string().min(1, 'KV rollup table name is required'),
  granularity: sqlInterval,
});

const opt = z.string().optional();
const textIndex = z.enum(['auto', 'enabled', 'disabled']).optional();
const eventFields = {
  defaultTableSelectExpression: z.string().min(1, 'Default Select Expression is required'),
  serviceNameExpression: opt,
  serviceVersionExpression: opt,
  eventAttributesExpression: opt,
  resourceAttributesExpression: opt,
  displayedTimestampValueExpression: opt,
  metricSourceId: opt,
  implicitColumnExpression: opt,
  knownColumnsListExpression: opt,
  highlightedTraceAttributeExpressions: highlighted.optional(),
  highlightedRowAttributeExpressions: highlighted.optional(),
  materializedViews: z.array(materializedView).optional(),
  metadataMaterializedViews: metadataMaterializedViews.optional(),
  orderByExpression: opt,
  useTextIndexForImplicitColumn: textIndex,
};

const logSource = z.object({
  ...base,
  kind: z.literal('log'),
  ...eventFields,
  severityTextExpression: opt,
  bodyExpression: opt,
  traceSourceId: opt,
  traceIdExpression: opt,
  spanIdExpression: opt,
  tableFilterExpression: opt,
});

const traceSource = z.object({
  ...base,
  kind: z.literal('trace'),
  ...eventFields,
  durationExpression: z.string().min(1, 'Duration Expression is required'),
  durationPrecision: z.number().min(0).max(9).default(3),
  traceIdExpression: z.string().min(1, 'Trace ID Expression is required'),
  spanIdExpression: z.string().min(1, 'Span ID Expression is required'),
  parentSpanIdExpression: z.string().min(1, 'Parent span ID expression is required'),
  spanNameExpression: z.string().min(1, 'Span Name Expression is required'),
  spanKindExpression: z.string().min(1, 'Span Kind Expression is required'),
  sampleRateExpression: opt,
  logSourceId: z.string().optional().nullable(),
  sessionSourceId: opt,
  statusCodeExpression: opt,
  statusMessageExpression: opt,
  spanEventsValueExpression: opt,
  spanLinksValueExpression: opt,
});

const sessionSource = z.object({
  ...base,
  kind: z.literal('session'),
  traceSourceId: z.string({ error: 'Correlated Trace Source is required' }).min(1, 'Correlated Trace Source is required'),
  resourceAttributesExpression: opt,
});

const metricTables = z
  .object(
    Object.fromEntries(METRIC_TYPES.map((t) => [t, z.string().optional()])) as Record<
      (typeof METRIC_TYPES)[number],
      z.ZodOptional<z.ZodString>
    >,
  )
  .refine((tables) => Object.values(tables).some((table) => table !== undefined && table.length > 0), {
    error: 'At least one metric table must be specified',
  });

const metricSource = z.object({
  ...base,
  kind: z.literal('metric'),
  from: z.object({ databaseName: z.string().min(1, 'Database is required'), tableName: z.string() }),
  metricTables,
  resourceAttributesExpression: z.string().min(1, 'Resource Attributes is required'),
  serviceNameExpression: opt,
  logSourceId: opt,
  seriesTable: opt,
});

const promqlSource = z.object({ ...base, kind: z.literal('promql') });

const needed = (what: string) => z.string().min(1, `${what} is required`);
/** NetFlow sources (hyperdx newer than b52a6fa; netflow-sources.int.test.ts @ ba5fa67d): the flow columns' mappings. */
const netflowSource = z.object({
  ...base,
  kind: z.literal('netflow'),
  defaultTableSelectExpression: needed('Default Select Expression'),
  bytesExpression: needed('Bytes Expression'),
  packetsExpression: needed('Packets Expression'),
  srcAddrExpression: needed('Source Address Expression'),
  dstAddrExpression: needed('Destination Address Expression'),
  srcPortExpression: needed('Source Port Expression'),
  dstPortExpression: needed('Destination Port Expression'),
  protocolExpression: needed('Protocol Expression'),
  samplingRateExpression: opt,
  exporterExpression: opt,
  inIfExpression: opt,
  outIfExpression: opt,
  implicitColumnExpression: opt,
});

export const sourceBody = z.discriminatedUnion('kind', [logSource, traceSource, sessionSource, metricSource, promqlSource, netflowSource]);
export type SourceBody = z.output<typeof sourceBody>;

const LONG_UNITS: Record<string, string> = { s: 'second', m: 'minute', h: 'hour', d: 'day' };
const SHORT_UNITS: Record<string, string> = { second: 's', minute: 'm', hour: 'h', day: 'd' };

/** `5m` → `5 minute`; anything else passes through. */
export function granularityToInternal(value: string): string {
  const m = /^(\d+)(s|m|h|d)$/.exec(value);
  return m ? `${m[1]} ${LONG_UNITS[m[2] ?? ''] ?? ''}` : value;
}

/** `5 minute` → `5m`; anything else passes through. */
export function granularityToExternal(value: string): string {
  const m = /^(\d+) (second|minute|hour|day)$/.exec(value);
  return m ? `${m[1]}${SHORT_UNITS[m[2] ?? ''] ?? ''}` : value;
}

type Json = unknown;
const isRecord = (v: Json): v is Record<string, Json> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Applies `map` to every materialized-view granularity of a source body or row (a copy). */
export function mapGranularities<T>(body: T, map: (g: string) => string): T {
  if (!isRecord(body)) return body;
  const out: Record<string, Json> = { ...body };
  const views: Json = body.materializedViews;
  if (Array.isArray(views)) {
    out.materializedViews = (views as Json[]).map((v) =>
      isRecord(v) && typeof v.minGranularity === 'string' ? { ...v, minGranularity: map(v.minGranularity) } : v,
    );
  }
  const meta = body.metadataMaterializedViews;
  if (isRecord(meta) && typeof meta.granularity === 'string')
    out.metadataMaterializedViews = { ...meta, granularity: map(meta.granularity) };
  return out as T;
}
