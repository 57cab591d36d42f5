/**
 * `POST …/clickpipes` (reference/hosted-api.md §3.1-3.2, clickhousectl's ClickPipePostRequest
 * model and its notes on what the live API rejects): one source member, a destination, field
 * mappings, optional scaling and settings. Secrets are accepted and kept only as hashes.
 */
import type { JsonRecord } from './contract.js';
import type { PipeScaling } from './pipes-record.js';
import { DB_KINDS, isSourceKind, PATCHABLE, secretHash, WORKLOAD_IDENTITY, type SourceKind } from './pipes-source.js';
import { DEFAULT_SCALING, parseScalingPatch } from './pipes-scaling.js';
import { isPlainObject, mergeSettings } from './pipes-settings.js';

const TOP_LEVEL = new Set(['name', 'source', 'destination', 'fieldMappings', 'scaling', 'settings']);

/** Members each source kind cannot do without (non-optional in clickhousectl's request models). */
const REQUIRED: Readonly<Record<SourceKind, readonly string[]>> = {
  kafka: ['type', 'format', 'brokers', 'topics', 'authentication'],
  kinesis: ['format', 'streamName', 'region', 'iteratorType', 'authentication'],
  objectStorage: ['type', 'format', 'url'],
  // serviceAccountKey: required with SERVICE_ACCOUNT only (./pipes-source-checks.ts).
  pubsub: ['format', 'projectId', 'topic', 'authentication', 'seekType'],
  postgres: ['host', 'port', 'database', 'credentials', 'tableMappings'],
  mysql: ['host', 'port', 'credentials', 'tableMappings'],
  mongodb: ['uri', 'credentials', 'tableMappings'],
  bigquery: ['credentials', 'tableMappings'],
};

const ENUMS: Readonly<Partial<Record<SourceKind, Readonly<Record<string, readonly string[]>>>>> = {
  kafka: {
    type: ['kafka', 'redpanda', 'msk', 'gcmk', 'confluent', 'warpstream', 'azureeventhub', 'dokafka'],
    format: ['JSONEachRow', 'Avro', 'AvroConfluent', 'Protobuf'],
    authentication: ['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512', 'IAM_ROLE', 'IAM_USER', 'MUTUAL_TLS', WORKLOAD_IDENTITY],
  },
  kinesis: {
    format: ['JSONEachRow', 'Avro', 'AvroConfluent'],
    iteratorType: ['TRIM_HORIZON', 'LATEST', 'AT_TIMESTAMP'],
    authentication: ['IAM_ROLE', 'IAM_USER'],
  },
  objectStorage: {
    type: ['s3', 'gcs', 'dospaces', 'azureblobstorage', 'cloudflarer2', 'ovhobjectstorage'],
    format: ['JSONEachRow', 'JSONAsObject', 'CSV', 'CSVWithNames', 'TabSeparated', 'TabSeparatedWithNames', 'Parquet', 'Avro'],
  },
};

/** Write-only members per kind: the patchable secrets, and BigQuery's credentials. */
function secretMembers(kind: SourceKind): string[] {
  const fromPatch = Object.entries(PATCHABLE[kind])
    .filter(([, t]) => t === 'secret')
    .map(([k]) => k);
  return kind === 'bigquery' ? [...fromPatch, 'credentials'] : fromPatch;
}

export interface NewPipe {
  name: string;
  kind: SourceKind;
  source: JsonRecord;
  secrets: Record<string, string>;
  destination: JsonRecord;
  fieldMappings: JsonRecord[];
  scaling: PipeScaling | null;
  settings: JsonRecord;
}

type Parsed<T> = T | string;

function parseSource(raw: unknown): Parsed<{ kind: SourceKind; source: JsonRecord; secrets: Record<string, string> }> {
  if (!isPlainObject(raw)) return 'source must be an object';
  const members = Object.entries(raw).filter(([k, v]) => k !== 'validateSamples' && v !== null && v !== undefined);
  if (members.length !== 1)
    return 'source must have exactly one member (kafka, objectStorage, kinesis, pubsub, postgres, mysql, bigquery, mongodb)';
  const [kind, value] = members[0] as [string, unknown];
  if (!isSourceKind(kind)) return `source.${kind} is not a known source kind`;
  if (!isPlainObject(value)) return `source.${kind} must be an object`;
  for (const field of REQUIRED[kind]) {
    const v = value[field];
    if (v === undefined || v === null || v === '') return `source.${kind}.${field}: Required`;
  }
  for (const [field, allowed] of Object.entries(ENUMS[kind] ?? {})) {
    if (!allowed.includes(value[field] as string)) return `source.${kind}.${field} must be one of ${allowed.join(', ')}`;
  }
  for (const field of ['caCertificate', 'tlsHost', 'iamRole'] as const) {
    if (value[field] === '') return `source.${kind}.${field} must not be empty`;
  }
  const source = JSON.parse(JSON.stringify(value)) as JsonRecord;
  const secrets: Record<string, string> = {};
  for (const member of secretMembers(kind)) {
    if (source[member] === undefined) continue;
    secrets[member] = secretHash(source[member]);
    delete source[member];
  }
  const registry = source.schemaRegistry;
  if (isPlainObject(registry) && registry.credentials !== undefined) {
    secrets['schemaRegistry.credentials'] = secretHash(registry.credentials);
    delete registry.credentials;
  }
  if (kind === 'kafka' && source.reversePrivateEndpointIds === undefined) source.reversePrivateEndpointIds = null;
  return { kind, source, secrets };
}

function checkTableDefinition(raw: unknown): string | undefined {
  if (raw === undefined) return undefined;
  if (!isPlainObject(raw)) return 'destination.tableDefinition must be an object';
  // Empty values are refused, not defaulted (clickhousectl models.rs, ClickPipeDestinationTableDefinition).
  for (const key of ['partitionBy', 'primaryKey'] as const)
    if (raw[key] === '') return `destination.tableDefinition.${key} must not be empty`;
  if (Array.isArray(raw.sortingKey) && raw.sortingKey.length === 0) return 'destination.tableDefinition.sortingKey must not be empty';
  const engine = raw.engine;
  if (!isPlainObject(engine) || typeof engine.type !== 'string') return 'destination.tableDefinition.engine.type: Required';
  if (Array.isArray(engine.columnIds) && (engine.columnIds.length === 0 || engine.type !== 'SummingMergeTree')) {
    return 'destination.tableDefinition.engine.columnIds is only valid, non-empty, for SummingMergeTree';
  }
  return undefined;
}

function checkColumns(raw: unknown, label: string, fields: readonly [string, string]): JsonRecord[] | string {
  if (!Array.isArray(raw)) return `${label} must be an array`;
  for (const [i, c] of raw.entries()) {
    if (!isPlainObject(c) || fields.some((f) => typeof c[f] !== 'string' || c[f] === ''))
      return `${label}.${i} must be {${fields.join(', ')}} with non-empty strings`;
  }
  return (raw as Record<string, string>[]).map((c) => ({ [fields[0]]: c[fields[0]] ?? '', [fields[1]]: c[fields[1]] ?? '' }));
}

/** Destination for the pipe's kind: table-level fields only for non-database pipes. */
function parseDestination(raw: unknown, kind: SourceKind): Parsed<JsonRecord> {
  if (!isPlainObject(raw)) return 'destination must be an object';
  if (typeof raw.database !== 'string' || raw.database === '') return 'destination.database: Required';
  const db = DB_KINDS.includes(kind);
  const out = JSON.parse(JSON.stringify(raw)) as JsonRecord;
  delete out.roles;
  if (Array.isArray(raw.roles) && raw.roles.some((r) => r === 'clickpipes' || r === 'clickpipes_system'))
    return 'destination.roles: clickpipes and clickpipes_system are reserved';
  if (db) {
    for (const key of ['table', 'managedTable', 'tableDefinition', 'columns']) {
      if (raw[key] !== undefined) return `destination.${key} is not supported for ${kind} ClickPipes`;
    }
    return out;
  }
  if (typeof raw.table !== 'string' || raw.table === '') return 'destination.table: Required';
  const problem = checkTableDefinition(raw.tableDefinition);
  if (problem) return problem;
  const columns = checkColumns(raw.columns ?? [], 'destination.columns', ['name', 'type']);
  if (typeof columns === 'string') return columns;
  out.columns = columns;
  return out;
}

function parseScaling(raw: unknown, kind: SourceKind): Parsed<PipeScaling | null> {
  if (DB_KINDS.includes(kind))
    return raw === undefined ? null : `scaling is not supported for ${kind} ClickPipes; use clickpipesCdcScaling`;
  if (raw === undefined) return { ...DEFAULT_SCALING };
  const parsed = parseScalingPatch(raw, 'scaling.');
  return typeof parsed === 'string' ? parsed : { ...DEFAULT_SCALING, ...parsed };
}

/** Validates a create body completely; a message naming the first offending field on failure. */
export function parseNewPipe(body: unknown): Parsed<NewPipe> {
  if (!isPlainObject(body)) return 'body must be an object';
  for (const key of Object.keys(body)) if (!TOP_LEVEL.has(key)) return `request body property can't be validated: ${key}`;
  const { name } = body;
  if (typeof name !== 'string' || name.length < 1 || name.length > 255) return 'name must be a string of 1 to 255 characters';
  const src = parseSource(body.source);
  if (typeof src === 'string') return src;
  const destination = parseDestination(body.destination, src.kind);
  if (typeof destination === 'string') return destination;
  const db = DB_KINDS.includes(src.kind);
  let fieldMappings: JsonRecord[] = [];
  if (body.fieldMappings !== undefined) {
    if (db) return `fieldMappings is not supported for ${src.kind} ClickPipes`;
    const fm = checkColumns(body.fieldMappings, 'fieldMappings', ['sourceField', 'destinationField']);
    if (typeof fm === 'string') return fm;
    fieldMappings = fm;
  }
  const scaling = parseScaling(body.scaling, src.kind);
  if (typeof scaling === 'string') return scaling;
  let settings: JsonRecord = {};
  if (body.settings !== undefined) {
    // An empty object is refused (clickhousectl models.rs, ClickPipePostRequest.settings).
    if (isPlainObject(body.settings) && Object.keys(body.settings).length === 0) return 'settings must not be empty';
    const merged = mergeSettings({}, body.settings, 'settings.');
    if ('error' in merged) return merged.error;
    settings = merged.value;
  }
  return { name, kind: src.kind, source: src.source, secrets: src.secrets, destination, fieldMappings, scaling, settings };
}

/** The state a new pipe settles in once provisioned: one-shot object storage completes. */
export function settledState(pipe: NewPipe): string {
  return pipe.kind === 'objectStorage' && pipe.source.isContinuous !== true ? 'Completed' : 'Running';
}
