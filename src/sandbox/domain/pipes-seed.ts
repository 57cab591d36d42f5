/** The demo pipes (deterministic ids, all Running): one Kafka, one S3, one Kinesis, one Postgres CDC. */
import type { JsonRecord } from './contract.js';
import type { StoredPipe } from './pipes-record.js';
import { secretHash } from './pipes-source.js';

/** `5eedc1b0-0000-4000-8000-00000000000n`: fixed so docs and tests can name them. */
export function seedPipeId(n: number): string {
  return `5eedc1b0-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
}

export const DEMO_PIPE_IDS = {
  ordersKafka: seedPipeId(1),
  eventsS3: seedPipeId(2),
  clicksKinesis: seedPipeId(3),
  ordersPostgres: seedPipeId(4),
} as const;

const SEEDED_AT = '2026-08-01T09:00:00.000Z';

function columns(...cols: [string, string][]): JsonRecord[] {
  return cols.map(([name, type]) => ({ name, type }));
}

function mappings(cols: JsonRecord[]): JsonRecord[] {
  return cols.map((c) => ({ sourceField: c.name ?? '', destinationField: c.name ?? '' }));
}

function streamingDestination(table: string, cols: JsonRecord[], sortingKey: string[]): JsonRecord {
  return {
    database: 'default',
    table,
    managedTable: true,
    tableDefinition: { engine: { type: 'MergeTree' }, sortingKey },
    columns: cols,
  };
}

export function demoPipes(serviceId: string): StoredPipe[] {
  const base = { serviceId, state: 'Running', createdAt: SEEDED_AT, updatedAt: SEEDED_AT, transition: null };
  const orderCols = columns(['order_id', 'String'], ['customer_id', 'String'], ['amount', 'Float64'], ['created_at', 'DateTime64(3)']);
  const eventCols = columns(
    ['timestamp', 'DateTime64(3)'],
    ['event', 'LowCardinality(String)'],
    ['user_id', 'String'],
    ['payload', 'String'],
  );
  const clickCols = columns(['ts', 'DateTime'], ['page', 'String'], ['session_id', 'String'], ['referrer', 'String']);
  const sha = secretHash('demo-seed-credentials');
  return [
    {
      ...base,
      id: DEMO_PIPE_IDS.ordersKafka,
      name: 'orders-kafka',
      kind: 'kafka',
      scaling: { replicas: 2, replicaCpuMillicores: 500, replicaMemoryGb: 2, concurrency: null },
      source: {
        type: 'confluent',
        format: 'JSONEachRow',
        brokers: 'pkc-12345.eu-west-1.aws.confluent.cloud:9092',
        topics: 'orders',
        consumerGroup: 'clickpipes-orders',
        authentication: 'PLAIN',
        offset: { strategy: 'from_latest', timestamp: null },
        // The live API answers null for an unset list (clickhousectl list_click_pipes_with_null_array_fields).
        reversePrivateEndpointIds: null,
      },
      secrets: { credentials: sha },
      destination: streamingDestination('orders', orderCols, ['created_at', 'order_id']),
      fieldMappings: mappings(orderCols),
      settings: { streaming_max_insert_wait_ms: 5000 },
    },
    {
      ...base,
      id: DEMO_PIPE_IDS.eventsS3,
      name: 'events-s3',
      kind: 'objectStorage',
      scaling: { replicas: 1, replicaCpuMillicores: 250, replicaMemoryGb: 1, concurrency: 4 },
      source: {
        type: 's3',
        format: 'JSONEachRow',
        url: 'https://acme-events.s3.eu-west-1.amazonaws.com/events/*.json.gz',
        compression: 'gzip',
        isContinuous: true,
        authentication: 'IAM_USER',
        delimiter: null,
      },
      secrets: { accessKey: sha },
      destination: streamingDestination('events', eventCols, ['timestamp', 'event']),
      fieldMappings: mappings(eventCols),
      settings: { object_storage_concurrency: 4, object_storage_polling_interval_ms: 30000, object_storage_use_cluster_function: true },
    },
    {
      ...base,
      id: DEMO_PIPE_IDS.clicksKinesis,
      name: 'clicks-kinesis',
      kind: 'kinesis',
      scaling: { replicas: 1, replicaCpuMillicores: 500, replicaMemoryGb: 0.5, concurrency: null },
      source: {
        format: 'JSONEachRow',
        streamName: 'web-clicks',
        region: 'eu-west-1',
        iteratorType: 'LATEST',
        useEnhancedFanOut: false,
        authentication: 'IAM_ROLE',
        iamRole: 'arn:aws:iam::123456789012:role/clickpipes-kinesis',
      },
      secrets: {},
      destination: streamingDestination('clicks', clickCols, ['ts', 'page']),
      fieldMappings: mappings(clickCols),
      settings: { streaming_max_insert_wait_ms: 2000, clickhouse_max_threads: 8 },
    },
    {
      ...base,
      id: DEMO_PIPE_IDS.ordersPostgres,
      name: 'orders-postgres',
      kind: 'postgres',
      scaling: null,
      source: {
        type: 'rdspostgres',
        host: 'orders-db.abcdefghij.eu-west-1.rds.amazonaws.com',
        port: 5432,
        database: 'orders',
        authentication: 'basic',
        settings: {
          replicationMode: 'cdc',
          syncIntervalSeconds: 60,
          pullBatchSize: 100000,
          publicationName: 'clickpipes_pub',
          allowNullableColumns: true,
        },
        tableMappings: [
          { sourceSchemaName: 'public', sourceTable: 'orders', targetTable: 'public_orders' },
          { sourceSchemaName: 'public', sourceTable: 'customers', targetTable: 'public_customers' },
        ],
      },
      secrets: { credentials: sha },
      destination: { database: 'orders_replica' },
      fieldMappings: [],
      settings: {},
    },
  ];
}
