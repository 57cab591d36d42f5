/**
 * The demo seed (`seed: 'demo'`), with fixed ids so docs and tests can rely on them:
 * connection `Default`; sources `Logs`, `Traces`, `Metrics`; webhooks `ops-slack`,
 * `ops-webhook`; saved search `Errors` on `Logs`; the member `sandbox@localhost`.
 */
import type { JsonRecord } from './contract.js';
import { seedId } from './ids.js';
import { emptyState, type DomainState } from './store.js';

export const DEMO_IDS = {
  team: seedId(1),
  connection: seedId(2),
  logs: seedId(3),
  traces: seedId(4),
  metrics: seedId(5),
  opsSlack: seedId(6),
  opsWebhook: seedId(7),
  errors: seedId(8),
  user: seedId(9),
} as const;

/** Fixed creation time of the seeded rows (timestamps must not drift across restarts). */
const SEED_TIME = '2026-01-01T00:00:00.000Z';

function sources(): JsonRecord[] {
  const common = { connection: DEMO_IDS.connection, disabled: false, querySettings: [] };
  const logTrace = { highlightedTraceAttributeExpressions: [], highlightedRowAttributeExpressions: [], materializedViews: [] };
  return [
    {
      id: DEMO_IDS.logs,
      name: 'Logs',
      kind: 'log',
      ...common,
      ...logTrace,
      from: { databaseName: 'default', tableName: 'otel_logs' },
      timestampValueExpression: 'TimestampTime',
      defaultTableSelectExpression: 'Timestamp, ServiceName, SeverityText, Body',
      serviceNameExpression: 'ServiceName',
      severityTextExpression: 'SeverityText',
      bodyExpression: 'Body',
      traceIdExpression: 'TraceId',
      spanIdExpression: 'SpanId',
      traceSourceId: DEMO_IDS.traces,
      metricSourceId: DEMO_IDS.metrics,
    },
    {
      id: DEMO_IDS.traces,
      name: 'Traces',
      kind: 'trace',
      ...common,
      ...logTrace,
      from: { databaseName: 'default', tableName: 'otel_traces' },
      timestampValueExpression: 'Timestamp',
      defaultTableSelectExpression: 'Timestamp, ServiceName, SpanName, Duration',
      durationExpression: 'Duration',
      durationPrecision: 9,
      traceIdExpression: 'TraceId',
      spanIdExpression: 'SpanId',
      parentSpanIdExpression: 'ParentSpanId',
      spanNameExpression: 'SpanName',
      spanKindExpression: 'SpanKind',
      serviceNameExpression: 'ServiceName',
      logSourceId: DEMO_IDS.logs,
    },
    {
      id: DEMO_IDS.metrics,
      name: 'Metrics',
      kind: 'metric',
      ...common,
      from: { databaseName: 'default', tableName: '' },
      timestampValueExpression: 'TimeUnix',
      resourceAttributesExpression: 'ResourceAttributes',
      metricTables: {
        gauge: 'otel_metrics_gauge',
        histogram: 'otel_metrics_histogram',
        sum: 'otel_metrics_sum',
        summary: 'otel_metrics_summary',
        'exponential histogram': 'otel_metrics_exponential_histogram',
      },
      logSourceId: DEMO_IDS.logs,
    },
  ];
}

function webhooks(): JsonRecord[] {
  const times = { createdAt: SEED_TIME, updatedAt: SEED_TIME };
  return [
    { id: DEMO_IDS.opsSlack, name: 'ops-slack', service: 'slack', url: 'https://hooks.slack.com/services/T000/B000/XXXX', ...times },
    { id: DEMO_IDS.opsWebhook, name: 'ops-webhook', service: 'generic', url: 'https://example.com/hooks/obsync', ...times },
  ];
}

/** The member who owns a team's API key. */
export function teamUser(id: string, email: string, createdAt = SEED_TIME): JsonRecord {
  return { id, email, name: email.split('@')[0] ?? email, createdAt, updatedAt: createdAt };
}

const demoUser = () => teamUser(DEMO_IDS.user, 'sandbox@localhost');

export function demoState(): DomainState {
  const state = emptyState(DEMO_IDS.team, demoUser());
  state.connections = [
    {
      id: DEMO_IDS.connection,
      name: 'Default',
      host: 'http://localhost:8123',
      username: 'default',
      createdAt: SEED_TIME,
      updatedAt: SEED_TIME,
    },
  ];
  state.sources = sources();
  state.webhooks = webhooks();
  state.savedSearches = [
    {
      id: DEMO_IDS.errors,
      name: 'Errors',
      sourceId: DEMO_IDS.logs,
      select: '',
      where: 'level:error',
      whereLanguage: 'lucene',
      orderBy: '',
      tags: [],
      filters: [],
      createdAt: SEED_TIME,
      updatedAt: SEED_TIME,
    },
  ];
  return state;
}

/** `seed: 'none'`: an empty team (its id is still fixed). */
export function emptyDemoTeamState(): DomainState {
  return emptyState(DEMO_IDS.team, demoUser());
}
