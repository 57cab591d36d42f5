/**
 * Ported from ClickHouse/clickhousectl @ d966006c49315e2920ba6baf019b31da5d3d70c7,
 * crates/clickhouse-cloud-api/tests/client_test.rs: each wiremock fixture in obsync's scope
 * (API keys, ClickPipes, CDC scaling, ClickStack, the service, errors) replayed against the
 * sandbox. The request is the one the real client sends; the sandbox's answer must have the
 * fixture's shape (the crate's response models, ported in ./support.ts) and pass the Rust
 * test's assertions.
 */
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { DEMO_IDS } from '../../../src/sandbox/domain/index.js';
import { DEMO_PIPE_IDS } from '../../../src/sandbox/domain/pipes-seed.js';
import {
  apiKeyPostResponseModel,
  clickPipeModel,
  cloud,
  envelope,
  errorEnvelope,
  kafkaPipeBody,
  kafkaSourceModel,
  models,
  sandbox,
  waitFor,
} from './support.js';

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => z.record(z.string(), z.unknown()).parse(v);
const list = (v: unknown): Json[] => z.array(z.record(z.string(), z.unknown())).parse(v);

describe('clickhousectl tests/client_test.rs > API keys', () => {
  it('list_api_keys', async () => {
    const api = cloud(await sandbox());
    const keys = list(await api.result('GET', `${api.org}/keys`));
    expect(keys.length).toBeGreaterThan(0);
    for (const k of keys) models.ApiKey.parse(k);
  });

  it('create_api_key (the body clickhousectl sends: assignedRoleIds, ipAccessList, state, no roles)', async () => {
    const api = cloud(await sandbox());
    const body = { name: 'New Key', assignedRoleIds: [], ipAccessList: [{ source: '0.0.0.0/0', description: 'test' }], state: 'enabled' };
    const created = apiKeyPostResponseModel.parse(await api.result('POST', `${api.org}/keys`, body));
    expect(typeof created.keyId).toBe('string');
    expect(typeof created.keySecret).toBe('string');
    expect(created.key?.name).toBe('New Key');
  });

  it('get_api_key', async () => {
    const api = cloud(await sandbox());
    const created = apiKeyPostResponseModel.parse(
      await api.result('POST', `${api.org}/keys`, { name: 'My Key', assignedRoleIds: [], ipAccessList: [], state: 'enabled' }),
    );
    const key = models.ApiKey.parse(await api.result('GET', `${api.org}/keys/${created.key?.id ?? ''}`));
    expect(key.name).toBe('My Key');
    expect(key.state).toBe('enabled');
    expect(key.keySuffix).toBe(created.keyId?.slice(-4));
  });

  it('update_api_key', async () => {
    const api = cloud(await sandbox());
    const created = apiKeyPostResponseModel.parse(
      await api.result('POST', `${api.org}/keys`, { name: 'Key', assignedRoleIds: [], ipAccessList: [], state: 'enabled' }),
    );
    const key = models.ApiKey.parse(await api.result('PATCH', `${api.org}/keys/${created.key?.id ?? ''}`, { name: 'Renamed Key' }));
    expect(key.name).toBe('Renamed Key');
  });

  it('delete_api_key (status 200, no result)', async () => {
    const api = cloud(await sandbox());
    const created = apiKeyPostResponseModel.parse(
      await api.result('POST', `${api.org}/keys`, { name: 'Doomed', assignedRoleIds: [], ipAccessList: [], state: 'enabled' }),
    );
    const res = await api.call('DELETE', `${api.org}/keys/${created.key?.id ?? ''}`);
    expect(res.status).toBe(200);
    expect(envelope.parse(res.body)).not.toHaveProperty('result');
  });
});

describe('clickhousectl tests/client_test.rs > ClickPipes', () => {
  it('list_click_pipes', async () => {
    const api = cloud(await sandbox());
    const pipes = list(await api.result('GET', `${api.service}/clickpipes`));
    expect(pipes.length).toBeGreaterThan(0);
    for (const p of pipes) clickPipeModel.parse(p);
  });

  it('list_click_pipes_with_null_array_fields (the live Kafka shape)', async () => {
    const api = cloud(await sandbox({ seed: 'none' }));
    const body = kafkaPipeBody('kafka-pipe');
    const destination = body.destination as Json;
    // The live fixture's pipe: no field mappings or columns declared.
    await api.result('POST', `${api.service}/clickpipes`, {
      ...body,
      fieldMappings: undefined,
      destination: { ...destination, columns: undefined },
    });
    const [pipe] = list(await api.result('GET', `${api.service}/clickpipes`));
    const parsed = clickPipeModel.parse(pipe);
    expect(parsed.name).toBe('kafka-pipe');
    expect(parsed.scaling).toEqual({ replicas: 1, replicaCpuMillicores: 125, replicaMemoryGb: 0.5 });
    expect(parsed.settings).toEqual({});
    expect(parsed.fieldMappings).toEqual([]);
    expect(parsed.destination?.columns).toEqual([]);
    const kafka = kafkaSourceModel.parse(parsed.source?.kafka);
    expect(kafka.reversePrivateEndpointIds).toBeNull();
    expect(kafka).not.toHaveProperty('credentials');
  });

  it('create_click_pipe', async () => {
    const api = cloud(await sandbox());
    const pipe = clickPipeModel.parse(await api.result('POST', `${api.service}/clickpipes`, kafkaPipeBody('new-pipe')));
    expect(pipe.name).toBe('new-pipe');
    expect(pipe.state).toBe('Provisioning');
  });

  it('get_click_pipe', async () => {
    const api = cloud(await sandbox());
    const pipe = clickPipeModel.parse(await api.result('GET', `${api.service}/clickpipes/${DEMO_PIPE_IDS.ordersKafka}`));
    expect(pipe.name).toBe('orders-kafka');
  });

  it('update_click_pipe', async () => {
    const api = cloud(await sandbox());
    const pipe = clickPipeModel.parse(
      await api.result('PATCH', `${api.service}/clickpipes/${DEMO_PIPE_IDS.ordersKafka}`, { name: 'renamed-pipe' }),
    );
    expect(pipe.name).toBe('renamed-pipe');
  });

  it('delete_click_pipe (status 200, no result; the pipe is gone)', async () => {
    const api = cloud(await sandbox());
    const res = await api.call('DELETE', `${api.service}/clickpipes/${DEMO_PIPE_IDS.eventsS3}`);
    expect(res.status).toBe(200);
    expect(envelope.parse(res.body)).not.toHaveProperty('result');
    expect((await api.call('GET', `${api.service}/clickpipes/${DEMO_PIPE_IDS.eventsS3}`)).status).toBe(404);
  });

  it('update_click_pipe_state (stop)', async () => {
    const api = cloud(await sandbox());
    const path = `${api.service}/clickpipes/${DEMO_PIPE_IDS.ordersKafka}`;
    const pipe = clickPipeModel.parse(await api.result('PATCH', `${path}/state`, { command: 'stop' }));
    expect(['Stopping', 'Stopped']).toContain(pipe.state);
    await waitFor(
      'Stopped',
      async () => clickPipeModel.parse(await api.result('GET', path)).state,
      (s) => s === 'Stopped',
    );
  });

  it('update_click_pipe_scaling (answers the pipe)', async () => {
    const api = cloud(await sandbox());
    const pipe = clickPipeModel.parse(
      await api.result('PATCH', `${api.service}/clickpipes/${DEMO_PIPE_IDS.clicksKinesis}/scaling`, { replicas: 2 }),
    );
    expect(pipe.scaling?.replicas).toBe(2);
  });

  it('get_click_pipe_settings', async () => {
    const api = cloud(await sandbox());
    models.ClickPipeSettingsResponse.parse(await api.result('GET', `${api.service}/clickpipes/${DEMO_PIPE_IDS.ordersKafka}/settings`));
  });

  it('update_click_pipe_settings (an empty PUT answers the settings)', async () => {
    const api = cloud(await sandbox());
    const settings = models.ClickPipeSettingsResponse.parse(
      await api.result('PUT', `${api.service}/clickpipes/${DEMO_PIPE_IDS.ordersKafka}/settings`, {}),
    );
    expect(settings.streaming_max_insert_wait_ms).toBe(5000);
  });

  it('get_cdc_scaling', async () => {
    const api = cloud(await sandbox());
    const scaling = models.ClickPipesCdcScaling.parse(await api.result('GET', `${api.service}/clickpipesCdcScaling`));
    expect(scaling).toEqual({ replicaCpuMillicores: 2000, replicaMemoryGb: 8 });
  });

  it('update_cdc_scaling', async () => {
    const api = cloud(await sandbox());
    const scaling = models.ClickPipesCdcScaling.parse(
      await api.result('PATCH', `${api.service}/clickpipesCdcScaling`, { replicaCpuMillicores: 4000, replicaMemoryGb: 16.0 }),
    );
    expect(scaling.replicaCpuMillicores).toBe(4000);
  });
});

describe('clickhousectl tests/client_test.rs > ClickStack', () => {
  const alertBody = {
    source: 'saved_search',
    savedSearchId: DEMO_IDS.errors,
    interval: '5m',
    threshold: 1,
    thresholdType: 'above',
    channel: { type: 'webhook', webhookId: DEMO_IDS.opsSlack },
  };

  it('list_alerts, create_alert, get_alert, update_alert, delete_alert', async () => {
    const api = cloud(await sandbox());
    const base = `${api.service}/clickstack/alerts`;
    const created = obj(await api.result('POST', base, { ...alertBody, name: 'New Alert' }));
    expect(created.name).toBe('New Alert');
    expect(list(await api.result('GET', base))).toHaveLength(1);
    expect(obj(await api.result('GET', `${base}/${String(created.id)}`)).name).toBe('New Alert');
    expect(obj(await api.result('PUT', `${base}/${String(created.id)}`, { ...alertBody, name: 'Updated Alert' })).name).toBe(
      'Updated Alert',
    );
    const deleted = await api.call('DELETE', `${base}/${String(created.id)}`);
    expect(deleted.status).toBe(200);
    expect(envelope.parse(deleted.body)).not.toHaveProperty('result');
  });

  it('list_saved_searches, create_saved_search, get_saved_search, update_saved_search, delete_saved_search', async () => {
    const api = cloud(await sandbox());
    const base = `${api.service}/clickstack/saved-searches`;
    expect(list(await api.result('GET', base))[0]?.sourceId).toBe(DEMO_IDS.logs);
    const created = obj(await api.result('POST', base, { name: 'Production Errors', sourceId: DEMO_IDS.logs }));
    expect(created.id).toMatch(/^[0-9a-f]{24}$/);
    expect(obj(await api.result('GET', `${base}/${String(created.id)}`)).name).toBe('Production Errors');
    expect(obj(await api.result('PUT', `${base}/${String(created.id)}`, { name: 'Updated Search', sourceId: DEMO_IDS.logs })).name).toBe(
      'Updated Search',
    );
    expect((await api.call('DELETE', `${base}/${String(created.id)}`)).status).toBe(200);
  });

  it('list_dashboards, create_dashboard, get_dashboard, update_dashboard, delete_dashboard', async () => {
    const api = cloud(await sandbox());
    const base = `${api.service}/clickstack/dashboards`;
    const created = obj(await api.result('POST', base, { name: 'New Dashboard', tiles: [] }));
    expect(list(await api.result('GET', base)).map((d) => d.name)).toContain('New Dashboard');
    expect(obj(await api.result('GET', `${base}/${String(created.id)}`)).name).toBe('New Dashboard');
    expect(obj(await api.result('PUT', `${base}/${String(created.id)}`, { name: 'Updated Dashboard', tiles: [] })).name).toBe(
      'Updated Dashboard',
    );
    expect(envelope.parse((await api.call('DELETE', `${base}/${String(created.id)}`)).body)).not.toHaveProperty('result');
  });

  it('list_sources, create_source, get_source, update_source, delete_source (a promql source)', async () => {
    const api = cloud(await sandbox());
    const base = `${api.service}/clickstack/sources`;
    const body = {
      kind: 'promql',
      name: 'Prometheus Metrics',
      connection: DEMO_IDS.connection,
      from: { databaseName: 'default', tableName: 'metrics' },
      timestampValueExpression: 'timestamp',
    };
    expect(list(await api.result('GET', base)).length).toBeGreaterThan(0);
    const created = obj(await api.result('POST', base, body));
    expect(created).toMatchObject({
      kind: 'promql',
      name: 'Prometheus Metrics',
      connection: DEMO_IDS.connection,
      from: body.from,
      timestampValueExpression: 'timestamp',
    });
    expect(obj(await api.result('GET', `${base}/${String(created.id)}`)).name).toBe('Prometheus Metrics');
    expect(obj(await api.result('PUT', `${base}/${String(created.id)}`, { ...body, name: 'Updated Source' })).name).toBe('Updated Source');
    const deleted = await api.call('DELETE', `${base}/${String(created.id)}`);
    expect(deleted.status).toBe(200);
    expect(envelope.parse(deleted.body)).not.toHaveProperty('result');
  });

  it('list_webhooks, create_webhook, update_webhook, delete_webhook', async () => {
    const api = cloud(await sandbox({ seed: 'none' }));
    const base = `${api.service}/clickstack/webhooks`;
    expect(list(await api.result('GET', base))).toEqual([]);
    const created = obj(
      await api.result('POST', base, { name: 'Production Alerts', service: 'slack', url: 'https://hooks.slack.com/services/T/B/X' }),
    );
    expect(created).toMatchObject({ name: 'Production Alerts', service: 'slack', url: 'https://hooks.slack.com/services/T/B/X' });
    expect(typeof created.createdAt).toBe('string');
    expect(typeof created.updatedAt).toBe('string');
    const updated = obj(
      await api.result('PUT', `${base}/${String(created.id)}`, {
        name: 'Updated Alerts',
        service: 'slack',
        url: 'https://hooks.slack.com/services/T/B/X',
      }),
    );
    expect(updated).toMatchObject({ id: created.id, name: 'Updated Alerts', service: 'slack' });
    expect(envelope.parse((await api.call('DELETE', `${base}/${String(created.id)}`)).body)).not.toHaveProperty('result');
  });

  it('create_webhook_incidentio_response (service stays incidentio)', async () => {
    const api = cloud(await sandbox());
    const created = obj(
      await api.result('POST', `${api.service}/clickstack/webhooks`, {
        name: 'Incident Alerts',
        service: 'incidentio',
        url: 'https://api.incident.io/v2/alert_events/http/abc',
      }),
    );
    expect(created.service).toBe('incidentio');
  });

  it('update_webhook_generic_response (a generic webhook keeps its body)', async () => {
    const api = cloud(await sandbox());
    const base = `${api.service}/clickstack/webhooks`;
    const created = obj(await api.result('POST', base, { name: 'Generic Alerts', service: 'generic', url: 'https://example.com/hook' }));
    const body = '{"text": "{{ message }}"}';
    const updated = obj(
      await api.result('PUT', `${base}/${String(created.id)}`, {
        name: 'Generic Alerts',
        service: 'generic',
        url: 'https://example.com/hook',
        body,
      }),
    );
    expect(updated).toMatchObject({ id: created.id, service: 'generic', body });
  });

  it('validate_dashboard (enveloped verdict with errors and normalized null)', async () => {
    const api = cloud(await sandbox());
    const verdict = obj(
      await api.result('POST', `${api.service}/clickstack/dashboards/validate`, {
        name: 'My Dashboard',
        tiles: [{ name: 't', x: 0, y: 0, w: 6, h: 4 }],
      }),
    );
    expect(verdict.valid).toBe(false);
    const errors = z.array(z.object({ path: z.string(), message: z.string() })).parse(verdict.errors);
    expect(errors.length).toBeGreaterThan(0);
    expect(errors[0]?.path).toMatch(/^tiles\.0/);
    expect(verdict.normalized).toBeNull();
  });
});

describe('clickhousectl tests/client_test.rs > the service', () => {
  it('get_service_details', async () => {
    const h = await sandbox();
    const api = cloud(h);
    const svc = models.Service.parse(await api.result('GET', api.service));
    expect(svc.id).toBe(h.credentials.serviceId);
    expect(svc.state).toBe('running');
  });

  it('update_service_state (stop answers the service, stopping)', async () => {
    const api = cloud(await sandbox());
    const svc = models.Service.parse(await api.result('PATCH', `${api.service}/state`, { command: 'stop' }));
    expect(svc.state).toBe('stopping');
  });
});

describe('clickhousectl tests/client_test.rs > errors', () => {
  it('api_error_response (401 Invalid credentials)', async () => {
    const api = cloud(await sandbox());
    const res = await api.call('GET', `${api.org}/keys`, undefined, { keyId: 'bad-key', keySecret: 'bad-secret' });
    expect(res.status).toBe(401);
    expect(errorEnvelope.parse(res.body)).toMatchObject({ status: 401, error: 'Invalid credentials' });
  });

  it('api_error_404_not_found (unknown service: JSON envelope)', async () => {
    const api = cloud(await sandbox());
    const res = await api.call('GET', `${api.org}/services/00000000-0000-4000-8000-000000000000`);
    expect(res.status).toBe(404);
    expect(errorEnvelope.parse(res.body).status).toBe(404);
  });

  it('api_error_429_rate_limited', async () => {
    const api = cloud(await sandbox({ rateLimit: { hosted: { limit: 1, windowMs: 60_000 } } }));
    await api.call('GET', `${api.org}/keys`);
    const res = await api.call('GET', `${api.org}/keys`);
    expect(res.status).toBe(429);
    expect(errorEnvelope.parse(res.body)).toMatchObject({ status: 429, error: 'Rate limit exceeded' });
  });
});
