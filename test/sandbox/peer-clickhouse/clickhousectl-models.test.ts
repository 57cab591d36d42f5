/**
 * Ported from ClickHouse/clickhousectl @ d966006c49315e2920ba6baf019b31da5d3d70c7,
 * crates/clickhouse-cloud-api/tests/models_test.rs (deserialize_clickpipe,
 * deserialize_clickpipe_scaling, deserialize_clickpipe_settings, deserialize_api_key,
 * clickpipe_state_all_variants, service_state_enum_roundtrip) with the response structs of
 * src/models.rs: every answer the sandbox gives on these routes must deserialize in the real
 * client's models, with their exact field types.
 */
import { describe, expect, it } from 'vitest';
import { DEMO_PIPE_IDS } from '../../../src/sandbox/domain/pipes-seed.js';
import { apiKeyPostResponseModel, clickPipeModel, cloud, kafkaPipeBody, models, sandbox, waitFor } from './support.js';

describe('clickhousectl tests/models_test.rs against sandbox answers', () => {
  it(
    'deserialize_clickpipe, deserialize_clickpipe_scaling, ' + 'deserialize_clickpipe_settings: every pipe answer, before and after writes',
    async () => {
      const api = cloud(await sandbox());
      const base = `${api.service}/clickpipes`;
      const answers: unknown[] = [];
      answers.push(...((await api.result('GET', base)) as unknown[]));
      answers.push(
        await api.result('POST', base, {
          ...kafkaPipeBody('typed'),
          scaling: { replicas: 2, replicaCpuMillicores: 250, replicaMemoryGb: 1 },
          settings: { kafka_read_committed: true },
        }),
      );
      answers.push(await api.result('PATCH', `${base}/${DEMO_PIPE_IDS.clicksKinesis}/scaling`, { replicaMemoryGb: 1.5 }));
      answers.push(await api.result('PATCH', `${base}/${DEMO_PIPE_IDS.eventsS3}`, { settings: { object_storage_max_file_count: 10 } }));
      answers.push(await api.result('PATCH', `${base}/${DEMO_PIPE_IDS.ordersPostgres}/state`, { command: 'stop' }));
      for (const a of answers) {
        const pipe = clickPipeModel.parse(a);
        if (pipe.scaling) models.ClickPipeScalingResponse.parse(pipe.scaling);
      }
      for (const id of Object.values(DEMO_PIPE_IDS))
        models.ClickPipeSettingsResponse.parse(await api.result('GET', `${base}/${id}/settings`));
      const kinesis = clickPipeModel.parse(await api.result('GET', `${base}/${DEMO_PIPE_IDS.clicksKinesis}`));
      expect(kinesis.scaling).toEqual({ replicas: 1, replicaCpuMillicores: 500, replicaMemoryGb: 1.5 });
    },
  );

  it('clickpipe_state_all_variants: the states a pipe passes through are ClickPipeState values', async () => {
    const api = cloud(await sandbox());
    const path = `${api.service}/clickpipes/${DEMO_PIPE_IDS.ordersPostgres}`;
    const seen = new Set<string>();
    const state = async () => {
      const s = clickPipeModel.parse(await api.result('GET', path)).state ?? '';
      seen.add(s);
      return s;
    };
    await api.result('PATCH', `${path}/state`, { command: 'stop' });
    await waitFor('Paused', state, (s) => s === 'Paused');
    await api.result('PATCH', `${path}/state`, { command: 'start' });
    await waitFor('Running', state, (s) => s === 'Running');
    for (const s of seen) models.ClickPipeState.parse(s);
  });

  it('deserialize_api_key: list, get, create and patch answers', async () => {
    const api = cloud(await sandbox());
    const created = apiKeyPostResponseModel.parse(
      await api.result('POST', `${api.org}/keys`, { name: 'typed', roles: ['developer'], expireAt: '2030-01-01T00:00:00Z' }),
    );
    const id = created.key?.id ?? '';
    models.ApiKey.parse(await api.result('GET', `${api.org}/keys/${id}`));
    models.ApiKey.parse(await api.result('PATCH', `${api.org}/keys/${id}`, { expireAt: null }));
    for (const k of (await api.result('GET', `${api.org}/keys`)) as unknown[]) models.ApiKey.parse(k);
  });

  it('service_state_enum_roundtrip: the service states the sandbox answers are ServiceState values', async () => {
    const h = await sandbox();
    const api = cloud(h);
    const states = new Set<string>();
    const state = async () => {
      const s = models.Service.parse(await api.result('GET', api.service)).state ?? '';
      states.add(s);
      return s;
    };
    h.service.idle();
    expect(await state()).toBe('idle');
    states.add(models.Service.parse(await api.result('PATCH', `${api.service}/state`, { command: 'awake' })).state ?? '');
    await waitFor('running', state, (s) => s === 'running');
    expect([...states]).toEqual(expect.arrayContaining(['idle', 'awaking', 'running']));
  });
});
