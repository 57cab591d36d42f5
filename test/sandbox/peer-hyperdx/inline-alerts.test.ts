/**
 * Inline alerts (`source: "inline"` + `chartConfig`), newer than b52a6fa8. Ported from hyperdx
 * packages/api/src/routers/external-api/v2/utils/__tests__/alertChartConfig.test.ts @ 9af7b7d5
 * (the schema's configType routing and builder rules, the external ⇄ internal round trips, seen
 * here as POST → GET by id) and the inline branch of controllers/alerts.ts validateAlertInput
 * (its 400 messages). The v2 alerts router answers single alerts with the chart config and lists
 * without it (v2/utils/alertChartConfig.ts @ 1d0a5d50).
 */
import { describe, expect, it } from 'vitest';
import { fixtures, newObjectId, usePeer } from './support.js';

const peer = usePeer();
const SQL = 'SELECT $__timeInterval(Timestamp) AS ts, count() FROM t WHERE $__timeFilter(Timestamp) GROUP BY ts';

async function setup() {
  const f = fixtures(peer().agent);
  const connection = await f.connection();
  const source = await f.logSource(connection.id);
  const webhook = await f.webhook();
  return { f, connection, source, webhook };
}

type Setup = Awaited<ReturnType<typeof setup>>;
const alertBody = (s: Setup, chartConfig: unknown) => ({
  source: 'inline',
  chartConfig,
  threshold: 8,
  interval: '5m',
  thresholdType: 'above',
  channel: { type: 'webhook', webhookId: s.webhook.id },
});
const countItem = (where = '') => ({ aggFn: 'count', where, whereLanguage: 'lucene', valueExpression: '' });
const post = (body: unknown) => peer().authRequest('post', '/api/v2/alerts').send(body);

describe('externalAlertChartConfigSchema configType routing', () => {
  it('rejects a configType the router does not recognize', async () => {
    const s = await setup();
    const res = await post(
      alertBody(s, { displayType: 'line', sourceId: s.source.id, select: [countItem()], configType: 'promql' }),
    ).expect(400);
    expect(res.body.message).toContain('configType must be "sql" or omitted (builder configs carry no configType)');
  });

  it('applies the builder rules when configType is omitted', async () => {
    const s = await setup();
    const formula = await post(
      alertBody(s, { displayType: 'line', sourceId: s.source.id, select: [countItem()], formulas: [{ expression: 'B * 2' }] }),
    );
    expect(formula.status).toBe(400);
    expect(formula.body.message).toContain('Unknown series "B"');
    const number = await post(
      alertBody(s, { displayType: 'number', sourceId: s.source.id, select: [countItem(), countItem('level:error')] }),
    );
    expect(number.status).toBe(400);
    expect(number.body.message).toContain('Number charts support a single select item');
  });

  it('accepts the raw SQL dialect; other display types are refused', async () => {
    const s = await setup();
    await post(alertBody(s, { configType: 'sql', displayType: 'line', connectionId: s.connection.id, sqlTemplate: SQL })).expect(200);
    await post(alertBody(s, { displayType: 'table', sourceId: s.source.id, select: [countItem()] })).expect(400);
    await post(alertBody(s, { configType: 'sql', displayType: 'pie', connectionId: s.connection.id, sqlTemplate: SQL })).expect(400);
  });
});

describe('external <-> internal round-trip (POST, then GET by id)', () => {
  it('round-trips a builder line config, including alert-only and metric fields; the list leaves it out', async () => {
    const s = await setup();
    const external = {
      displayType: 'line',
      sourceId: s.source.id,
      name: 'Error Rate Query',
      where: 'ServiceName:api',
      whereLanguage: 'lucene',
      groupBy: 'ServiceName',
      asRatio: true,
      seriesLimit: 5,
      fillNulls: false,
      numberFormat: { output: 'number' },
      select: [
        {
          aggFn: 'avg',
          valueExpression: 'Value',
          where: 'level:error',
          whereLanguage: 'lucene',
          alias: 'CPU',
          metricType: 'gauge',
          metricName: 'system.cpu.utilization',
          periodAggFn: 'delta',
        },
        countItem(),
      ],
    };
    const created = (await post(alertBody(s, external)).expect(200)).body.data;
    expect(created.chartConfig).toEqual(external);
    expect(created).toMatchObject({ source: 'inline' });
    expect(created).not.toHaveProperty('savedSearchId');
    expect(created).not.toHaveProperty('dashboardId');
    const read = (await peer().authRequest('get', `/api/v2/alerts/${created.id}`).expect(200)).body.data;
    expect(read.chartConfig).toEqual(external);
    const list = (await peer().authRequest('get', '/api/v2/alerts').expect(200)).body.data;
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ id: created.id, source: 'inline' });
    expect(list[0]).not.toHaveProperty('chartConfig');
  });

  it('round-trips a raw SQL config; PUT replaces it and answers it', async () => {
    const s = await setup();
    const external = {
      configType: 'sql',
      displayType: 'line',
      connectionId: s.connection.id,
      sourceId: s.source.id,
      sqlTemplate: SQL,
      name: 'Raw SQL Alert Query',
      fillNulls: true,
    };
    const created = (await post(alertBody(s, external)).expect(200)).body.data;
    expect(created.chartConfig).toEqual(external);
    const next = { ...external, displayType: 'number', sqlTemplate: 'SELECT count() FROM t' };
    delete (next as Partial<typeof next>).fillNulls;
    const put = await peer().authRequest('put', `/api/v2/alerts/${created.id}`).send(alertBody(s, next)).expect(200);
    expect(put.body.data.chartConfig).toEqual(next);
  });

  it('emits the tile converter defaults and no empty chart-level where or name', async () => {
    const s = await setup();
    const sent = { displayType: 'stacked_bar', sourceId: s.source.id, where: '', name: '', select: [{ aggFn: 'count' }] };
    const created = (await post(alertBody(s, sent)).expect(200)).body.data;
    expect(created.chartConfig).toEqual({
      displayType: 'stacked_bar',
      sourceId: s.source.id,
      asRatio: false,
      fillNulls: true,
      select: [countItem()],
    });
  });
});

describe('controllers/alerts.ts validateAlertInput, source inline', () => {
  it('Chart config is required', async () => {
    const s = await setup();
    const res = await post(alertBody(s, undefined)).expect(400);
    expect(res.body).toEqual({ message: 'Chart config is required' });
  });

  it('Raw SQL: the interval macro, the connection, the source and its connection', async () => {
    const s = await setup();
    const sql = (over: Record<string, unknown>) =>
      alertBody(s, { configType: 'sql', displayType: 'line', connectionId: s.connection.id, sqlTemplate: SQL, ...over });
    const message = async (body: unknown) => (await post(body).expect(400)).body.message;
    expect(await message(sql({ sqlTemplate: 'SELECT count() FROM t' }))).toBe(
      'Raw SQL alert query is invalid: SQL used for alerts must include an interval parameter or macro.',
    );
    expect(await message(sql({ connectionId: newObjectId() }))).toBe('Connection not found');
    expect(await message(sql({ sourceId: newObjectId() }))).toBe('Source not found');
    const other = await s.f.connection({ name: 'Other' });
    expect(await message(sql({ connectionId: other.id, sourceId: s.source.id }))).toBe(
      'Source does not belong to the specified connection',
    );
    await post(sql({ connectionId: s.connection.id.toUpperCase(), sourceId: s.source.id })).expect(200);
  });

  it('builder: the source must exist, and formulas need a Metric, Log or Trace source', async () => {
    const s = await setup();
    const builder = (sourceId: string) =>
      alertBody(s, { displayType: 'line', sourceId, select: [countItem(), countItem('level:error')], formulas: [{ expression: 'A / B' }] });
    expect((await post(builder(newObjectId())).expect(400)).body.message).toBe('Source not found');
    const traces = await s.f.traceSource(s.connection.id);
    const sessions = await s.f.sessionSource(s.connection.id, traces.id);
    expect((await post(builder(sessions.id)).expect(400)).body.message).toBe('Alerts with formulas require a Metric, Log, or Trace source');
    await post(builder(s.source.id)).expect(200);
  });

  it('a chart config on a saved-search alert is not kept', async () => {
    const s = await setup();
    const search = await s.f.savedSearch(s.source.id);
    const body = {
      ...alertBody(s, { displayType: 'line', sourceId: s.source.id, select: [countItem()] }),
      source: 'saved_search',
      savedSearchId: search.id,
    };
    const created = (await post(body).expect(200)).body.data;
    expect(created).not.toHaveProperty('chartConfig');
    expect(peer().stored('alerts', created.id)).not.toHaveProperty('chartConfig');
  });
});
