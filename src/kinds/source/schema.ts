/**
 * The Source manifest spec (selfhosted-api §3.5; hosted-api §2.4): where the service reads a kind
 * of telemetry (log, trace, session, metric, promql, netflow) and the expressions that map its columns.
 * By `kind`, as the API; the connection and the sources it is linked to (`traceSource`,
 * `logSource`, `metricSource`, `sessionSource`, the API's `…SourceId`) are references by name
 * (a manifest's metadata.name or a name on the service) or `{id}`.
 */
import * as z from 'zod';
import { AGG_FNS, METRIC_TYPES } from '../dashboard/select.js';
import { refTo } from '../ref-schema.js';

/** `5m` or `5 minute`: the service stores the long form and answers the short one. */
const granularity = z
  .string()
  .regex(/^\d+(s|m|h|d| (second|minute|hour|day))$/, { error: 'a granularity is like 15s, 5m, 1h, 1d (or "5 minute")' })
  .describe('A time granularity: 15s, 5m, 1h, 1d (or "5 minute").');

const expr = (what: string) => z.string().optional().describe(what);
const required = (what: string) => z.string().min(1).describe(what);
const sourceRef = (what: string) =>
  refTo('source')
    .optional()
    .describe(`${what}: a source by name (a Source manifest's metadata.name, or a name on the service), or {id: "..."}.`);

const highlighted = z
  .array(
    z
      .strictObject({
        sqlExpression: z.string().min(1).describe('SQL expression of the attribute.'),
        luceneExpression: z.string().optional().describe('The same attribute as a Lucene field, for search links.'),
        alias: z.string().optional().describe('Label shown for it.'),
      })
      .describe('An attribute shown prominently.'),
  )
  .optional();

const aggregatedColumn = z
  .strictObject({
    sourceColumn: z.string().optional().describe('Column of the source table aggregated (not needed for count).'),
    aggFn: z.enum([...AGG_FNS, 'histogram']).describe('Aggregation the view stores: one of the aggregation functions, or histogram.'),
    mvColumn: z.string().min(1).describe('Column of the view holding the aggregate.'),
  })
  .refine((c) => c.aggFn === 'count' || (c.sourceColumn ?? '') !== '', {
    error: 'sourceColumn is required unless aggFn is count',
    path: ['sourceColumn'],
  })
  .describe('An aggregated column of the view.');

const materializedView = z
  .strictObject({
    databaseName: z.string().min(1).describe('Database of the view.'),
    tableName: z.string().min(1).describe('Table of the view.'),
    dimensionColumns: z.string().describe('Columns the view groups by, comma-separated.'),
    minGranularity: granularity.describe('Smallest time bucket of the view, e.g. 1m.'),
    minDate: z.iso.datetime().optional().describe('Earliest time the view holds (ISO-8601).'),
    timestampColumn: z.string().min(1).describe('Time column of the view.'),
    aggregatedColumns: z.array(aggregatedColumn).min(1).describe('The aggregates it holds (at least one).'),
  })
  .meta({ id: 'SourceMaterializedView', description: 'A materialized view the service may read instead of the table.' });

const metadataViews = z
  .strictObject({
    keyRollupTable: z.string().optional().describe('Table of attribute keys.'),
    kvRollupTable: z.string().min(1).describe('Table of attribute keys and values.'),
    granularity: granularity.describe('Time bucket of the rollups, e.g. 1h.'),
  })
  .meta({ id: 'SourceMetadataViews', description: 'Rollup tables of attribute keys and values, for faster filters.' });

const from = z
  .strictObject({ databaseName: z.string().min(1).describe('Database.'), tableName: z.string().min(1).describe('Table.') })
  .describe('The table the source reads.');

const common = {
  name: z
    .string()
    .min(1)
    .describe('Name of the source on the service. Tiles, filters and saved searches name it; how an existing source is adopted.'),
  connection: refTo('connection').describe(
    "Connection the source reads through: a Connection manifest's metadata.name, a connection's name on the service " +
      '(self-hosted), or {id: "..."} (hosted: the connection id).',
  ),
  from,
  section: z.string().max(256).optional().describe('Section of the source list it is shown under.'),
  disabled: z.boolean().optional().describe('Whether the source is hidden. Default: false.'),
  querySettings: z
    .array(
      z
        .strictObject({ setting: z.string().min(1).describe('ClickHouse setting.'), value: z.string().min(1).describe('Its value.') })
        .describe('A ClickHouse setting.'),
    )
    .max(10)
    .optional()
    .describe('ClickHouse settings sent with its queries (at most 10).'),
  timestampValueExpression: required('Expression of the event time, e.g. TimestampTime.'),
};

const events = {
  defaultTableSelectExpression: required('Columns shown by default in searches, comma-separated.'),
  serviceNameExpression: expr('Expression of the service name.'),
  serviceVersionExpression: expr('Expression of the service version.'),
  eventAttributesExpression: expr('Expression of the event attributes map.'),
  resourceAttributesExpression: expr('Expression of the resource attributes map.'),
  displayedTimestampValueExpression: expr('Expression of the time shown (when more precise than the timestamp).'),
  metricSource: sourceRef('The metric source correlated with it'),
  implicitColumnExpression: expr('Column searched by free text.'),
  knownColumnsListExpression: expr('Expression listing known columns.'),
  highlightedTraceAttributeExpressions: highlighted.describe('Attributes shown prominently on traces.'),
  highlightedRowAttributeExpressions: highlighted.describe('Attributes shown prominently on rows.'),
  materializedViews: z.array(materializedView).optional().describe('Materialized views the service may read instead.'),
  metadataMaterializedViews: metadataViews.optional(),
  orderByExpression: expr('Default sort order, e.g. "Timestamp DESC".'),
  useTextIndexForImplicitColumn: z
    .enum(['auto', 'enabled', 'disabled'])
    .optional()
    .describe('Whether free text uses a text index: auto, enabled or disabled.'),
};

const log = z
  .strictObject({
    kind: z.literal('log').describe('log: log events.'),
    ...common,
    ...events,
    severityTextExpression: expr('Expression of the severity text.'),
    bodyExpression: expr('Expression of the log body.'),
    traceSource: sourceRef('The trace source correlated with it'),
    traceIdExpression: expr('Expression of the trace id.'),
    spanIdExpression: expr('Expression of the span id.'),
    tableFilterExpression: expr('Condition applied to every query (deprecated by the service).'),
  })
  .meta({ id: 'LogSource', description: 'A log source.' });

const trace = z
  .strictObject({
    kind: z.literal('trace').describe('trace: spans.'),
    ...common,
    ...events,
    durationExpression: required('Expression of the span duration.'),
    durationPrecision: z
      .number()
      .int()
      .min(0)
      .max(9)
      .optional()
      .describe('Decimal digits of a second the duration is in: 3 = ms (the default), 6 = µs, 9 = ns.'),
    traceIdExpression: required('Expression of the trace id.'),
    spanIdExpression: required('Expression of the span id.'),
    parentSpanIdExpression: required('Expression of the parent span id.'),
    spanNameExpression: required('Expression of the span name.'),
    spanKindExpression: required('Expression of the span kind.'),
    sampleRateExpression: expr('Expression of the sample rate.'),
    logSource: sourceRef('The log source correlated with it'),
    sessionSource: sourceRef('The session source correlated with it'),
    statusCodeExpression: expr('Expression of the status code.'),
    statusMessageExpression: expr('Expression of the status message.'),
    spanEventsValueExpression: expr('Expression of the span events.'),
    spanLinksValueExpression: expr('Expression of the span links.'),
  })
  .meta({ id: 'TraceSource', description: 'A trace (span) source.' });

const session = z
  .strictObject({
    kind: z.literal('session').describe('session: browser sessions.'),
    ...common,
    traceSource: refTo('source').describe('The trace source of the sessions (required): a source by name, or {id: "..."}.'),
    resourceAttributesExpression: expr('Expression of the resource attributes map.'),
  })
  .meta({ id: 'SessionSource', description: 'A session (replay) source.' });

const metric = z
  .strictObject({
    kind: z.literal('metric').describe('metric: metrics.'),
    ...common,
    from: z
      .strictObject({
        databaseName: z.string().min(1).describe('Database.'),
        tableName: z.string().describe('Table (may be empty: the tables are in metricTables).'),
      })
      .describe('The database the metric tables are in.'),
    metricTables: z
      .strictObject(
        Object.fromEntries(METRIC_TYPES.map((t) => [t, z.string().optional().describe(`Table of the ${t} metrics.`)])) as Record<
          (typeof METRIC_TYPES)[number],
          z.ZodOptional<z.ZodString>
        >,
      )
      .refine((tables) => Object.values(tables).some((t) => t !== undefined && t !== ''), {
        error: 'at least one metric table must be given',
      })
      .describe('Tables by metric type (gauge, histogram, sum, summary, exponential histogram); at least one.'),
    resourceAttributesExpression: required('Expression of the resource attributes map.'),
    serviceNameExpression: expr('Expression of the service name.'),
    logSource: sourceRef('The log source correlated with it'),
    seriesTable: expr('Table of the metric series.'),
  })
  .meta({ id: 'MetricSource', description: 'A metric source.' });

const promql = z
  .strictObject({ kind: z.literal('promql').describe('promql: a Prometheus-compatible endpoint (its connection is one).'), ...common })
  .meta({ id: 'PromqlSource', description: 'A PromQL source.' });

/** NetFlow (hyperdx newer than b52a6fa8: common-utils netflowSource.test.ts and the netflow-sources router test @ ba5fa67d). */
const netflow = z
  .strictObject({
    kind: z.literal('netflow').describe('netflow: network flow records (NetFlow, IPFIX, sFlow).'),
    ...common,
    defaultTableSelectExpression: required('Columns shown by default in searches, comma-separated.'),
    bytesExpression: required('Expression of the bytes of a flow.'),
    packetsExpression: required('Expression of the packets of a flow.'),
    srcAddrExpression: required('Expression of the source address.'),
    dstAddrExpression: required('Expression of the destination address.'),
    srcPortExpression: required('Expression of the source port.'),
    dstPortExpression: required('Expression of the destination port.'),
    protocolExpression: required('Expression of the IP protocol number.'),
    samplingRateExpression: expr('Expression of the sampling rate (leave out for unsampled flows).'),
    exporterExpression: expr('Expression of the exporter (the router that sent the flow).'),
    inIfExpression: expr('Expression of the input interface.'),
    outIfExpression: expr('Expression of the output interface.'),
    implicitColumnExpression: expr('Column searched by free text (default: the mapped addresses, ports, protocol and interfaces).'),
  })
  .meta({ id: 'NetflowSource', description: 'A network flow source.' });

export const sourceSpecSchema = z.discriminatedUnion('kind', [log, trace, session, metric, promql, netflow]).meta({
  id: 'SourceSpec',
  description:
    'A source: where the service reads one kind of telemetry, and how its columns map. By kind: log, trace, session, metric, promql ' +
    'or netflow.',
});

export type SourceSpec = z.output<typeof sourceSpecSchema>;

/** The fields each kind of source has, in manifest terms. */
export const SOURCE_FIELDS: Readonly<Record<SourceSpec['kind'], readonly string[]>> = {
  log: Object.keys(log.shape),
  trace: Object.keys(trace.shape),
  session: Object.keys(session.shape),
  metric: Object.keys(metric.shape),
  promql: Object.keys(promql.shape),
  netflow: Object.keys(netflow.shape),
};
