/**
 * Shared pieces of the peer tests derived from ClickHouse's own clients (see SOURCES.md): a
 * loopback sandbox, a Cloud API caller, and the response models of clickhousectl's
 * crates/clickhouse-cloud-api/src/models.rs ported to zod with the same field types (every
 * field optional, as the crate's "response position" structs are; i64 is an integer, f64 any
 * number, uuid a UUID, DateTime an ISO date-time, enums their wire strings). A sandbox answer
 * that the real client could not deserialize fails these schemas.
 */
import { afterEach } from 'vitest';
import * as z from 'zod';
import { startSandbox, type SandboxHandle, type SandboxOptions } from '../../../src/sandbox/index.js';

const handles: SandboxHandle[] = [];

afterEach(async () => {
  for (const h of handles.splice(0)) await h.close();
});

export async function sandbox(opts: SandboxOptions = {}): Promise<SandboxHandle> {
  const h = await startSandbox({ port: 0, host: '127.0.0.1', rateLimit: 'off', pipeTransitionMs: 20, ...opts });
  handles.push(h);
  return h;
}

export interface Answer {
  status: number;
  /** Parsed JSON, or undefined for a non-JSON body. */
  body: unknown;
  text: string;
  contentType: string;
}

export interface Cloud {
  org: string;
  service: string;
  /** A request below `/v1`; `auth: null` sends none. */
  call(method: string, path: string, body?: unknown, auth?: { keyId: string; keySecret: string } | null): Promise<Answer>;
  /** The `result` of a 200 envelope (fails the test otherwise). */
  result(method: string, path: string, body?: unknown): Promise<unknown>;
}

export function cloud(h: SandboxHandle): Cloud {
  const c = h.credentials;
  const org = `/organizations/${c.organizationId}`;
  const call = async (
    method: string,
    path: string,
    body?: unknown,
    auth: { keyId: string; keySecret: string } | null = c,
  ): Promise<Answer> => {
    const headers: Record<string, string> = {};
    if (auth) headers.authorization = `Basic ${Buffer.from(`${auth.keyId}:${auth.keySecret}`).toString('base64')}`;
    if (body !== undefined) headers['content-type'] = 'application/json; charset=utf-8';
    const res = await fetch(`${h.url}/v1${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text) as unknown;
    } catch {
      parsed = undefined;
    }
    return { status: res.status, body: parsed, text, contentType: res.headers.get('content-type') ?? '' };
  };
  return {
    org,
    service: `${org}/services/${c.serviceId}`,
    call,
    async result(method, path, body) {
      const a = await call(method, path, body);
      if (a.status !== 200) throw new Error(`${method} ${path}: expected 200, got ${a.status} ${a.text}`);
      return envelope.parse(a.body).result;
    },
  };
}

/** The Cloud success envelope (tests/client_test.rs ok_json / ok_empty). */
export const envelope = z.looseObject({ status: z.literal(200), requestId: z.uuid(), result: z.unknown().optional() });
/** The Cloud error envelope (tests/client_test.rs api_error_*). */
export const errorEnvelope = z.looseObject({ status: z.number().int(), error: z.string(), requestId: z.string().optional() });

const uuid = z.uuid();
const dateTime = z.iso.datetime({ offset: true });
const i64 = z.number().int();
const f64 = z.number();
const opt = <T extends z.ZodType>(t: T) => t.nullish();

export const models = {
  /** `ClickPipeState`. */
  ClickPipeState: z.enum([
    'Unknown',
    'Provisioning',
    'Setup',
    'Snapshot',
    'Running',
    'Modifying',
    'Resync',
    'Pausing',
    'Paused',
    'Stopping',
    'Stopped',
    'Completed',
    'Failed',
    'InternalError',
    'Degraded',
  ]),
  /** `ClickPipeScalingResponse`: integers for replicas and millicores, a number for memory. */
  ClickPipeScalingResponse: z.strictObject({
    replicas: opt(i64),
    replicaCpuMillicores: opt(i64),
    replicaMemoryGb: opt(f64),
    concurrency: opt(i64),
  }),
  /** `ClickPipeSettingsResponse` plus the Sep-2026 `kafka_read_committed`. */
  ClickPipeSettingsResponse: z.strictObject({
    clickhouse_max_download_threads: opt(i64),
    clickhouse_max_insert_threads: opt(i64),
    clickhouse_max_threads: opt(i64),
    clickhouse_min_insert_block_size_bytes: opt(i64),
    clickhouse_parallel_distributed_insert_select: opt(i64),
    clickhouse_parallel_view_processing: opt(z.boolean()),
    object_storage_concurrency: opt(i64),
    object_storage_max_file_count: opt(i64),
    object_storage_max_insert_bytes: opt(i64),
    object_storage_polling_interval_ms: opt(i64),
    object_storage_use_cluster_function: opt(z.boolean()),
    streaming_max_insert_wait_ms: opt(i64),
    kafka_read_committed: z.boolean().optional(),
  }),
  ClickPipesCdcScaling: z.strictObject({ replicaCpuMillicores: opt(i64), replicaMemoryGb: opt(f64) }),
  /** `ApiKey` (with the deprecated `roles`). */
  ApiKey: z.strictObject({
    assignedRoles: opt(
      z.array(z.strictObject({ roleId: opt(uuid), roleName: opt(z.string()), roleType: opt(z.enum(['system', 'custom'])) })),
    ),
    createdAt: opt(dateTime),
    expireAt: opt(dateTime),
    id: opt(uuid),
    ipAccessList: opt(z.array(z.strictObject({ description: opt(z.string()), source: opt(z.string()) }))),
    keySuffix: opt(z.string()),
    name: opt(z.string()),
    roles: opt(z.array(z.string())),
    state: opt(z.enum(['enabled', 'disabled'])),
    usedAt: opt(dateTime),
  }),
  /** `Service` (the members obsync and the provider read). */
  Service: z.looseObject({
    id: opt(uuid),
    name: opt(z.string()),
    state: opt(
      z.enum([
        'starting',
        'stopping',
        'terminating',
        'softdeleting',
        'awaking',
        'partially_running',
        'provisioning',
        'running',
        'stopped',
        'terminated',
        'softdeleted',
        'degraded',
        'failed',
        'idle',
      ]),
    ),
  }),
};

const destination = z.strictObject({
  columns: opt(z.array(z.strictObject({ name: opt(z.string()), type: opt(z.string()) }))),
  database: opt(z.string()),
  managedTable: opt(z.boolean()),
  table: opt(z.string()),
  tableDefinition: opt(
    z.strictObject({
      engine: opt(z.strictObject({ columnIds: opt(z.array(z.string())), type: opt(z.string()), versionColumnId: opt(z.string()) })),
      partitionBy: opt(z.string()),
      primaryKey: opt(z.string()),
      sortingKey: opt(z.array(z.string())),
    }),
  ),
});

/** `ClickPipe` (response): its source members are modelled loosely here, their own models are checked by member. */
export const clickPipeModel = z.strictObject({
  createdAt: opt(dateTime),
  destination: opt(destination),
  fieldMappings: opt(z.array(z.strictObject({ sourceField: opt(z.string()), destinationField: opt(z.string()) }))),
  id: opt(uuid),
  name: opt(z.string()),
  scaling: opt(models.ClickPipeScalingResponse),
  serviceId: opt(uuid),
  settings: opt(models.ClickPipeSettingsResponse),
  source: opt(
    z.record(
      z.enum(['kafka', 'objectStorage', 'kinesis', 'pubsub', 'postgres', 'mysql', 'bigquery', 'mongodb']),
      z.looseObject({}).nullish(),
    ),
  ),
  state: opt(models.ClickPipeState),
  updatedAt: opt(dateTime),
});

/** `ClickPipeKafkaSource` (response): `reversePrivateEndpointIds` is `Option<Vec<String>>`, so null is fine. */
export const kafkaSourceModel = z.looseObject({
  type: opt(z.string()),
  format: opt(z.string()),
  brokers: opt(z.string()),
  topics: opt(z.string()),
  consumerGroup: opt(z.string()),
  authentication: opt(z.string()),
  reversePrivateEndpointIds: opt(z.array(z.string())),
});

export const apiKeyPostResponseModel = z.strictObject({ key: opt(models.ApiKey), keyId: opt(z.string()), keySecret: opt(z.string()) });

/** Sends a Cloud request until the predicate holds on its `result`, or fails after `timeoutMs`. */
export async function waitFor<T>(what: string, probe: () => Promise<T>, done: (v: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (done(v)) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: last ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A Kafka create body as clickhousectl's smoke test builds one (fake but well-formed credentials). */
export function kafkaPipeBody(name: string): Record<string, unknown> {
  return {
    name,
    source: {
      kafka: {
        type: 'confluent',
        format: 'JSONEachRow',
        brokers: 'broker.example:9092',
        topics: 'events',
        authentication: 'PLAIN',
        credentials: { username: 'user', password: 'peer-test-password' },
      },
    },
    destination: {
      database: 'default',
      table: name.replaceAll('-', '_'),
      managedTable: true,
      tableDefinition: { engine: { type: 'MergeTree' }, sortingKey: ['id'] },
      columns: [{ name: 'id', type: 'Int64' }],
    },
    fieldMappings: [{ sourceField: 'id', destinationField: 'id' }],
  };
}
