/**
 * A realistic estate made as a team makes it in the UI: through the API (the real client, the
 * sandbox's HTTP server), never through the sandbox's internals. Dozens of dashboards with every
 * tile type, raw SQL, containers and tabs, filters, clashing names; alerts on tiles and on saved
 * searches; webhooks of every service with headers and bodies; saved searches; sources of every
 * kind; connections with passwords (self-hosted). `secrets` lists every secret value it used.
 */
import type { ServicePort } from '../../src/core/ports.js';
import { collectionOf } from '../../src/kinds/registry.js';
import type { JsonObject } from '../../src/core/wire.js';

export interface Estate {
  secrets: string[];
  /** Created objects by kind: id and display name. */
  created: Record<string, { id: string; name: string }[]>;
}

const sel = (aggFn: string, valueExpression = '', extra: JsonObject = {}): JsonObject => ({ aggFn, valueExpression, where: '', ...extra });

/** Tile configs of every display type; `source` / `connection` are ids. */
function tileConfigs(source: string, traces: string, connection: string): JsonObject[] {
  return [
    {
      displayType: 'line',
      sourceId: traces,
      select: [sel('quantile', 'Duration', { level: 0.99 })],
      groupBy: 'ServiceName',
      numberFormat: { output: 'duration', factor: 0.001 },
    },
    {
      displayType: 'stacked_bar',
      sourceId: source,
      select: [sel('count', '', { alias: 'events' }), sel('count', '', { where: 'level:error', whereLanguage: 'lucene' })],
      groupBy: 'SeverityText',
    },
    {
      displayType: 'table',
      sourceId: traces,
      select: [sel('avg', 'Duration'), sel('max', 'Duration')],
      groupBy: 'SpanName',
      orderBy: 'avg DESC',
      having: 'count() > 10',
    },
    {
      displayType: 'number',
      sourceId: traces,
      select: [sel('count')],
      colorRules: [{ operator: 'gt', value: 100, color: 'chart-red', label: 'busy' }],
      backgroundChart: { type: 'area' },
    },
    { displayType: 'pie', sourceId: source, select: [sel('count')], groupBy: 'ServiceName', limit: 5 },
    { displayType: 'bar', sourceId: source, select: [sel('sum', 'Bytes')], groupBy: 'ServiceName' },
    { displayType: 'search', sourceId: source, select: 'Timestamp, Body', where: 'level:error', whereLanguage: 'lucene' },
    { displayType: 'markdown', markdown: '## Runbook\nSee https://example.com/runbook' },
    { displayType: 'heatmap', sourceId: traces, select: [{ valueExpression: 'Duration', heatmapScaleType: 'log' }] },
    {
      configType: 'sql',
      displayType: 'line',
      connectionId: connection,
      sqlTemplate: 'SELECT toStartOfInterval(Timestamp, INTERVAL {intervalSeconds} second) AS ts, count() FROM otel_logs GROUP BY ts',
    },
    {
      configType: 'sql',
      displayType: 'table',
      connectionId: connection,
      sqlTemplate: 'SELECT ServiceName, count() FROM otel_logs GROUP BY ServiceName',
    },
    {
      displayType: 'line',
      sourceId: source,
      select: [sel('count'), sel('count', '', { where: 'level:error' })],
      formulas: [{ expression: 'B / A * 100', alias: 'error %' }],
      showOperandSeries: false,
    },
  ];
}

function dashboardBody(i: number, ids: { logs: string; traces: string; connection: string }): JsonObject {
  const configs = tileConfigs(ids.logs, ids.traces, ids.connection);
  const count = 3 + (i % configs.length);
  const tiles = Array.from({ length: count }, (_, t) => {
    const config = configs[(i + t) % configs.length] ?? {};
    // Two tiles of one name in some dashboards, an empty name in others: keys must still be unique.
    const name =
      t === 1 && i % 4 === 0
        ? `Panel ${i}-0`
        : t === 2 && i % 5 === 0
          ? ''
          : `Panel ${i}-${t} ${typeof config.displayType === 'string' ? config.displayType : ''}`;
    return { name, x: (t % 2) * 12, y: Math.floor(t / 2) * 4, w: 12, h: 4, config };
  });
  const body: JsonObject = {
    name: i % 7 === 3 ? 'Service overview' : `Team ${i} — Überblick ${i % 3 === 0 ? '(prod)' : ''}`.trim(),
    tiles,
    tags: i % 2 === 0 ? ['team', `t${i % 5}`] : [],
  };
  if (i % 3 === 0) body.filters = [{ type: 'QUERY_EXPRESSION', name: 'Service', expression: 'ServiceName', sourceId: ids.logs }];
  if (i % 4 === 1) body.savedQuery = 'level:error';
  if (i % 6 === 2) {
    body.containers = [
      {
        id: 'c1',
        title: 'Overview',
        collapsed: false,
        tabs: [
          { id: 'a', title: 'Latency' },
          { id: 'b', title: 'Errors' },
        ],
      },
    ];
    const tiles0 = tiles[0] as JsonObject;
    tiles0.containerId = 'c1';
    tiles0.tabId = 'b';
  }
  if (i % 5 === 4) body.savedFilterValues = [{ condition: "ServiceName = 'checkout'" }];
  return body;
}

export async function seedEstate(
  port: ServicePort,
  variant: 'hosted' | 'self-hosted',
  opts: { dashboards?: number; tag?: string } = {},
): Promise<Estate> {
  const tag = opts.tag ?? 'x';
  const secrets: string[] = [];
  const created: Estate['created'] = {};
  const remember = (kind: string, o: { id: string; name?: unknown }) =>
    (created[kind] ??= []).push({ id: o.id, name: typeof o.name === 'string' ? o.name : '' });
  const secret = (value: string) => {
    secrets.push(value);
    return value;
  };

  let connectionId = '5eed00000000000000000002'; // the hosted service's own connection
  if (variant === 'self-hosted') {
    const connections = collectionOf(port, 'Connection');
    const a = await connections.create({
      name: `Analytics ${tag}`,
      host: 'http://ch-analytics:8123',
      username: 'reader',
      password: secret(`ch-pass-${tag}-9f3e1a`),
    });
    remember('Connection', a);
    const b = await connections.create({
      name: `Prometheus ${tag}`,
      host: 'http://prom:9090',
      username: 'prom',
      password: secret(`prom-pass-${tag}-77c2`),
      isPrometheusEndpoint: true,
      hyperdxSettingPrefix: 'hdx',
    });
    remember('Connection', b);
    connectionId = a.id;
  }

  const sources = collectionOf(port, 'Source');
  const common = { connection: connectionId, timestampValueExpression: 'Timestamp' };
  const logs = await sources.create({
    ...common,
    kind: 'log',
    name: `App logs ${tag}`,
    from: { databaseName: 'app', tableName: 'logs' },
    defaultTableSelectExpression: 'Timestamp, Body',
    serviceNameExpression: 'ServiceName',
    bodyExpression: 'Body',
    querySettings: [{ setting: 'max_threads', value: '4' }],
  });
  const traces = await sources.create({
    ...common,
    kind: 'trace',
    name: `App traces ${tag}`,
    from: { databaseName: 'app', tableName: 'traces' },
    defaultTableSelectExpression: 'Timestamp, SpanName',
    durationExpression: 'Duration',
    durationPrecision: 6,
    traceIdExpression: 'TraceId',
    spanIdExpression: 'SpanId',
    parentSpanIdExpression: 'ParentSpanId',
    spanNameExpression: 'SpanName',
    spanKindExpression: 'SpanKind',
    logSourceId: logs.id,
  });
  const session = await sources.create({
    ...common,
    kind: 'session',
    name: `Sessions ${tag}`,
    from: { databaseName: 'app', tableName: 'sessions' },
    traceSourceId: traces.id,
  });
  const metrics = await sources.create({
    ...common,
    kind: 'metric',
    name: `App metrics ${tag}`,
    from: { databaseName: 'app', tableName: '' },
    resourceAttributesExpression: 'ResourceAttributes',
    metricTables: { gauge: 'gauge', sum: 'sum' },
  });
  for (const s of [logs, traces, session, metrics]) remember('Source', s);
  if (variant === 'self-hosted') {
    const prom = await sources.create({
      ...common,
      connection: created.Connection?.[1]?.id ?? connectionId,
      kind: 'promql',
      name: `Prometheus ${tag}`,
      from: { databaseName: 'prom', tableName: 'x' },
    });
    remember('Source', prom);
  }

  const webhooks = collectionOf(port, 'Webhook');
  const slack = await webhooks.create({
    service: 'slack',
    name: `Ops ${tag}`,
    url: secret(`https://hooks.slack.com/services/T${tag}/B1/slack-secret-${tag}`),
  });
  const generic = await webhooks.create({
    service: 'generic',
    name: `Pager ${tag}`,
    url: secret(`https://pager.example.com/hook?token=generic-secret-${tag}`),
    description: 'On call',
    body: secret(`{"text":"{{title}} ${tag}-body-secret"}`),
    headers: { Authorization: secret(`Bearer header-secret-${tag}`) },
    queryParams: { key: secret(`query-secret-${tag}`) },
  });
  const incident = await webhooks.create({
    service: 'incidentio',
    name: `Incidents ${tag}`,
    url: secret(`https://api.incident.io/v2/alert_events/http/inc-secret-${tag}`),
    body: secret(`{"title":"{{title}} inc-body-${tag}"}`),
  });
  for (const w of [slack, generic, incident]) remember('Webhook', w);

  const searches = collectionOf(port, 'SavedSearch');
  const errors = await searches.create({
    name: `Errors ${tag}`,
    sourceId: logs.id,
    where: 'level:error',
    whereLanguage: 'lucene',
    select: '',
    orderBy: '',
    tags: ['oncall'],
    filters: [{ type: 'sql', condition: "ServiceName IN ('api')" }],
  });
  const slow = await searches.create({
    name: `Slow spans ${tag}`,
    sourceId: traces.id,
    where: 'Duration > 1000000',
    whereLanguage: 'sql',
    select: 'SpanName, Duration',
    orderBy: 'Duration DESC',
    tags: [],
    filters: [],
  });
  for (const s of [errors, slow]) remember('SavedSearch', s);

  const dashboards = collectionOf(port, 'Dashboard');
  const alerts = collectionOf(port, 'Alert');
  const ids = { logs: logs.id, traces: traces.id, connection: connectionId };
  for (let i = 0; i < (opts.dashboards ?? 24); i += 1) {
    const d = await dashboards.create(dashboardBody(i, ids));
    remember('Dashboard', d);
    const alertable = d.tiles.filter(
      (t) => ['line', 'stacked_bar', 'number'].includes(t.config.displayType as string) && t.config.configType !== 'sql',
    );
    const tile = alertable[0];
    if (tile && i % 2 === 0) {
      const channel: JsonObject =
        i % 4 === 0
          ? {
              channels: [
                { type: 'webhook', webhookId: slack.id },
                { type: 'webhook', webhookId: generic.id },
              ],
            }
          : { channel: { type: 'webhook', webhookId: incident.id } };
      const a = await alerts.create({
        source: 'tile',
        dashboardId: d.id,
        tileId: tile.id,
        name: `${d.name} alert`,
        interval: i % 3 === 0 ? '5m' : '15m',
        threshold: 10 + i,
        thresholdType: i % 6 === 0 ? 'between' : 'above',
        ...(i % 6 === 0 ? { thresholdMax: 100 + i } : {}),
        ...channel,
        message: 'Value {{value}}',
        ...(i % 8 === 2 ? { scheduleOffsetMinutes: 2 } : {}),
      });
      remember('Alert', a);
    }
  }
  const searchAlert = await alerts.create({
    source: 'saved_search',
    savedSearchId: errors.id,
    name: `Errors spike ${tag}`,
    interval: '5m',
    threshold: 5,
    thresholdType: 'above',
    channel: { type: 'webhook', webhookId: generic.id },
    groupBy: 'ServiceName',
    note: 'Check the **runbook**',
  });
  const unnamed = await alerts.create({
    source: 'saved_search',
    savedSearchId: slow.id,
    interval: '1h',
    threshold: 1,
    thresholdType: 'above',
    channel: { type: 'webhook', webhookId: slack.id },
  });
  for (const a of [searchAlert, unnamed]) remember('Alert', a);
  return { secrets, created };
}
