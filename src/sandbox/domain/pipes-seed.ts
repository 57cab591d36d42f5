/** The demo pipes (hosted variant): one of each source kind obsync manages, all Running, fixed ids. */
import type { JsonRecord } from './contract.js';

export const DEMO_PIPE_IDS = {
  ordersKafka: 'c0000000-0000-4000-8000-000000000001',
  eventsS3: 'c0000000-0000-4000-8000-000000000002',
  clicksKinesis: 'c0000000-0000-4000-8000-000000000003',
  ordersPostgres: 'c0000000-0000-4000-8000-000000000004',
} as const;

const SETTINGS_STREAMING = {
  streaming_max_insert_wait_ms: 5000,
  clickhouse_max_threads: 8,
  clickhouse_max_insert_threads: 1,
  clickhouse_min_insert_block_size_bytes: 1073741824,
  clickhouse_max_download_threads: 4,
  clickhouse_parallel_distributed_insert_select: 2,
  clickhouse_parallel_view_processing: false,
};

function pipe(id: string, serviceId: string, name: string, source: JsonRecord, destination: JsonRecord, extra: JsonRecord, at: string): JsonRecord {
  return { id, serviceId, name, state: 'Running', source, destination, createdAt: at, updatedAt: at, ...extra };
}

export function demoPipes(serviceId: string, at: string): JsonRecord[] {
  const columns = (names: [string, string][]) => names.map(([name, type]) => ({ name, type }));
  const mappings = (names: string[]) => names.map((n) => ({ sourceField: n, destinationField: n }));
  const scaling = { replicas: 1, replicaCpuMillicores: 500, replicaMemoryGb: 2 };
  return [
    pipe(
      DEMO_PIPE_IDS.ordersKafka,
      serviceId,
      'orders-kafka',
      { kafka: { type: 'confluent', format: 'JSONEachRow', brokers: 'pkc-0000.eu-west-1.aws.confluent.cloud:9092', topics: 'orders', consumerGroup: 'clickpipes-orders', authentication: 'PLAIN', offset: { strategy: 'from_latest' } } },
      { database: 'default', table: 'orders', managedTable: true, columns: columns([['order_id', 'String'], ['amount', 'Float64'], ['ts', 'DateTime64(3)']]) },
      { scaling, settings: { ...SETTINGS_STREAMING }, fieldMappings: mappings(['order_id', 'amount', 'ts']) },
      at,
    ),
    pipe(
      DEMO_PIPE_IDS.eventsS3,
      serviceId,
      'events-s3',
      { objectStorage: { type: 's3', format: 'JSONEachRow', url: 'https://example-bucket.s3.amazonaws.com/events/*.json', compression: 'auto', isContinuous: true, authentication: 'IAM_ROLE', iamRole: 'arn:aws:iam::123456789012:role/clickpipes' } },
      { database: 'default', table: 'events', managedTable: true, columns: columns([['event', 'String'], ['ts', 'DateTime']]) },
      {
        scaling: { ...scaling, concurrency: 1 },
        settings: { object_storage_concurrency: 1, object_storage_polling_interval_ms: 30000, object_storage_max_insert_bytes: 10737418240, object_storage_max_file_count: 100, object_storage_use_cluster_function: true, clickhouse_max_threads: 8 },
        fieldMappings: mappings(['event', 'ts']),
      },
      at,
    ),
    pipe(
      DEMO_PIPE_IDS.clicksKinesis,
      serviceId,
      'clicks-kinesis',
      { kinesis: { format: 'JSONEachRow', streamName: 'clicks', region: 'eu-west-1', iteratorType: 'LATEST', useEnhancedFanOut: false, authentication: 'IAM_USER' } },
      { database: 'default', table: 'clicks', managedTable: true, columns: columns([['url', 'String'], ['ts', 'DateTime']]) },
      { scaling, settings: { ...SETTINGS_STREAMING }, fieldMappings: mappings(['url', 'ts']) },
      at,
    ),
    pipe(
      DEMO_PIPE_IDS.ordersPostgres,
      serviceId,
      'orders-postgres',
      { postgres: { type: 'postgres', host: 'db.example.com', port: 5432, database: 'shop', authentication: 'basic', settings: { replicationMode: 'cdc', syncIntervalSeconds: 10, pullBatchSize: 100000 }, tableMappings: [{ sourceSchemaName: 'public', sourceTable: 'orders', targetTable: 'public_orders' }] } },
      { database: 'shop' },
      { settings: { clickhouse_max_threads: 8 } },
      at,
    ),
  ];
}
