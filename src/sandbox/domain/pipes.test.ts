import { describe, expect, it } from 'vitest';
import type { JsonRecord } from './contract.js';
import { createPipesDomain } from './pipes.js';
import { DEMO_PIPE_IDS } from './pipes-seed.js';
import { failure, value } from './test-helpers.js';

const SERVICE = '11111111-2222-4333-8444-555555555555';

function setup(transitionMs = 300) {
  let t = new Date('2026-09-01T12:00:00.000Z').getTime();
  const clock = { advance: (ms: number) => (t += ms) };
  const d = createPipesDomain({ serviceId: SERVICE, now: () => new Date(t), transitionMs });
  return { d, clock };
}

const kafkaOf = (p: JsonRecord) => (p.source as { kafka: JsonRecord }).kafka;
const storedSecrets = (snap: JsonRecord, id: string) =>
  (snap.pipes as unknown as { id: string; secrets: Record<string, string> }[]).find((p) => p.id === id)?.secrets ?? {};

describe('pipes', () => {
  it('seeds four running pipes with one source member each', () => {
    const { d } = setup();
    const pipes = value(d.list());
    expect(pipes.map((p) => p.name)).toEqual(['orders-kafka', 'events-s3', 'clicks-kinesis', 'orders-postgres']);
    for (const p of pipes) {
      expect(p.state).toBe('Running');
      expect(p.serviceId).toBe(SERVICE);
      expect(Object.keys(p.source as JsonRecord)).toHaveLength(1);
      expect(Object.values(p.settings as JsonRecord)).not.toContain(null);
    }
    expect(failure(d.get('nope')).status).toBe(404);
  });

  it('rejects an immutable source field with 400 and changes nothing', () => {
    const { d } = setup();
    const before = value(d.get(DEMO_PIPE_IDS.ordersKafka));
    const bad = failure(d.patch(DEMO_PIPE_IDS.ordersKafka, { name: 'renamed', source: { kafka: { brokers: 'other:9092' } } }));
    expect(bad).toEqual({ status: 400, message: 'source.kafka.brokers is immutable' });
    expect(value(d.get(DEMO_PIPE_IDS.ordersKafka))).toEqual(before);
    expect(d.version).toBe(0);
    expect(failure(d.patch(DEMO_PIPE_IDS.ordersKafka, { source: { kinesis: { iamRole: 'x' } } })).status).toBe(400);
    expect(failure(d.patch(DEMO_PIPE_IDS.ordersKafka, { destination: { table: 'x' } })).message).toBe('destination.table is immutable');
    expect(failure(d.patch(DEMO_PIPE_IDS.ordersKafka, { scaling: { replicas: 2 } })).status).toBe(400);
  });

  it('accepts credentials but never returns or snapshots them in clear', () => {
    const { d, clock } = setup();
    const hashBefore = storedSecrets(d.snapshot(), DEMO_PIPE_IDS.ordersKafka).credentials;
    clock.advance(1000);
    const out = value(
      d.patch(DEMO_PIPE_IDS.ordersKafka, {
        name: 'orders-kafka-2',
        source: { kafka: { authentication: 'SCRAM-SHA-512', credentials: { username: 'u', password: 'hunter2-secret' } } },
      }),
    );
    expect(out.name).toBe('orders-kafka-2');
    expect(kafkaOf(out).authentication).toBe('SCRAM-SHA-512');
    expect(kafkaOf(out)).not.toHaveProperty('credentials');
    expect(out.updatedAt).toBe('2026-09-01T12:00:01.000Z');
    expect(d.version).toBe(1);
    expect(JSON.stringify(value(d.list()))).not.toContain('hunter2-secret');
    const snap = d.snapshot();
    expect(JSON.stringify(snap)).not.toContain('hunter2-secret');
    const hashAfter = storedSecrets(snap, DEMO_PIPE_IDS.ordersKafka).credentials;
    expect(hashAfter).toMatch(/^[0-9a-f]{64}$/);
    expect(hashAfter).not.toBe(hashBefore);
    const restored = createPipesDomain({ serviceId: SERVICE, snapshot: snap });
    expect(value(restored.get(DEMO_PIPE_IDS.ordersKafka))).toEqual(out);
  });

  it('validates settings bounds, types and keys; PUT merges and mirrors into the pipe', () => {
    const { d } = setup();
    const id = DEMO_PIPE_IDS.eventsS3;
    expect(failure(d.putSettings(id, { object_storage_concurrency: 36 }))).toEqual({
      status: 400,
      message: 'object_storage_concurrency must be an integer between 1 and 35 or null',
    });
    expect(failure(d.putSettings(id, { clickhouse_max_threads: -1 })).status).toBe(400);
    expect(failure(d.putSettings(id, { object_storage_use_cluster_function: 3 })).status).toBe(400);
    expect(failure(d.putSettings(id, { no_such_key: 1 })).message).toBe('no_such_key is not a known setting');
    expect(failure(d.patch(id, { settings: { clickhouse_max_insert_threads: 17 } })).message).toContain(
      'settings.clickhouse_max_insert_threads',
    );
    expect(d.version).toBe(0);
    const before = value(d.getSettings(id));
    const after = value(d.putSettings(id, { clickhouse_max_threads: 64, object_storage_concurrency: null }));
    const { object_storage_concurrency: unset, ...rest } = before;
    expect(unset).toBe(4);
    expect(after).toEqual({ ...rest, clickhouse_max_threads: 64 });
    expect(value(d.get(id)).settings).toEqual(after);
    expect(failure(d.putSettings(id, { kafka_read_committed: null })).message).toBe('kafka_read_committed must be a boolean');
    expect(value(d.putSettings(id, { kafka_read_committed: false })).kafka_read_committed).toBe(false);
  });

  it('stop goes through Stopping to Stopped after the transition time', () => {
    const { d, clock } = setup(300);
    const id = DEMO_PIPE_IDS.ordersKafka;
    expect(value(d.setState(id, { command: 'stop' })).state).toBe('Stopping');
    clock.advance(299);
    d.tick();
    expect(value(d.get(id)).state).toBe('Stopping');
    clock.advance(1);
    d.tick();
    expect(value(d.get(id)).state).toBe('Stopped');
    expect(value(d.setState(id, { command: 'start' })).state).toBe('Provisioning');
    clock.advance(300);
    d.tick();
    expect(value(d.get(id)).state).toBe('Running');
  });

  it('postgres pauses, resyncs; start on a running pipe is refused', () => {
    const { d, clock } = setup(10);
    const pg = DEMO_PIPE_IDS.ordersPostgres;
    expect(failure(d.setState(DEMO_PIPE_IDS.ordersKafka, { command: 'start' }))).toEqual({
      status: 400,
      message: '5eedc1b0 ClickPipe is already running',
    });
    expect(failure(d.setState(DEMO_PIPE_IDS.ordersKafka, { command: 'resync' })).status).toBe(400);
    expect(value(d.setState(pg, { command: 'resync' })).state).toBe('Resync');
    clock.advance(10);
    d.tick();
    expect(value(d.setState(pg, { command: 'stop' })).state).toBe('Pausing');
    clock.advance(10);
    d.tick();
    expect(value(d.get(pg)).state).toBe('Paused');
  });

  it('patches scaling within bounds and answers numbers; refuses postgres', () => {
    const { d } = setup();
    const id = DEMO_PIPE_IDS.clicksKinesis;
    expect(value(d.get(id)).scaling).toEqual({ replicas: 1, replicaCpuMillicores: 500, replicaMemoryGb: 0.5 });
    const out = value(d.patchScaling(id, { replicas: 3, replicaCpuMillicores: 1000, replicaMemoryGb: 4 }));
    expect(out.scaling).toEqual({ replicas: 3, replicaCpuMillicores: 1000, replicaMemoryGb: 4 });
    expect(failure(d.patchScaling(id, { replicas: 41 }))).toEqual({ status: 400, message: 'replicas: Not between 1 and 40' });
    expect(failure(d.patchScaling(id, { replicaCpuMillicores: 100 })).status).toBe(400);
    expect(failure(d.patchScaling(id, { replicaMemoryGb: 9 })).status).toBe(400);
    expect(failure(d.patchScaling(id, { concurrency: 35 })).status).toBe(400);
    expect(failure(d.patchScaling(DEMO_PIPE_IDS.ordersPostgres, { replicas: 2 })).status).toBe(400);
    expect((value(d.get(id)).scaling as JsonRecord).replicas).toBe(3);
  });

  it('postgres table-mapping edits need a paused pipe and resume it', () => {
    const { d, clock } = setup(10);
    const pg = DEMO_PIPE_IDS.ordersPostgres;
    const add = {
      source: { postgres: { tableMappingsToAdd: [{ sourceSchemaName: 'public', sourceTable: 'items', targetTable: 'public_items' }] } },
    };
    expect(failure(d.patch(pg, add)).message).toBe('Postgres ClickPipe must be paused to edit');
    d.setState(pg, { command: 'stop' });
    clock.advance(10);
    d.tick();
    const out = value(d.patch(pg, add));
    expect(out.state).toBe('Modifying');
    expect(((out.source as { postgres: JsonRecord }).postgres.tableMappings as JsonRecord[]).length).toBe(3);
    clock.advance(10);
    d.tick();
    expect(value(d.get(pg)).state).toBe('Running');
    expect(failure(d.patch(pg, { source: { postgres: { settings: { replicationMode: 'snapshot' } } } })).message).toBe(
      'source.postgres.settings.replicationMode is immutable',
    );
  });
});

describe('pipe create, delete and CDC scaling', () => {
  const kafka = {
    name: 'new',
    source: {
      kafka: {
        type: 'kafka',
        format: 'JSONEachRow',
        brokers: 'b:9092',
        topics: 't',
        authentication: 'PLAIN',
        credentials: { username: 'u', password: 'never-shown' },
      },
    },
    destination: { database: 'default', table: 't', managedTable: true, columns: [{ name: 'id', type: 'Int64' }] },
  };

  it('creates a provisioning pipe with default scaling and no secrets, which settles in Running; delete removes it', () => {
    const { d, clock } = setup(10);
    const created = value(d.create(kafka));
    expect(created).toMatchObject({
      name: 'new',
      state: 'Provisioning',
      scaling: { replicas: 1, replicaCpuMillicores: 125, replicaMemoryGb: 0.5 },
      settings: {},
      fieldMappings: [],
    });
    expect(JSON.stringify(created)).not.toContain('never-shown');
    clock.advance(10);
    d.tick();
    const id = created.id as string;
    expect(value(d.get(id)).state).toBe('Running');
    value(d.delete(id));
    expect(failure(d.get(id)).status).toBe(404);
  });

  it('refuses bad create bodies and changes nothing', () => {
    const { d } = setup();
    const bad = (body: unknown) => failure(d.create(body)).message;
    expect(bad({ ...kafka, id: 'x' })).toBe("request body property can't be validated: id");
    expect(bad({ ...kafka, settings: {} })).toBe('settings must not be empty');
    expect(bad({ ...kafka, scaling: { replicas: 0 } })).toBe('scaling.replicas: Not between 1 and 40');
    expect(bad({ ...kafka, source: { kafka: { ...kafka.source.kafka, brokers: '' } } })).toBe('source.kafka.brokers: Required');
    expect(bad({ ...kafka, destination: { database: 'default' } })).toBe('destination.table: Required');
    expect(
      bad({ ...kafka, destination: { ...kafka.destination, tableDefinition: { engine: { type: 'MergeTree' }, partitionBy: '' } } }),
    ).toBe('destination.tableDefinition.partitionBy must not be empty');
    const pg = {
      name: 'pg',
      source: { postgres: { host: 'h', port: 5432, database: 'd', credentials: { username: 'u', password: 'p' }, tableMappings: [] } },
      destination: { database: 'r', table: 'x' },
    };
    expect(bad(pg)).toBe('destination.table is not supported for postgres ClickPipes');
    expect(d.version).toBe(0);
  });

  it('the CDC pool: 4 GB per core in steps, visible once propagated', () => {
    const { d, clock } = setup(50);
    expect(value(d.getCdcScaling())).toEqual({ replicaCpuMillicores: 2000, replicaMemoryGb: 8 });
    expect(failure(d.patchCdcScaling({ replicaCpuMillicores: 3000, replicaMemoryGb: 8 })).status).toBe(400);
    expect(value(d.patchCdcScaling({ replicaCpuMillicores: 3000, replicaMemoryGb: 12 }))).toEqual({
      replicaCpuMillicores: 3000,
      replicaMemoryGb: 12,
    });
    expect(value(d.getCdcScaling()).replicaCpuMillicores).toBe(2000);
    clock.advance(50);
    d.tick();
    expect(value(d.getCdcScaling()).replicaCpuMillicores).toBe(3000);
    const none = createPipesDomain({ serviceId: SERVICE, seed: 'none' });
    expect(failure(none.getCdcScaling()).status).toBe(400);
  });
});
