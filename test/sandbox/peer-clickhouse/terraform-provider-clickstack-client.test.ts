/**
 * Ported from ClickHouse/terraform-provider-clickhouse @ c320db99ba37b84eca0181a074b2501f946d4d04,
 * internal/service/clickstack/client: the Cloud tests of client_cloud_test.go against the
 * sandbox instead of their mock, and the server behaviours the client code documents for
 * alerts (alert.go), webhooks (webhook.go), saved searches (saved_search.go), sources
 * (source.go) and dashboards (dashboard.go), as the provider's own tests drive them.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { DEMO_IDS } from '../../../src/sandbox/domain/index.js';
import { cloud, envelope, errorEnvelope, sandbox, type Cloud } from './support.js';

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => z.record(z.string(), z.unknown()).parse(v);
const list = (v: unknown): Json[] => z.array(z.record(z.string(), z.unknown())).parse(v);
const HTML_404 = /<pre>Cannot (GET|POST|PUT|DELETE) \/v1\/organizations\/.+<\/pre>/;

/** The provider's Alert struct as it marshals it: source saved_search, one channel, scheduleStartAt always sent. */
function providerAlert(extra: Json = {}): Json {
  return {
    source: 'saved_search',
    savedSearchId: DEMO_IDS.errors,
    interval: '5m',
    threshold: 10,
    thresholdType: 'above',
    channel: { type: 'webhook', webhookId: DEMO_IDS.opsWebhook },
    scheduleStartAt: null,
    ...extra,
  };
}

function alerts(api: Cloud): { create: (b: Json) => Promise<Json>; put: (id: unknown, b: Json) => Promise<Json>; base: string } {
  const base = `${api.service}/clickstack/alerts`;
  return {
    base,
    create: async (b) => obj(await api.result('POST', base, b)),
    put: async (id, b) => obj(await api.result('PUT', `${base}/${String(id)}`, b)),
  };
}

describe('terraform-provider clickstack/client/client_cloud_test.go', () => {
  it('TestCloudRequestShape: GET …/clickstack/sources with Basic auth answers the list in result', async () => {
    const api = cloud(await sandbox());
    const sources = list(await api.result('GET', `${api.service}/clickstack/sources`));
    expect(sources.map((s) => [s.name, s.kind])).toContainEqual(['Metrics', 'metric']);
  });

  it('TestCloudAlertLifecycle: create, get, update, delete on the org/service-scoped paths', async () => {
    const api = cloud(await sandbox());
    const a = alerts(api);
    const created = await a.create(providerAlert());
    expect(created).toMatchObject({
      source: 'saved_search',
      savedSearchId: DEMO_IDS.errors,
      interval: '5m',
      threshold: 10,
      thresholdType: 'above',
    });
    expect(obj(await api.result('GET', `${a.base}/${String(created.id)}`)).savedSearchId).toBe(DEMO_IDS.errors);
    await a.put(created.id, providerAlert());
    const deleted = await api.call('DELETE', `${a.base}/${String(created.id)}`);
    expect(envelope.parse(deleted.body)).not.toHaveProperty('result');
  });

  it('TestCloudDashboardUpdateDelete: PUT answers the dashboard; DELETE answers {status, requestId} without result', async () => {
    const api = cloud(await sandbox());
    const base = `${api.service}/clickstack/dashboards`;
    const d = obj(await api.result('POST', base, { name: 'd', tiles: [] }));
    expect(obj(await api.result('PUT', `${base}/${String(d.id)}`, { name: 'renamed', tiles: [] }))).toMatchObject({
      id: d.id,
      name: 'renamed',
    });
    const res = await api.call('DELETE', `${base}/${String(d.id)}`);
    expect(res.status).toBe(200);
    expect(Object.keys(obj(res.body)).sort()).toEqual(['requestId', 'status']);
  });

  it('TestCloudWebhookListQuery: the webhook list takes limit/offset through the Cloud path and pages with them', async () => {
    const api = cloud(await sandbox());
    const base = `${api.service}/clickstack/webhooks`;
    const all = list(await api.result('GET', `${base}?limit=200&offset=0`));
    expect(all.length).toBe(2);
    const second = list(await api.result('GET', `${base}?limit=1&offset=1`));
    expect(second.map((w) => w.id)).toEqual([all[1]?.id]);
  });

  it('TestCloudRouteNotFound404/json 404 is ErrNotFound: a missing dashboard is a JSON NOT_FOUND envelope', async () => {
    const api = cloud(await sandbox());
    const res = await api.call('GET', `${api.service}/clickstack/dashboards/0123456789abcdef01234567`);
    expect(res.status).toBe(404);
    expect(errorEnvelope.parse(res.body)).toMatchObject({ status: 404, error: expect.stringMatching(/^NOT_FOUND: /) as unknown });
  });

  it('TestCloudRouteNotFound404/html 404 is not ErrNotFound: an unserved route is an HTML "Cannot GET" page', async () => {
    const api = cloud(await sandbox());
    const res = await api.call('GET', `${api.service}/clickstack/no-such-resource/d1`);
    expect(res.status).toBe(404);
    expect(res.body).toBeUndefined();
    expect(res.contentType).toMatch(/^text\/html/);
    expect(res.text).toMatch(HTML_404);
  });

  it(
    'TestCloudUnroutedPathSurfacesServerError: connections are not served on Cloud (gone from the 2026-07-31 spec); webhooks have no ' +
      'GET by id',
    async () => {
      const api = cloud(await sandbox());
      const conn = await api.call('POST', `${api.service}/clickstack/connections`, { name: 'n', host: 'http://h:8123', username: 'u' });
      expect(conn.status).toBe(404);
      expect(conn.text).toMatch(HTML_404);
      const hook = await api.call('GET', `${api.service}/clickstack/webhooks/${DEMO_IDS.opsSlack}`);
      expect(hook.status).toBe(404);
      expect(hook.text).toMatch(HTML_404);
    },
  );

  it('TestCloudErrorBody: a 400 carries the message under "error"', async () => {
    const api = cloud(await sandbox());
    const res = await api.call('POST', `${api.service}/clickstack/dashboards`, { name: 'd', tiles: [{ name: 't' }] });
    expect(res.status).toBe(400);
    expect(errorEnvelope.parse(res.body).error).toMatch(/^BAD_REQUEST: .+/);
    expect(obj(res.body)).not.toHaveProperty('message');
  });

  it('TestCloudValidateEnvelope: a valid dashboard is {valid: true, errors: []} inside result', async () => {
    const api = cloud(await sandbox());
    const res = await api.call('POST', `${api.service}/clickstack/dashboards/validate`, { name: 'd', tiles: [] });
    const verdict = obj(envelope.parse(res.body).result);
    expect(verdict).toMatchObject({ valid: true, errors: [] });
  });

  it('TestCloudValidateEnvelopeErrors: the per-error details survive the envelope', async () => {
    const api = cloud(await sandbox());
    const tile = {
      name: 't',
      x: 0,
      y: 0,
      w: 6,
      h: 4,
      config: { displayType: 'line', sourceId: '0123456789abcdef01234567', select: [{ aggFn: 'count' }] },
    };
    const verdict = obj(await api.result('POST', `${api.service}/clickstack/dashboards/validate`, { name: 'd', tiles: [tile] }));
    expect(verdict.valid).toBe(false);
    const errors = z
      .array(z.object({ path: z.string(), message: z.string() }))
      .min(1)
      .parse(verdict.errors);
    expect(errors[0]?.message).not.toBe('');
  });

  it('TestCloudGetSourceListsAndFilters: the list holds each source by id (and GET by id is served since July 2026)', async () => {
    const api = cloud(await sandbox());
    const sources = list(await api.result('GET', `${api.service}/clickstack/sources`));
    expect(sources.find((s) => s.id === DEMO_IDS.traces)?.kind).toBe('trace');
    expect(obj(await api.result('GET', `${api.service}/clickstack/sources/${DEMO_IDS.traces}`)).kind).toBe('trace');
    expect((await api.call('GET', `${api.service}/clickstack/sources/0123456789abcdef01234567`)).status).toBe(404);
  });
});

describe('terraform-provider clickstack/client/alert.go (Alert: the PUT is a partial $set)', () => {
  it('name, message, note, numConsecutiveWindows omitted → null', async () => {
    const api = cloud(await sandbox());
    const a = alerts(api);
    const created = await a.create(providerAlert({ name: 'n', message: 'm', note: 'x', numConsecutiveWindows: 2 }));
    const updated = await a.put(created.id, providerAlert());
    expect(updated).toMatchObject({ name: null, message: null, note: null, numConsecutiveWindows: null });
  });

  it(
    'groupBy: kept when omitted, an explicit null is rejected ' +
      '(TestCreateAlert_RangeSendsThresholdMax sends it; TestCreateAlert omits it)',
    async () => {
      const api = cloud(await sandbox());
      const a = alerts(api);
      const created = await a.create(providerAlert({ groupBy: 'service' }));
      expect(created.groupBy).toBe('service');
      expect((await a.put(created.id, providerAlert())).groupBy).toBe('service');
      const nulled = await api.call('PUT', `${a.base}/${String(created.id)}`, providerAlert({ groupBy: null }));
      expect(nulled.status).toBe(400);
      expect(errorEnvelope.parse(nulled.body).error).toContain('groupBy');
      expect((await api.call('POST', a.base, providerAlert({ groupBy: null }))).status).toBe(400);
      expect((await a.put(created.id, providerAlert({ groupBy: 'host' }))).groupBy).toBe('host');
      expect(obj(await api.result('GET', `${a.base}/${String(created.id)}`)).groupBy).toBe('host');
    },
  );

  it('thresholdMax: kept when omitted, null rejected; only sent for range types', async () => {
    const api = cloud(await sandbox());
    const a = alerts(api);
    const created = await a.create(providerAlert({ thresholdType: 'between', thresholdMax: 200, threshold: 100, interval: '1h' }));
    // A range type needs it in every body; switched to a non-range type the provider stops sending it and it stays.
    expect(
      (await api.call('PUT', `${a.base}/${String(created.id)}`, providerAlert({ thresholdType: 'between', threshold: 100 }))).status,
    ).toBe(400);
    const kept = await a.put(created.id, providerAlert({ thresholdType: 'above', threshold: 100, interval: '1h' }));
    expect(kept.thresholdMax).toBe(200);
    expect(
      (
        await api.call(
          'PUT',
          `${a.base}/${String(created.id)}`,
          providerAlert({ thresholdType: 'between', threshold: 100, thresholdMax: null }),
        )
      ).status,
    ).toBe(400);
  });

  // The provider's comment ("null clears it, and the server then forces scheduleOffsetMinutes to
  // 0 ... omitting scheduleOffsetMinutes clears it") describes an omitted offset; an offset sent
  // beside a null start is kept, as the real server's own tests assert (hyperdx b52a6fa8,
  // alerts.int.test.ts) and as the provider's offset scheduling (start null, offset > 0) needs.
  it('scheduleStartAt: always sent; null clears it and an omitted scheduleOffsetMinutes becomes 0', async () => {
    const api = cloud(await sandbox());
    const a = alerts(api);
    const start = new Date(Date.now() + 3_600_000).toISOString();
    const created = await a.create(providerAlert({ scheduleStartAt: start }));
    expect(created.scheduleStartAt).toBe(start);
    const cleared = await a.put(created.id, providerAlert());
    expect(cleared).toMatchObject({ scheduleStartAt: null, scheduleOffsetMinutes: 0 });
    const offset = await a.put(created.id, providerAlert({ scheduleOffsetMinutes: 3 }));
    expect(offset).toMatchObject({ scheduleStartAt: null, scheduleOffsetMinutes: 3 });
  });

  it('server-managed state survives updates (TestUpdateAlert never sends it)', async () => {
    const api = cloud(await sandbox());
    const a = alerts(api);
    const created = await a.create(providerAlert());
    expect((await a.put(created.id, providerAlert({ threshold: 50 }))).state).toBe(created.state);
  });
});

describe('terraform-provider clickstack/client/webhook.go', () => {
  it('TestCreateWebhook: headers are sent on create and never answered', async () => {
    const api = cloud(await sandbox());
    const created = obj(
      await api.result('POST', `${api.service}/clickstack/webhooks`, {
        service: 'generic',
        name: 'pd',
        url: 'https://example.com/hook',
        headers: { Authorization: 'Bearer sekret' },
      }),
    );
    expect(created).not.toHaveProperty('headers');
    expect(JSON.stringify(await api.result('GET', `${api.service}/clickstack/webhooks`))).not.toContain('sekret');
  });

  it('UpdateWebhook: description/body cleared when omitted; headers kept when omitted unless url or service changes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'obsync-peer-'));
    try {
      const api = cloud(await sandbox({ dataDir: dir }));
      const base = `${api.service}/clickstack/webhooks`;
      // Headers are write-only: what the server kept is visible only in its stored state.
      const storedHeaders = (id: unknown) => {
        const snap = JSON.parse(readFileSync(join(dir, 'observability-hosted.json'), 'utf8')) as { state: { webhooks: Json[] } };
        return snap.state.webhooks.find((w) => w.id === id)?.headers;
      };
      const created = obj(
        await api.result('POST', base, {
          service: 'generic',
          name: 'w',
          url: 'https://example.com/a',
          description: 'd',
          body: 'b',
          headers: { 'X-Token': 't' },
        }),
      );
      const updated = obj(
        await api.result('PUT', `${base}/${String(created.id)}`, { service: 'generic', name: 'w', url: 'https://example.com/a' }),
      );
      expect(updated).not.toHaveProperty('description');
      expect(updated).not.toHaveProperty('body');
      expect(storedHeaders(created.id)).toEqual({ 'X-Token': 't' });
      await api.result('PUT', `${base}/${String(created.id)}`, { service: 'generic', name: 'w', url: 'https://example.com/b' });
      expect(storedHeaders(created.id)).toBeUndefined();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('TestDeleteWebhook_ReferencedByAlert: 409 while an alert still references the webhook, with the API message', async () => {
    const api = cloud(await sandbox());
    const a = alerts(api);
    await a.create(providerAlert());
    const res = await api.call('DELETE', `${api.service}/clickstack/webhooks/${DEMO_IDS.opsWebhook}`);
    expect(res.status).toBe(409);
    expect(errorEnvelope.parse(res.body).error).toContain('alert(s) still reference it');
  });

  it('TestDeleteWebhook_NotFound: a JSON 404 for a missing webhook', async () => {
    const api = cloud(await sandbox());
    const res = await api.call('DELETE', `${api.service}/clickstack/webhooks/0123456789abcdef01234567`);
    expect(res.status).toBe(404);
    expect(errorEnvelope.parse(res.body).status).toBe(404);
  });
});

describe('terraform-provider clickstack/client/saved_search.go', () => {
  it('UpdateSavedSearch is a full replace; DeleteSavedSearch also deletes its alerts', async () => {
    const api = cloud(await sandbox());
    const base = `${api.service}/clickstack/saved-searches`;
    const created = obj(
      await api.result('POST', base, {
        name: 's',
        sourceId: DEMO_IDS.logs,
        select: 'Body',
        where: 'level:error',
        whereLanguage: 'lucene',
        orderBy: '',
        tags: ['a'],
        filters: [],
      }),
    );
    const replaced = obj(
      await api.result('PUT', `${base}/${String(created.id)}`, {
        name: 's2',
        sourceId: DEMO_IDS.logs,
        select: '',
        where: '',
        whereLanguage: 'sql',
        orderBy: '',
        tags: [],
        filters: [],
      }),
    );
    expect(replaced).toMatchObject({ name: 's2', where: '', whereLanguage: 'sql', tags: [] });
    const a = alerts(api);
    const alert = await a.create(providerAlert({ savedSearchId: created.id }));
    expect((await api.call('DELETE', `${base}/${String(created.id)}`)).status).toBe(200);
    expect((await api.call('GET', `${a.base}/${String(alert.id)}`)).status).toBe(404);
  });

  it('TestGetSavedSearch_NotFound', async () => {
    const api = cloud(await sandbox());
    expect((await api.call('GET', `${api.service}/clickstack/saved-searches/0123456789abcdef01234567`)).status).toBe(404);
  });
});

describe('terraform-provider clickstack/client/source.go', () => {
  const metric = {
    name: 'M',
    kind: 'metric',
    connection: DEMO_IDS.connection,
    from: { databaseName: 'default', tableName: '' },
    timestampValueExpression: 'TimeUnix',
    resourceAttributesExpression: 'ResourceAttributes',
    metricTables: { gauge: 'g', 'exponential histogram': 'eh' },
  };

  it(
    'TestSourceFromTableNameAlwaysSent / TestMetricTablesJSONKey: a metric source with tableName "" and the "exponential histogram" key ' +
      'round-trips',
    async () => {
      const api = cloud(await sandbox());
      const created = obj(await api.result('POST', `${api.service}/clickstack/sources`, metric));
      expect(created).toMatchObject({
        from: { databaseName: 'default', tableName: '' },
        metricTables: { gauge: 'g', 'exponential histogram': 'eh' },
      });
      const { from: _from, ...withoutFrom } = metric;
      expect((await api.call('POST', `${api.service}/clickstack/sources`, withoutFrom)).status).toBe(400);
    },
  );

  it('CreateSource ignores an id in the body; UpdateSource is a full replace; DeleteSource then 404s', async () => {
    const api = cloud(await sandbox());
    const base = `${api.service}/clickstack/sources`;
    const created = obj(
      await api.result('POST', base, { ...metric, id: 'ffffffffffffffffffffffff', serviceNameExpression: 'ServiceName' }),
    );
    expect(created.id).not.toBe('ffffffffffffffffffffffff');
    const replaced = obj(await api.result('PUT', `${base}/${String(created.id)}`, { ...metric, id: created.id, name: 'M2' }));
    expect(replaced).toMatchObject({ id: created.id, name: 'M2' });
    expect(replaced).not.toHaveProperty('serviceNameExpression');
    expect((await api.call('DELETE', `${base}/${String(created.id)}`)).status).toBe(200);
    expect((await api.call('DELETE', `${base}/${String(created.id)}`)).status).toBe(404);
  });
});
