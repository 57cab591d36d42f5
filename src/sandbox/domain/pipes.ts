/**
 * Hosted pipes (hosted-api §3): PATCH of the patchable members only, settings, scaling and
 * asynchronous state commands. Credentials are accepted and never returned: the store keeps
 * only their SHA-256, so tests can tell a rotation happened.
 */
import { createHash } from 'node:crypto';
import * as z from 'zod';
import type { DomainResult, JsonRecord, JsonValue } from './contract.js';
import type { PipesDomain, PipesDomainOptions } from './hosted-contract.js';
import { demoPipes } from './pipes-seed.js';
import { badRequest, notFoundJson, ok } from './result.js';

const PATCHABLE: Record<string, readonly string[]> = {
  kafka: ['authentication', 'iamRole', 'caCertificate', 'reversePrivateEndpointIds', 'credentials'],
  objectStorage: ['skipInitialLoad', 'startAfter', 'authentication', 'iamRole', 'connectionString', 'path', 'azureContainerName', 'accessKey', 'serviceAccountKey'],
  kinesis: ['authentication', 'iamRole', 'accessKey'],
  postgres: ['credentials', 'host', 'port', 'database', 'tlsHost', 'caCertificate', 'disableTls', 'skipCertVerification', 'settings', 'tableMappingsToAdd', 'tableMappingsToRemove'],
};
const WRITE_ONLY = new Set(['credentials', 'accessKey', 'connectionString', 'serviceAccountKey']);
const SETTINGS_BOUNDS: Record<string, [number, number] | 'bool'> = {
  streaming_max_insert_wait_ms: [500, 60000],
  object_storage_concurrency: [1, 35],
  object_storage_polling_interval_ms: [100, 3600000],
  object_storage_max_insert_bytes: [10485760, 53687091200],
  object_storage_max_file_count: [1, 10000],
  object_storage_use_cluster_function: 'bool',
  clickhouse_max_threads: [0, 64],
  clickhouse_max_insert_threads: [0, 16],
  clickhouse_min_insert_block_size_bytes: [0, 10737418240],
  clickhouse_max_download_threads: [0, 32],
  clickhouse_parallel_distributed_insert_select: [0, 2],
  clickhouse_parallel_view_processing: 'bool',
};
const SCALING_BOUNDS: Record<string, [number, number]> = { replicas: [1, 40], replicaCpuMillicores: [125, 2000], replicaMemoryGb: [0.5, 8], concurrency: [0, 34] };
const DB_KINDS = new Set(['postgres', 'mysql', 'mongodb', 'bigquery']);

interface Pending {
  to: string;
  at: number;
}

interface State {
  pipes: JsonRecord[];
  /** pipe id → path → sha256 of the write-only value last sent. */
  secrets: Record<string, Record<string, string>>;
  pending: Record<string, Pending>;
  version: number;
}

const command = z.strictObject({ command: z.enum(['start', 'stop', 'resync']) });

export function createPipesDomain(opts: PipesDomainOptions): PipesDomain {
  const now = opts.now ?? (() => new Date());
  const transitionMs = opts.transitionMs ?? 300;
  const restored = opts.snapshot as unknown as State | undefined;
  const state: State = restored ?? { pipes: opts.seed === 'none' ? [] : demoPipes(opts.serviceId, now().toISOString()), secrets: {}, pending: {}, version: 0 };

  const find = (id: string) => state.pipes.find((p) => p.id === id);
  const missing = (id: string) => notFoundJson(`ClickPipe ${id} not found`);
  const kindOf = (pipe: JsonRecord) => Object.keys(obj(pipe.source)).find((k) => obj(pipe.source)[k] !== null && obj(pipe.source)[k] !== undefined) ?? '';
  const commit = (pipe: JsonRecord) => {
    pipe.updatedAt = now().toISOString();
    state.version += 1;
  };

  const domain: PipesDomain = {
    get version() {
      return state.version;
    },
    list: () => ok(state.pipes.map(output)),
    get(id) {
      const pipe = find(id);
      return pipe ? ok(output(pipe)) : missing(id);
    },
    patch(id, body) {
      const pipe = find(id);
      if (!pipe) return missing(id);
      const checked = checkPatch(pipe, kindOf(pipe), body);
      if (!checked.ok) return checked;
      const b = obj(body);
      if (typeof b.name === 'string') pipe.name = b.name;
      if (b.destination !== undefined) pipe.destination = { ...obj(pipe.destination), columns: obj(b.destination).columns ?? [] };
      if (b.fieldMappings !== undefined) pipe.fieldMappings = b.fieldMappings;
      if (b.settings !== undefined) pipe.settings = { ...obj(pipe.settings), ...obj(b.settings) };
      const kind = kindOf(pipe);
      const members = obj(obj(b.source)[kind]);
      const source = obj(obj(pipe.source)[kind]);
      for (const [k, v] of Object.entries(members)) {
        if (WRITE_ONLY.has(k)) (state.secrets[id] ??= {})[`source.${kind}.${k}`] = sha256(v);
        else if (k === 'settings') source.settings = { ...obj(source.settings), ...obj(v) };
        else if (k !== 'tableMappingsToAdd' && k !== 'tableMappingsToRemove') source[k] = v;
      }
      pipe.source = { [kind]: source };
      commit(pipe);
      return ok(output(pipe));
    },
    getSettings(id) {
      const pipe = find(id);
      return pipe ? ok(obj(pipe.settings)) : missing(id);
    },
    putSettings(id, body) {
      const pipe = find(id);
      if (!pipe) return missing(id);
      const error = checkBounds(obj(body), SETTINGS_BOUNDS, 'settings', true);
      if (error) return badRequest(error);
      pipe.settings = { ...obj(pipe.settings), ...obj(body) };
      commit(pipe);
      return ok(obj(pipe.settings));
    },
    patchScaling(id, body) {
      const pipe = find(id);
      if (!pipe) return missing(id);
      if (DB_KINDS.has(kindOf(pipe))) return badRequest('Scaling is only supported for streaming and object storage ClickPipes; database ClickPipes use clickpipesCdcScaling');
      const error = checkBounds(obj(body), SCALING_BOUNDS, 'scaling', false);
      if (error) return badRequest(error);
      pipe.scaling = { ...obj(pipe.scaling), ...obj(body) };
      commit(pipe);
      return ok(output(pipe));
    },
    setState(id, body) {
      const pipe = find(id);
      if (!pipe) return missing(id);
      const parsed = command.safeParse(body);
      if (!parsed.success) return badRequest('command must be one of start, stop, resync');
      const result = transition(pipe, kindOf(pipe), parsed.data.command);
      if (!result.ok) return result;
      state.pending[id] = { to: result.value.to, at: now().getTime() + transitionMs };
      pipe.state = result.value.via;
      commit(pipe);
      return ok(output(pipe));
    },
    tick() {
      const t = now().getTime();
      for (const [id, p] of Object.entries(state.pending)) {
        const pipe = find(id);
        if (p.at > t || !pipe) continue;
        pipe.state = p.to;
        delete state.pending[id];
        commit(pipe);
      }
    },
    snapshot: () => JSON.parse(JSON.stringify(state)) as JsonRecord,
  };
  return domain;
}

function transition(pipe: JsonRecord, kind: string, cmd: 'start' | 'stop' | 'resync'): DomainResult<{ via: string; to: string }> {
  const current = typeof pipe.state === 'string' ? pipe.state : '';
  const db = DB_KINDS.has(kind);
  if (cmd === 'stop') return ok(db ? { via: 'Pausing', to: 'Paused' } : { via: 'Stopping', to: 'Stopped' });
  if (cmd === 'resync') return kind === 'postgres' ? ok({ via: 'Resync', to: 'Running' }) : badRequest('resync is only supported for Postgres ClickPipes');
  if (['Stopped', 'Paused', 'Failed'].includes(current)) return ok({ via: 'Provisioning', to: 'Running' });
  return badRequest(`${typeof pipe.id === 'string' ? pipe.id.slice(0, 8) : ''} ClickPipe is already running`);
}

function checkPatch(pipe: JsonRecord, kind: string, body: unknown): DomainResult<null> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return badRequest('request body must be a JSON object');
  const allowed = new Set(['name', 'source', 'destination', 'fieldMappings', 'settings']);
  for (const key of Object.keys(body)) if (!allowed.has(key)) return badRequest(`request body property can't be validated: ${key}`);
  const b = body as JsonRecord;
  if (b.name !== undefined && (typeof b.name !== 'string' || b.name.length < 1 || b.name.length > 255)) return badRequest('name must be a string of 1 to 255 characters');
  if (b.destination !== undefined) {
    const d = obj(b.destination);
    const extra = Object.keys(d).find((k) => k !== 'columns');
    if (extra) return badRequest(`destination.${extra} is immutable`);
    if (!Array.isArray(d.columns) || d.columns.some((c) => typeof obj(c).name !== 'string' || typeof obj(c).type !== 'string')) return badRequest('destination.columns must be a list of {name, type}');
  }
  if (b.fieldMappings !== undefined && !Array.isArray(b.fieldMappings)) return badRequest('fieldMappings must be a list of {sourceField, destinationField}');
  if (b.settings !== undefined) {
    const error = checkBounds(obj(b.settings), SETTINGS_BOUNDS, 'settings', true);
    if (error) return badRequest(error);
  }
  if (b.source !== undefined) {
    const source = obj(b.source);
    for (const [k, v] of Object.entries(source)) {
      if (k === 'validateSamples') continue;
      if (k !== kind) return badRequest(`source.${k} does not match the pipe's source kind (${kind}); the source kind is immutable`);
      const patchable = PATCHABLE[kind] ?? [];
      const bad = Object.keys(obj(v)).find((m) => !patchable.includes(m));
      if (bad) return badRequest(`source.${kind}.${bad} is immutable`);
    }
  }
  void pipe;
  return ok(null);
}

function checkBounds(values: JsonRecord, bounds: Record<string, [number, number] | 'bool'>, what: string, nullable: boolean): string | null {
  for (const [key, value] of Object.entries(values)) {
    const rule = bounds[key];
    if (!rule) return `${what}.${key} is not a known ${what} key`;
    if (value === null && nullable) continue;
    if (rule === 'bool') {
      if (typeof value !== 'boolean') return `${what}.${key} must be a boolean`;
      continue;
    }
    if (typeof value !== 'number' || value < rule[0] || value > rule[1]) return `${what}.${key} must be a number between ${rule[0]} and ${rule[1]}`;
  }
  return null;
}

/** What GET returns: no write-only values, scaling as Kubernetes quantities (as the real service has). */
function output(pipe: JsonRecord): JsonRecord {
  const out = JSON.parse(JSON.stringify(pipe)) as JsonRecord;
  if (out.scaling && typeof out.scaling === 'object' && !Array.isArray(out.scaling)) {
    const s = { ...out.scaling };
    if (typeof s.replicaCpuMillicores === 'number') s.replicaCpuMillicores = `${s.replicaCpuMillicores}m`;
    if (typeof s.replicaMemoryGb === 'number') s.replicaMemoryGb = Number.isInteger(s.replicaMemoryGb) ? `${s.replicaMemoryGb}Gi` : `${s.replicaMemoryGb * 1024}Mi`;
    out.scaling = s;
  }
  return out;
}

function obj(v: unknown): JsonRecord {
  return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as JsonRecord) : {};
}

function sha256(v: JsonValue | undefined): string {
  return createHash('sha256').update(JSON.stringify(v ?? null)).digest('base64');
}
