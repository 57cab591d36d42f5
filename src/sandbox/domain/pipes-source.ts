/**
 * What a pipe PATCH may change in `source.<kind>` (reference/hosted-api.md §3.5) and which
 * members are write-only secrets (§3.6). Secrets are never stored in clear: only a SHA-256 of
 * their canonical JSON is kept, so a change can be detected without the value being readable.
 */
import { createHash } from 'node:crypto';
import type { JsonRecord, JsonValue } from './contract.js';
import { text } from './json.js';
import { isPlainObject } from './pipes-settings.js';

/** GCP workload identity (2026-09-05 spec): the rules that go with it are in ./pipes-source-checks.ts. */
export const WORKLOAD_IDENTITY = 'SERVICE_ACCOUNT_WORKLOAD_IDENTITY';

export const SOURCE_KINDS = ['kafka', 'objectStorage', 'kinesis', 'pubsub', 'postgres', 'mysql', 'bigquery', 'mongodb'] as const;
export type SourceKind = (typeof SOURCE_KINDS)[number];
export const DB_KINDS: readonly SourceKind[] = ['postgres', 'mysql', 'mongodb', 'bigquery'];

type FieldType =
  | 'string'
  | 'port'
  | 'bool'
  | 'stringArray'
  | 'secret'
  | 'int1'
  | 'tableMappings'
  | { enum: readonly string[] }
  | 'dbSettings';

const DB_COMMON: Record<string, FieldType> = {
  credentials: 'secret',
  tlsHost: 'string',
  caCertificate: 'string',
  disableTls: 'bool',
  skipCertVerification: 'bool',
  tableMappingsToAdd: 'tableMappings',
  tableMappingsToRemove: 'tableMappings',
  settings: 'dbSettings',
};

/** Patchable members per kind; anything else in `source.<kind>` is immutable. */
export const PATCHABLE: Readonly<Record<SourceKind, Readonly<Record<string, FieldType>>>> = {
  kafka: {
    authentication: { enum: ['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512', 'IAM_ROLE', 'IAM_USER', 'MUTUAL_TLS', WORKLOAD_IDENTITY] },
    iamRole: 'string',
    caCertificate: 'string',
    reversePrivateEndpointIds: 'stringArray',
    credentials: 'secret',
  },
  objectStorage: {
    skipInitialLoad: 'bool',
    startAfter: 'string',
    authentication: { enum: ['IAM_ROLE', 'IAM_USER', 'CONNECTION_STRING', 'SERVICE_ACCOUNT', WORKLOAD_IDENTITY] },
    iamRole: 'string',
    connectionString: 'secret',
    path: 'string',
    azureContainerName: 'string',
    accessKey: 'secret',
    serviceAccountKey: 'secret',
  },
  kinesis: { authentication: { enum: ['IAM_ROLE', 'IAM_USER'] }, iamRole: 'string', accessKey: 'secret' },
  pubsub: { authentication: { enum: ['SERVICE_ACCOUNT', WORKLOAD_IDENTITY] }, serviceAccountKey: 'secret', ackDeadline: 'int1' },
  postgres: { ...DB_COMMON, host: 'string', port: 'port', database: 'string' },
  mysql: {
    ...DB_COMMON,
    host: 'string',
    port: 'port',
    authentication: { enum: ['basic', 'IAM_ROLE'] },
    iamRole: 'string',
    serverId: 'int1',
  },
  mongodb: {
    ...DB_COMMON,
    uri: 'string',
    readPreference: { enum: ['primary', 'primaryPreferred', 'secondary', 'secondaryPreferred', 'nearest'] },
  },
  bigquery: {},
};

const DB_SETTINGS: Readonly<Record<string, Readonly<Record<string, 'int1' | 'bool'>>>> = {
  postgres: { syncIntervalSeconds: 'int1', pullBatchSize: 'int1' },
  mysql: { syncIntervalSeconds: 'int1', pullBatchSize: 'int1', useCompression: 'bool' },
  mongodb: { syncIntervalSeconds: 'int1', pullBatchSize: 'int1' },
};

export function secretHash(value: unknown): string {
  return createHash('sha256').update(JSON.stringify(value)).digest('hex');
}

export function isSourceKind(value: string): value is SourceKind {
  return (SOURCE_KINDS as readonly string[]).includes(value);
}

/** A validated source patch: plain members to set, secrets (hashes) to set, mapping edits. */
export interface SourcePatch {
  set: JsonRecord;
  secrets: Record<string, string>;
  settings: JsonRecord;
  add: JsonRecord[];
  remove: JsonRecord[];
}

/** `schema.table` of a table mapping (the identity used by add/remove). */
export function mappingKey(m: JsonRecord): string {
  return `${text(m.sourceSchemaName)}.${text(m.sourceTable)}`;
}

export function sameMapping(a: JsonRecord, b: JsonRecord): boolean {
  return mappingKey(a) === mappingKey(b);
}

function checkMappings(raw: unknown, label: string): JsonRecord[] | string {
  if (!Array.isArray(raw)) return `${label} must be an array`;
  const out: JsonRecord[] = [];
  for (const [i, m] of raw.entries()) {
    if (!isPlainObject(m)) return `${label}.${i} must be an object`;
    for (const f of ['sourceSchemaName', 'sourceTable', 'targetTable'] as const) {
      if (typeof m[f] !== 'string' || m[f] === '') return `${label}.${i}.${f} must be a non-empty string`;
    }
    out.push(JSON.parse(JSON.stringify(m)) as JsonRecord);
  }
  return out;
}

function checkField(type: FieldType, raw: unknown, label: string, kind: SourceKind): string | undefined {
  if (typeof type === 'object') {
    return typeof raw === 'string' && type.enum.includes(raw) ? undefined : `${label} must be one of ${type.enum.join(', ')}`;
  }
  switch (type) {
    case 'string':
      return typeof raw === 'string' ? undefined : `${label} must be a string`;
    case 'bool':
      return typeof raw === 'boolean' ? undefined : `${label} must be a boolean`;
    case 'port':
      return Number.isInteger(raw) && (raw as number) >= 1 && (raw as number) <= 65535
        ? undefined
        : `${label} must be an integer between 1 and 65535`;
    case 'int1':
      return Number.isSafeInteger(raw) && (raw as number) >= 1 ? undefined : `${label}: Value must be >= 1`;
    case 'stringArray':
      return Array.isArray(raw) && raw.every((v) => typeof v === 'string') ? undefined : `${label} must be an array of strings`;
    case 'secret':
      return raw !== null && raw !== undefined && raw !== '' ? undefined : `${label} must not be empty`;
    case 'tableMappings': {
      const r = checkMappings(raw, label);
      return typeof r === 'string' ? r : undefined;
    }
    case 'dbSettings': {
      if (!isPlainObject(raw)) return `${label} must be an object`;
      const allowed = DB_SETTINGS[kind] ?? {};
      for (const [k, v] of Object.entries(raw)) {
        const t = allowed[k];
        if (t === undefined) return `${label}.${k} is immutable`;
        const e = checkField(t, v, `${label}.${k}`, kind);
        if (e !== undefined) return e;
      }
      return undefined;
    }
  }
}

/** Validates `source` of a PATCH body against the pipe's kind; a message naming the field on failure. */
export function parseSourcePatch(kind: SourceKind, body: unknown): SourcePatch | string {
  if (!isPlainObject(body)) return 'source must be an object';
  const members = Object.entries(body).filter(([, v]) => v !== null && v !== undefined);
  if (members.length !== 1) return 'source must have exactly one member';
  const [member, raw] = members[0] as [string, unknown];
  if (member !== kind) {
    return isSourceKind(member)
      ? `source.${member} does not match the pipe's source kind (${kind}); the source kind is immutable`
      : `source.${member} is not a known source kind`;
  }
  if (!isPlainObject(raw)) return `source.${kind} must be an object`;
  const fields = PATCHABLE[kind];
  const patch: SourcePatch = { set: {}, secrets: {}, settings: {}, add: [], remove: [] };
  for (const [key, value] of Object.entries(raw)) {
    const label = `source.${kind}.${key}`;
    const type = fields[key];
    if (type === undefined) return `${label} is immutable`;
    const err = checkField(type, value, label, kind);
    if (err !== undefined) return err;
    if (type === 'secret') patch.secrets[key] = secretHash(value);
    else if (type === 'dbSettings') patch.settings = value as JsonRecord;
    else if (key === 'tableMappingsToAdd') patch.add = checkMappings(value, label) as JsonRecord[];
    else if (key === 'tableMappingsToRemove') patch.remove = checkMappings(value, label) as JsonRecord[];
    else patch.set[key] = value as JsonValue;
  }
  return patch;
}
