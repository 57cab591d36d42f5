/**
 * The Pipe manifest spec (hosted-api §3.5–3.8). obsync never creates or deletes pipes: a Pipe
 * manifest manages an existing pipe found by `id`, or by its unique `name` (with `id` given,
 * `name` renames it; once obsync owns the pipe, it is found by its recorded id, so a changed
 * `name` renames it too). Only declared fields are owned. Credentials and keys are sensitive: they
 * are marked here once and never printed.
 */
import * as z from 'zod';

const sensitive = { sensitive: true } as const;
const int = (min: number, max: number) => z.number().int().min(min).max(max).optional();

/** Advanced settings (`PUT …/settings`, hosted-api §3.8); bounds from the reference. */
const SECRET = 'Sensitive: never printed, logged or exported; compared by a keyed fingerprint and sent only when it changes.';
/** A sensitive field: marked once here (./sensitive.ts reads the mark), described for editors. */
const secret = (description: string) => ({ ...sensitive, description: `${description} ${SECRET}` });
const insertSide = 'Insert side (the ClickHouse service).';

export const pipeSettingsSchema = z
  .strictObject({
    streaming_max_insert_wait_ms: int(500, 60000).describe(
      'Streaming pipes (Kafka, Kinesis): longest wait before a batch is inserted, in milliseconds (500-60,000).',
    ),
    object_storage_concurrency: int(1, 35).describe('Object storage: files read in parallel (1-35).'),
    object_storage_polling_interval_ms: int(100, 3600000).describe(
      'Continuous object storage: how often new files are looked for, in milliseconds (100-3,600,000).',
    ),
    object_storage_max_insert_bytes: int(10485760, 53687091200).describe('Object storage: bytes per insert (10 MiB-50 GiB).'),
    object_storage_max_file_count: int(1, 10000).describe('Object storage: files per insert (1-10,000).'),
    object_storage_use_cluster_function: z
      .boolean()
      .optional()
      .describe('Object storage: read with the cluster function (spread over the replicas).'),
    clickhouse_max_threads: int(0, 64).describe(`${insertSide} max_threads (0-64).`),
    clickhouse_max_insert_threads: int(0, 16).describe(`${insertSide} max_insert_threads (0-16).`),
    clickhouse_min_insert_block_size_bytes: int(0, 10737418240).describe(`${insertSide} min_insert_block_size_bytes (0-10 GiB).`),
    clickhouse_max_download_threads: int(0, 32).describe(`${insertSide} max_download_threads (0-32).`),
    clickhouse_parallel_distributed_insert_select: int(0, 2).describe(`${insertSide} parallel_distributed_insert_select (0-2).`),
    clickhouse_parallel_view_processing: z.boolean().optional().describe(`${insertSide} parallel_view_processing.`),
    kafka_read_committed: z.boolean().optional().describe('Kafka: read only committed messages (isolation level read_committed).'),
  })
  .meta({
    id: 'PipeSettings',
    description: 'Advanced settings of the pipe (sent with PUT .../settings); the service publishes no defaults.',
  });

export const pipeScalingSchema = z
  .strictObject({
    replicas: z.number().int().min(1).max(40).optional().describe('Replicas of the pipe (1-40).'),
    replicaCpuMillicores: z.number().int().min(125).max(2000).optional().describe('CPU per replica, in millicores (125-2000).'),
    replicaMemoryGb: z.number().min(0.5).max(8).optional().describe('Memory per replica, in GB (0.5-8).'),
  })
  .meta({ id: 'PipeScaling', description: 'Scaling of a streaming or object-storage pipe (sent with PATCH .../scaling).' });

const userPassword = z
  .strictObject({
    username: z.string().min(1).describe('User name.'),
    password: z.string().min(1).describe('Password; use ${env:NAME} or ${file:PATH}.'),
  })
  .meta({ id: 'UserPassword', description: 'A user name and password.' });
const accessKey = z
  .strictObject({
    accessKeyId: z.string().min(1).describe('Access key id.'),
    secretKey: z.string().min(1).describe('Secret access key; use ${env:NAME} or ${file:PATH}.'),
  })
  .meta({ id: 'AccessKey', description: 'A cloud access key (IAM_USER authentication).' });
const kafkaCredentials = z
  .union(
    [
      userPassword,
      accessKey,
      z
        .strictObject({ connectionString: z.string().min(1).describe('Connection string (Azure Event Hubs).') })
        .describe('A connection string.'),
      z
        .strictObject({
          certificate: z.string().min(1).describe('Client certificate, PEM.'),
          privateKey: z.string().min(1).describe('Private key of the certificate, PEM.'),
        })
        .describe('A client certificate (MUTUAL_TLS).'),
    ],
    {
      error: () => 'credentials are one of {username, password}, {accessKeyId, secretKey}, {connectionString} or {certificate, privateKey}',
    },
  )
  .meta({
    id: 'KafkaCredentials',
    description: 'Kafka credentials: {username, password}, {accessKeyId, secretKey}, {connectionString} or {certificate, privateKey}.',
  });

/**
 * GCP workload identity (2026-09-05 spec, hosted-api §0.1; Kafka gcmk, GCS, Pub/Sub): the service's own GCP principal
 * authenticates, so no credentials go with it; the principal to grant is served at GET …/clickpipes/context.
 */
export const WORKLOAD_IDENTITY = 'SERVICE_ACCOUNT_WORKLOAD_IDENTITY';
const WI_NOTE = `${WORKLOAD_IDENTITY} (Google Cloud: the service's own principal, no credentials)`;

const iamRole = z.string().optional().describe('ARN of the IAM role to assume (IAM_ROLE authentication).');
const caCertificate = z.string().optional().describe('CA certificate (PEM) to trust for TLS.');

const kafka = z
  .strictObject({
    authentication: z
      .enum(['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512', 'IAM_ROLE', 'IAM_USER', 'MUTUAL_TLS', WORKLOAD_IDENTITY])
      .optional()
      .describe(
        'Authentication: PLAIN, SCRAM-SHA-256, SCRAM-SHA-512, IAM_ROLE, IAM_USER, MUTUAL_TLS or, for Google Cloud Managed Kafka ' +
          `(gcmk), ${WI_NOTE} (which apply depends on the broker type).`,
      ),
    iamRole,
    caCertificate,
    reversePrivateEndpointIds: z.array(z.string()).optional().describe('Ids of reverse private endpoints to reach the brokers through.'),
    credentials: kafkaCredentials.meta(secret('Credentials for the brokers.')).optional(),
  })
  .meta({ id: 'KafkaSource', description: 'The patchable fields of a Kafka pipe source (brokers, topics and format cannot change).' });

const objectStorage = z
  .strictObject({
    skipInitialLoad: z.boolean().optional().describe('Skip the files that exist when the pipe starts.'),
    startAfter: z.string().optional().describe('Read only files whose key sorts after this one.'),
    authentication: z
      .enum(['IAM_ROLE', 'IAM_USER', 'CONNECTION_STRING', 'SERVICE_ACCOUNT', WORKLOAD_IDENTITY])
      .optional()
      .describe(`Authentication: IAM_ROLE, IAM_USER, CONNECTION_STRING (Azure), SERVICE_ACCOUNT or ${WI_NOTE} (GCS).`),
    iamRole,
    connectionString: z.string().min(1).meta(secret('Azure Blob Storage connection string.')).optional(),
    path: z.string().optional().describe('Path (Azure Blob Storage).'),
    azureContainerName: z.string().optional().describe('Container (Azure Blob Storage).'),
    accessKey: accessKey.meta(secret('Access key (IAM_USER).')).optional(),
    serviceAccountKey: z.string().min(1).meta(secret('Service account key, base64 JSON (GCS).')).optional(),
  })
  .meta({
    id: 'ObjectStorageSource',
    description: 'The patchable fields of an object-storage pipe source (type, URL, format cannot change).',
  });

const kinesis = z
  .strictObject({
    authentication: z.enum(['IAM_ROLE', 'IAM_USER']).optional().describe('Authentication: IAM_ROLE or IAM_USER.'),
    iamRole,
    accessKey: accessKey.meta(secret('Access key (IAM_USER).')).optional(),
  })
  .meta({ id: 'KinesisSource', description: 'The patchable fields of a Kinesis pipe source (stream, region, format cannot change).' });

const pubsub = z
  .strictObject({
    authentication: z
      .enum(['SERVICE_ACCOUNT', WORKLOAD_IDENTITY])
      .optional()
      .describe(`Authentication: SERVICE_ACCOUNT (with serviceAccountKey) or ${WI_NOTE}.`),
    serviceAccountKey: z.string().min(1).meta(secret('Service account key, base64 JSON (SERVICE_ACCOUNT).')).optional(),
    ackDeadline: z.number().int().min(1).optional().describe('Seconds Pub/Sub waits for an acknowledgement (at least 1).'),
  })
  .meta({
    id: 'PubSubSource',
    description: 'The patchable fields of a Google Cloud Pub/Sub pipe source (project, topic, format cannot change).',
  });

const tableMapping = z
  .strictObject({
    sourceSchemaName: z.string().min(1).describe('Schema of the source table.'),
    sourceTable: z.string().min(1).describe('Source table.'),
    targetTable: z.string().min(1).describe('Destination table in ClickHouse.'),
    excludedColumns: z.array(z.string()).optional().describe('Columns not replicated.'),
    useCustomSortingKey: z.boolean().optional().describe('Use sortingKeys instead of the primary key.'),
    sortingKeys: z.array(z.string()).optional().describe('Sorting key columns of the destination table.'),
    tableEngine: z
      .enum(['MergeTree', 'ReplacingMergeTree', 'Null'])
      .optional()
      .describe('Engine of the destination table: MergeTree, ReplacingMergeTree or Null.'),
    partitionKey: z.string().optional().describe('Partition key of the destination table.'),
  })
  .meta({ id: 'PostgresTableMapping', description: 'A replicated table; a mapping cannot be edited: remove it and add it again.' });

const postgres = z
  .strictObject({
    credentials: userPassword.meta(secret('User and password of the database.')).optional(),
    host: z.string().min(1).optional().describe('Host name of the database.'),
    port: z.number().int().min(1).max(65535).optional().describe('Port of the database.'),
    database: z.string().min(1).optional().describe('Database name.'),
    tlsHost: z.string().optional().describe('Host name checked against the TLS certificate.'),
    caCertificate,
    disableTls: z.boolean().optional().describe('Connect without TLS.'),
    skipCertVerification: z.boolean().optional().describe('Do not verify the TLS certificate.'),
    settings: z
      .strictObject({
        syncIntervalSeconds: z.number().int().min(1).optional().describe('Seconds between syncs (at least 1).'),
        pullBatchSize: z.number().int().min(1).optional().describe('Rows per pull (at least 1).'),
      })
      .optional()
      .describe('Replication settings that can change.'),
    tableMappingsToAdd: z.array(tableMapping).optional().describe('Tables to start replicating.'),
    tableMappingsToRemove: z
      .array(
        tableMapping
          .pick({ sourceSchemaName: true, sourceTable: true, targetTable: true })
          .describe('A replicated table, by source and destination.'),
      )
      .optional()
      .describe('Tables to stop replicating.'),
  })
  .meta({ id: 'PostgresSource', description: 'The patchable fields of a Postgres (CDC) pipe source.' });

const SOURCE_KINDS = ['kafka', 'objectStorage', 'kinesis', 'pubsub', 'postgres'] as const;

/** The members that carry credentials, per source kind: none goes with workload identity. */
const CREDENTIAL_MEMBERS = ['credentials', 'accessKey', 'serviceAccountKey', 'connectionString', 'iamRole'] as const;

export const pipeSourceSchema = z
  .strictObject({
    kafka: kafka.optional().describe('For a Kafka pipe.'),
    objectStorage: objectStorage.optional().describe('For an object-storage pipe (S3, GCS, Azure Blob, ...).'),
    kinesis: kinesis.optional().describe('For a Kinesis pipe.'),
    pubsub: pubsub.optional().describe('For a Google Cloud Pub/Sub pipe.'),
    postgres: postgres.optional().describe('For a Postgres pipe.'),
  })
  .superRefine((src, ctx) => {
    for (const kind of ['kafka', 'objectStorage', 'pubsub'] as const) {
      const members: Record<string, unknown> | undefined = src[kind];
      if (members?.authentication !== WORKLOAD_IDENTITY) continue;
      for (const member of CREDENTIAL_MEMBERS)
        if (members[member] !== undefined)
          ctx.addIssue({
            code: 'custom',
            path: [kind, member],
            message:
              `${member} cannot go with ${WORKLOAD_IDENTITY}: the service's own GCP principal authenticates (grant it access; ` +
              `GET …/clickpipes/context names it); remove ${member}`,
          });
    }
    const given = SOURCE_KINDS.filter((k) => src[k] !== undefined);
    if (given.length !== 1)
      ctx.addIssue({
        code: 'custom',
        path: [],
        message:
          `source holds exactly one of ${SOURCE_KINDS.join(', ')} (the pipe's own kind); found ` +
          `${given.length === 0 ? 'none' : given.join(', ')}`,
      });
  })
  .meta({
    id: 'PipeSource',
    description:
      'The patchable source fields: exactly one of kafka, objectStorage, kinesis, pubsub, postgres ' +
      "(the pipe's own kind, which cannot change).",
  });

export const pipeSpecSchema = z
  .strictObject({
    id: z.string().min(1).optional().meta({ description: 'Id of the existing pipe; with it, name renames the pipe.' }),
    name: z
      .string()
      .min(1)
      .optional()
      .meta({
        description:
          'Name of the existing pipe (identifies it when id is absent; must be unique). Once obsync owns the pipe, a changed name ' +
          'renames it.',
      }),
    state: z.enum(['running', 'stopped']).optional().describe('Desired state: running or stopped (obsync starts or stops the pipe).'),
    settings: pipeSettingsSchema.optional().describe('Advanced settings; only the keys given are owned.'),
    scaling: pipeScalingSchema.optional().describe('Scaling; only the keys given are owned.'),
    source: pipeSourceSchema.optional().describe('Source fields that can change (credentials, connection, table mappings).'),
    destination: z
      .strictObject({
        columns: z
          .array(
            z
              .strictObject({
                name: z.string().min(1).describe('Column name.'),
                type: z.string().min(1).describe('ClickHouse type, e.g. String, DateTime64(3).'),
              })
              .describe('A column of the destination table.'),
          )
          .describe('Columns of the destination table (the table schema itself is not changed).'),
      })
      .optional()
      .describe('Destination fields that can change.'),
    fieldMappings: z
      .array(
        z
          .strictObject({
            sourceField: z.string().min(1).describe('Field of the incoming data.'),
            destinationField: z.string().min(1).describe('Column it is written to.'),
          })
          .describe('A source field written to a column.'),
      )
      .optional()
      .describe('Which source field goes to which column (streaming and object-storage pipes).'),
  })
  .superRefine((spec, ctx) => {
    if (spec.id === undefined && spec.name === undefined)
      ctx.addIssue({
        code: 'custom',
        path: [],
        message: 'a Pipe manifest names an existing pipe: give spec.id, spec.name, or both (id identifies, name then renames)',
      });
  })
  .meta({
    id: 'PipeSpec',
    description: 'An existing pipe (by id or unique name) and the fields obsync owns; pipes are never created or deleted by obsync.',
  });

export type PipeSpec = z.output<typeof pipeSpecSchema>;
