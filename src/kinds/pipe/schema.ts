/**
 * The Pipe manifest spec (hosted-api §3.5–3.8). obsync never creates or deletes pipes: a Pipe
 * manifest manages an existing pipe found by `id`, or by its unique `name` (with `id` given,
 * `name` renames it). Only declared fields are owned. Credentials and keys are sensitive: they
 * are marked here once and never printed.
 */
import * as z from 'zod';

const sensitive = { sensitive: true } as const;
const int = (min: number, max: number) => z.number().int().min(min).max(max).optional();

/** Advanced settings (`PUT …/settings`, hosted-api §3.8); bounds from the reference. */
export const pipeSettingsSchema = z.strictObject({
  streaming_max_insert_wait_ms: int(500, 60000),
  object_storage_concurrency: int(1, 35),
  object_storage_polling_interval_ms: int(100, 3600000),
  object_storage_max_insert_bytes: int(10485760, 53687091200),
  object_storage_max_file_count: int(1, 10000),
  object_storage_use_cluster_function: z.boolean().optional(),
  clickhouse_max_threads: int(0, 64),
  clickhouse_max_insert_threads: int(0, 16),
  clickhouse_min_insert_block_size_bytes: int(0, 10737418240),
  clickhouse_max_download_threads: int(0, 32),
  clickhouse_parallel_distributed_insert_select: int(0, 2),
  clickhouse_parallel_view_processing: z.boolean().optional(),
  kafka_read_committed: z.boolean().optional(),
});

export const pipeScalingSchema = z.strictObject({
  replicas: z.number().int().min(1).max(40).optional(),
  replicaCpuMillicores: z.number().int().min(125).max(2000).optional(),
  replicaMemoryGb: z.number().min(0.5).max(8).optional(),
});

const userPassword = z.strictObject({ username: z.string().min(1), password: z.string().min(1) });
const accessKey = z.strictObject({ accessKeyId: z.string().min(1), secretKey: z.string().min(1) });
const kafkaCredentials = z.union([userPassword, accessKey, z.strictObject({ connectionString: z.string().min(1) }), z.strictObject({ certificate: z.string().min(1), privateKey: z.string().min(1) })], {
  error: () => 'credentials are one of {username, password}, {accessKeyId, secretKey}, {connectionString} or {certificate, privateKey}',
});

const kafka = z.strictObject({
  authentication: z.enum(['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512', 'IAM_ROLE', 'IAM_USER', 'MUTUAL_TLS']).optional(),
  iamRole: z.string().optional(),
  caCertificate: z.string().optional(),
  reversePrivateEndpointIds: z.array(z.string()).optional(),
  credentials: kafkaCredentials.meta(sensitive).optional(),
});

const objectStorage = z.strictObject({
  skipInitialLoad: z.boolean().optional(),
  startAfter: z.string().optional(),
  authentication: z.enum(['IAM_ROLE', 'IAM_USER', 'CONNECTION_STRING', 'SERVICE_ACCOUNT']).optional(),
  iamRole: z.string().optional(),
  connectionString: z.string().min(1).meta(sensitive).optional(),
  path: z.string().optional(),
  azureContainerName: z.string().optional(),
  accessKey: accessKey.meta(sensitive).optional(),
  serviceAccountKey: z.string().min(1).meta(sensitive).optional(),
});

const kinesis = z.strictObject({
  authentication: z.enum(['IAM_ROLE', 'IAM_USER']).optional(),
  iamRole: z.string().optional(),
  accessKey: accessKey.meta(sensitive).optional(),
});

const tableMapping = z.strictObject({
  sourceSchemaName: z.string().min(1),
  sourceTable: z.string().min(1),
  targetTable: z.string().min(1),
  excludedColumns: z.array(z.string()).optional(),
  useCustomSortingKey: z.boolean().optional(),
  sortingKeys: z.array(z.string()).optional(),
  tableEngine: z.enum(['MergeTree', 'ReplacingMergeTree', 'Null']).optional(),
  partitionKey: z.string().optional(),
});

const postgres = z.strictObject({
  credentials: userPassword.meta(sensitive).optional(),
  host: z.string().min(1).optional(),
  port: z.number().int().min(1).max(65535).optional(),
  database: z.string().min(1).optional(),
  tlsHost: z.string().optional(),
  caCertificate: z.string().optional(),
  disableTls: z.boolean().optional(),
  skipCertVerification: z.boolean().optional(),
  settings: z.strictObject({ syncIntervalSeconds: z.number().int().min(1).optional(), pullBatchSize: z.number().int().min(1).optional() }).optional(),
  tableMappingsToAdd: z.array(tableMapping).optional(),
  tableMappingsToRemove: z.array(tableMapping.pick({ sourceSchemaName: true, sourceTable: true, targetTable: true })).optional(),
});

const SOURCE_KINDS = ['kafka', 'objectStorage', 'kinesis', 'postgres'] as const;

export const pipeSourceSchema = z
  .strictObject({ kafka: kafka.optional(), objectStorage: objectStorage.optional(), kinesis: kinesis.optional(), postgres: postgres.optional() })
  .superRefine((src, ctx) => {
    const given = SOURCE_KINDS.filter((k) => src[k] !== undefined);
    if (given.length !== 1) ctx.addIssue({ code: 'custom', path: [], message: `source holds exactly one of ${SOURCE_KINDS.join(', ')} (the pipe's own kind); found ${given.length === 0 ? 'none' : given.join(', ')}` });
  });

export const pipeSpecSchema = z
  .strictObject({
    id: z.string().min(1).optional().meta({ description: 'Id of the existing pipe; with it, name renames the pipe' }),
    name: z.string().min(1).optional().meta({ description: 'Name of the existing pipe (identifies it when id is absent)' }),
    state: z.enum(['running', 'stopped']).optional(),
    settings: pipeSettingsSchema.optional(),
    scaling: pipeScalingSchema.optional(),
    source: pipeSourceSchema.optional(),
    destination: z.strictObject({ columns: z.array(z.strictObject({ name: z.string().min(1), type: z.string().min(1) })) }).optional(),
    fieldMappings: z.array(z.strictObject({ sourceField: z.string().min(1), destinationField: z.string().min(1) })).optional(),
  })
  .superRefine((spec, ctx) => {
    if (spec.id === undefined && spec.name === undefined) ctx.addIssue({ code: 'custom', path: [], message: 'a Pipe manifest names an existing pipe: give spec.id, spec.name, or both (id identifies, name then renames)' });
  });

export type PipeSpec = z.output<typeof pipeSpecSchema>;
