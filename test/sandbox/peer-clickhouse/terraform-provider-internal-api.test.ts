/**
 * Ported from ClickHouse/terraform-provider-clickhouse @ c320db99ba37b84eca0181a074b2501f946d4d04,
 * internal/api: the tests of clickpipe_test.go, errors_test.go and service_test.go, and the
 * contracts the client code relies on (common.go: 200 for every success, 429 with a
 * float-seconds X-RateLimit-Reset; clickpipe.go: POST …/clickpipes/, the 424 idle wake, state
 * polling, CDC scaling propagation; api_keys.go: keySuffix matching the auth key id). The
 * provider's mock servers are replaced by the sandbox, which must behave as they assume the
 * real API does.
 */
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { DEMO_PIPE_IDS } from '../../../src/sandbox/domain/pipes-seed.js';
import { clickPipeModel, cloud, errorEnvelope, kafkaPipeBody, models, sandbox, waitFor, type Answer } from './support.js';

/** errors.go IsServiceIdle: a 424 whose body says "Current state: idle" (a stopped service must not match). */
function isServiceIdle(a: Answer): boolean {
  return a.status === 424 && a.text.includes('Current state: idle');
}

const idleBody = (state: string) => ({
  status: 424,
  error: `FAILED_DEPENDENCY: ClickPipe creation is allowed only when the ClickHouse service is running. Current state: ${state}`,
});

describe('terraform-provider internal/api/clickpipe_test.go', () => {
  it(
    'TestCreateClickPipe_WakesIdleServiceAndRetries: 424 while idle, awake, poll GET /services/{id} to running, the replayed create ' +
      'succeeds',
    async () => {
      const h = await sandbox({ seed: 'none' });
      const api = cloud(h);
      h.service.idle();
      const body = kafkaPipeBody('my-pipe');
      const first = await api.call('POST', `${api.service}/clickpipes/`, body);
      expect(first.status).toBe(424);
      expect(errorEnvelope.parse(first.body)).toMatchObject(idleBody('idle'));
      expect(isServiceIdle(first)).toBe(true);
      const wake = await api.call('PATCH', `${api.service}/state`, { command: 'awake' });
      expect(wake.status).toBe(200);
      await waitFor(
        'running',
        async () => models.Service.parse(await api.result('GET', api.service)).state,
        (s) => s === 'running',
      );
      const pipe = clickPipeModel.parse(await api.result('POST', `${api.service}/clickpipes/`, body));
      expect(pipe).toMatchObject({ name: 'my-pipe', state: 'Provisioning' });
    },
  );

  it('TestCreateClickPipe_WakesIdleServiceAndRetries: the idle state persists until the service is woken', async () => {
    const h = await sandbox();
    const api = cloud(h);
    h.service.idle();
    for (let i = 0; i < 3; i++) expect(isServiceIdle(await api.call('GET', `${api.service}/clickpipes`))).toBe(true);
    // Every ClickPipes route, CDC scaling included (the provider routes them all through doClickPipeRequest).
    expect(isServiceIdle(await api.call('GET', `${api.service}/clickpipesCdcScaling`))).toBe(true);
    expect(
      isServiceIdle(
        await api.call('PUT', `${api.service}/clickpipes/${DEMO_PIPE_IDS.ordersKafka}/settings`, { clickhouse_max_threads: 2 }),
      ),
    ).toBe(true);
    // The awake command is a no-op on a service that is already waking (wakeService doc).
    expect((await api.call('PATCH', `${api.service}/state`, { command: 'awake' })).status).toBe(200);
    expect((await api.call('PATCH', `${api.service}/state`, { command: 'awake' })).status).toBe(200);
    await waitFor(
      'pipes served',
      async () => (await api.call('GET', `${api.service}/clickpipes`)).status,
      (s) => s === 200,
    );
    expect((await api.call('PATCH', `${api.service}/state`, { command: 'awake' })).status).toBe(200);
  });

  it(
    'TestCreateClickPipe_StoppedService424_DoesNotWake: a stopped ' + 'service answers 424 "Current state: stopped", which is not idle',
    async () => {
      const api = cloud(await sandbox());
      await api.result('PATCH', `${api.service}/state`, { command: 'stop' });
      await waitFor(
        'stopped',
        async () => models.Service.parse(await api.result('GET', api.service)).state,
        (s) => s === 'stopped',
      );
      const res = await api.call('POST', `${api.service}/clickpipes/`, kafkaPipeBody('my-pipe'));
      expect(errorEnvelope.parse(res.body)).toMatchObject(idleBody('stopped'));
      expect(isServiceIdle(res)).toBe(false);
    },
  );

  for (const value of [true, false]) {
    it(`TestUpdateClickPipeSettings_PreservesKafkaReadCommittedBoolean/${String(value)}`, async () => {
      const api = cloud(await sandbox());
      const settings = models.ClickPipeSettingsResponse.parse(
        await api.result('PUT', `${api.service}/clickpipes/${DEMO_PIPE_IDS.ordersKafka}/settings`, { kafka_read_committed: value }),
      );
      expect(settings.kafka_read_committed).toBe(value);
      expect(
        clickPipeModel.parse(await api.result('GET', `${api.service}/clickpipes/${DEMO_PIPE_IDS.ordersKafka}`)).settings
          ?.kafka_read_committed,
      ).toBe(value);
    });
  }
});

describe('terraform-provider internal/api/errors_test.go', () => {
  it('TestIsServiceIdle: "424 for idle service" matches, "non-424 mentioning idle" does not', async () => {
    const h = await sandbox();
    const api = cloud(h);
    h.service.idle();
    const idle = await api.call('GET', `${api.service}/clickpipes/${DEMO_PIPE_IDS.ordersKafka}`);
    expect(idle.text).toContain('FAILED_DEPENDENCY: ');
    expect(isServiceIdle(idle)).toBe(true);
    expect(isServiceIdle(await api.call('GET', `${api.service}/clickstack/dashboards`))).toBe(false);
  });
});

describe('terraform-provider internal/api/service_test.go', () => {
  it('TestGetServiceBase_SingleRequestNoEnrichment: GET /organizations/{org}/services/{id} answers the service in result', async () => {
    const h = await sandbox();
    const api = cloud(h);
    const svc = models.Service.parse(await api.result('GET', api.service));
    expect(svc).toMatchObject({ id: h.credentials.serviceId, state: 'running' });
    expect(typeof svc.name).toBe('string');
  });
});

describe('terraform-provider internal/api/common.go (doRequestWithStatus)', () => {
  it('accepts only 200: every success in scope is 200, creates and deletes included', async () => {
    const api = cloud(await sandbox());
    const statuses = [
      (await api.call('POST', `${api.service}/clickpipes`, kafkaPipeBody('two-hundred'))).status,
      (await api.call('POST', `${api.org}/keys`, { name: 'k', assignedRoleIds: [], ipAccessList: [], state: 'enabled' })).status,
      (await api.call('POST', `${api.service}/clickstack/dashboards`, { name: 'd', tiles: [] })).status,
      (await api.call('DELETE', `${api.service}/clickpipes/${DEMO_PIPE_IDS.eventsS3}`)).status,
    ];
    expect(statuses).toEqual([200, 200, 200, 200]);
  });

  it('429 carries X-RateLimit-Reset as seconds parseable as a float (and Retry-After for go-retryablehttp)', async () => {
    const h = await sandbox({ rateLimit: { hosted: { limit: 1, windowMs: 10_000 } } });
    const auth = `Basic ${Buffer.from(`${h.credentials.keyId}:${h.credentials.keySecret}`).toString('base64')}`;
    const url = `${h.url}/v1/organizations/${h.credentials.organizationId}/keys`;
    await fetch(url, { headers: { authorization: auth } });
    const res = await fetch(url, { headers: { authorization: auth } });
    expect(res.status).toBe(429);
    const reset = Number.parseFloat(res.headers.get('x-ratelimit-reset') ?? '');
    expect(reset).toBeGreaterThan(0);
    expect(reset).toBeLessThanOrEqual(10);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});

describe('terraform-provider internal/api/clickpipe.go and api_keys.go', () => {
  it('WaitForClickPipeState: a created streaming pipe reaches Running; stop ends in Stopped', async () => {
    const api = cloud(await sandbox());
    const created = clickPipeModel.parse(await api.result('POST', `${api.service}/clickpipes/`, kafkaPipeBody('waited')));
    const path = `${api.service}/clickpipes/${created.id ?? ''}`;
    const state = async () => clickPipeModel.parse(await api.result('GET', path)).state;
    await waitFor('Running', state, (s) => s === 'Running');
    await api.result('PATCH', `${path}/state`, { command: 'stop' });
    await waitFor('Stopped', state, (s) => s === 'Stopped');
    // ChangeClickPipeState start: "already running" only while running.
    await api.result('PATCH', `${path}/state`, { command: 'start' });
    await waitFor('Running', state, (s) => s === 'Running');
    const again = await api.call('PATCH', `${path}/state`, { command: 'start' });
    expect(again.status).toBe(400);
    expect(errorEnvelope.parse(again.body).error).toContain('ClickPipe is already running');
  });

  it('WaitForClickPipeCdcScaling: the PATCHed pool shows in GET once it has propagated', async () => {
    const api = cloud(await sandbox({ pipeTransitionMs: 100 }));
    const cdc = `${api.service}/clickpipesCdcScaling`;
    const patched = z
      .object({ replicaCpuMillicores: z.number().int(), replicaMemoryGb: z.number() })
      .parse(await api.result('PATCH', cdc, { replicaCpuMillicores: 4000, replicaMemoryGb: 16 }));
    expect(patched).toEqual({ replicaCpuMillicores: 4000, replicaMemoryGb: 16 });
    await waitFor(
      'propagated',
      async () => models.ClickPipesCdcScaling.parse(await api.result('GET', cdc)),
      (s) => s.replicaCpuMillicores === 4000 && s.replicaMemoryGb === 16,
    );
    // Memory is 4 GB per core, in steps.
    expect((await api.call('PATCH', cdc, { replicaCpuMillicores: 4000, replicaMemoryGb: 8 })).status).toBe(400);
    expect((await api.call('PATCH', cdc, { replicaCpuMillicores: 1500, replicaMemoryGb: 6 })).status).toBe(400);
  });

  it('ClickPipeScalingRequest: the scaling PATCH takes numbers and the pipe answers numbers', async () => {
    const api = cloud(await sandbox());
    const pipe = clickPipeModel.parse(
      await api.result('PATCH', `${api.service}/clickpipes/${DEMO_PIPE_IDS.ordersKafka}/scaling`, {
        replicas: 3,
        replicaCpuMillicores: 250,
        replicaMemoryGb: 1,
      }),
    );
    expect(pipe.scaling).toEqual({ replicas: 3, replicaCpuMillicores: 250, replicaMemoryGb: 1 });
    const out = await api.call('PATCH', `${api.service}/clickpipes/${DEMO_PIPE_IDS.ordersKafka}/scaling`, { replicas: 0 });
    expect(errorEnvelope.parse(out.body).error).toBe('BAD_REQUEST: replicas: Not between 1 and 40');
  });

  it('GetApiKeyID: the key list identifies the calling key by keySuffix, the last characters of its key id', async () => {
    const h = await sandbox();
    const keys = models.ApiKey.array().parse(await cloud(h).result('GET', `/organizations/${h.credentials.organizationId}/keys`));
    const own = keys.filter((k) => h.credentials.keyId.endsWith(k.keySuffix ?? '\u0000'));
    expect(own).toHaveLength(1);
  });

  it('DeleteClickPipe: answers 200; the pipe then reads as 404 (the provider drops it from state)', async () => {
    const api = cloud(await sandbox());
    const path = `${api.service}/clickpipes/${DEMO_PIPE_IDS.clicksKinesis}`;
    expect((await api.call('DELETE', path)).status).toBe(200);
    const gone = await api.call('GET', path);
    expect(gone.status).toBe(404);
    expect(errorEnvelope.parse(gone.body).error).toMatch(/^NOT_FOUND: /);
  });
});
