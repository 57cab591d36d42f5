/**
 * The body of a source create or full-replace PUT (reference/selfhosted-api.md §3.5; the Cloud
 * API proxies the same routes, hosted-api.md §2.1/§2.4): a union on `kind`, `id` ignored,
 * unknown keys dropped, `from.tableName` required as a key (a metric source sends `""`).
 */
import * as z from 'zod';
import { objectId } from './tile-config-schema.js';

const text = z.string().min(1);
const optionalText = z.string().optional();
const GRANULARITY = /^\d+\s*(?:s|m|h|d|second|minute|hour|day)s?$/;

const highlighted = z.array(z.object({ sqlExpression: text, luceneExpression: optionalText, alias: optionalText })).optional();

const aggregatedColumn = z
  .object({ sourceColumn: optionalText, aggFn: text, mvColumn: text })
  .refine((c) => c.aggFn === 'count' || c.sourceColumn !== undefined, { error: 'sourceColumn is required unless aggFn is count', path: ['sourceColumn'] });

const materializedViews = z
  .array(
    z.object({
      databaseName: text,
      tableName: text,
      dimensionColumns: z.string(),
      minGranularity: z.string().regex(GRANULARITY),
      minDate: z.iso.datetime().nullable().optional(),
      timestampColumn: text,
      aggregatedColumns: z.array(aggregatedColumn).min(1),
    }),
  )
  .optional();

const metadataMaterializedViews = z.object({ keyRollupTable: z.string().nullable().optional(), kvRollupTable: text, granularity: z.string().regex(GRANULARITY) }).optional();

const common = {
  name: text,
  section: z.string().max(256).optional(),
  connection: z.string(),
  disabled: z.boolean().optional(),
  querySettings: z.array(z.object({ setting: text, value: text })).max(10).optional(),
  timestampValueExpression: text,
};

const from = z.object({ databaseName: text, tableName: text });

const logTraceOptional = {
  serviceNameExpression: optionalText,
  serviceVersionExpression: optionalText,
  resourceAttributesExpression: optionalText,
  eventAttributesExpression: optionalText,
  displayedTimestampValueExpression: optionalText,
  metricSourceId: optionalText,
  implicitColumnExpression: optionalText,
  knownColumnsListExpression: optionalText,
  orderByExpression: optionalText,
  useTextIndexForImplicitColumn: z.enum(['auto', 'enabled', 'disabled']).optional(),
  highlightedTraceAttributeExpressions: highlighted,
  highlightedRowAttributeExpressions: highlighted,
  materializedViews,
  metadataMaterializedViews,
};

const log = z.object({
  ...common,
  ...logTraceOptional,
  kind: z.literal('log'),
  from,
  defaultTableSelectExpression: text,
  severityTextExpression: optionalText,
  bodyExpression: optionalText,
  traceSourceId: optionalText,
  traceIdExpression: optionalText,
  spanIdExpression: optionalText,
  tableFilterExpression: optionalText,
});

const trace = z.object({
  ...common,
  ...logTraceOptional,
  kind: z.literal('trace'),
  from,
  defaultTableSelectExpression: text,
  durationExpression: text,
  durationPrecision: z.number().int().min(0).max(9).default(3),
  traceIdExpression: text,
  spanIdExpression: text,
  parentSpanIdExpression: text,
  spanNameExpression: text,
  spanKindExpression: text,
  sampleRateExpression: optionalText,
  logSourceId: z.string().nullable().optional(),
  sessionSourceId: optionalText,
  statusCodeExpression: optionalText,
  statusMessageExpression: optionalText,
  spanEventsValueExpression: optionalText,
  spanLinksValueExpression: optionalText,
});

const session = z.object({ ...common, kind: z.literal('session'), from, traceSourceId: text, resourceAttributesExpression: optionalText });

const metricTables = z
  .object({ gauge: optionalText, histogram: optionalText, sum: optionalText, summary: optionalText, 'exponential histogram': optionalText })
  .refine((t) => Object.values(t).some((v) => v !== undefined && v !== ''), { error: 'at least one metric table is required' });

const metric = z.object({
  ...common,
  kind: z.literal('metric'),
  from: z.object({ databaseName: text, tableName: z.string() }),
  metricTables,
  resourceAttributesExpression: text,
  serviceNameExpression: optionalText,
  logSourceId: optionalText,
  seriesTable: optionalText,
});

const promql = z.object({ ...common, kind: z.literal('promql'), from });

export const sourceBodySchema = z.discriminatedUnion('kind', [log, trace, session, metric, promql]);
export type SourceBody = z.output<typeof sourceBodySchema>;

/** Whether `connection` is shaped like an id at all (`connection must be a valid connection id` otherwise). */
export function isConnectionId(value: string): boolean {
  return objectId.safeParse(value).success;
}
