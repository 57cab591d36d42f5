/**
 * How a pipe is stored (JSON-serialisable, secrets only as SHA-256 markers) and how it is
 * written out (reference/hosted-api.md §3.2): the source as exactly one member, scaling as
 * numbers like the live service (`replicaCpuMillicores: 125`, `replicaMemoryGb: 0.5`:
 * clickhousectl tests/client_test.rs, list_click_pipes_with_null_array_fields, whose i64/f64
 * models reject quantity strings), settings with only the keys that are set, no secrets.
 */
import type { JsonRecord, JsonValue } from './contract.js';
import { settingsOutput } from './pipes-settings.js';
import type { SourceKind } from './pipes-source.js';
import { DB_KINDS } from './pipes-source.js';

export interface PipeScaling {
  replicas: number;
  replicaCpuMillicores: number;
  replicaMemoryGb: number;
  concurrency: number | null;
}

export interface StoredPipe {
  id: string;
  serviceId: string;
  name: string;
  state: string;
  kind: SourceKind;
  /** Null for DB pipes (they share the service's CDC pool). */
  scaling: PipeScaling | null;
  /** The members of `source.<kind>` without secrets. */
  source: JsonRecord;
  /** Write-only members of `source.<kind>`: name → SHA-256 (hex) of the last value sent. */
  secrets: Record<string, string>;
  destination: JsonRecord;
  fieldMappings: JsonRecord[];
  settings: JsonRecord;
  createdAt: string;
  updatedAt: string;
  /** A pending asynchronous transition: the state it ends in and when (ISO). */
  transition: { to: string; at: string } | null;
}

export function isDbKind(kind: SourceKind): boolean {
  return DB_KINDS.includes(kind);
}

function scalingOut(s: PipeScaling | null): JsonValue {
  if (s === null) return null;
  const out: JsonRecord = { replicas: s.replicas, replicaCpuMillicores: s.replicaCpuMillicores, replicaMemoryGb: s.replicaMemoryGb };
  if (s.concurrency !== null) out.concurrency = s.concurrency;
  return out;
}

function clone<T>(value: T): T {
  return structuredClone(value);
}

export function pipeOutput(p: StoredPipe): JsonRecord {
  return {
    id: p.id,
    serviceId: p.serviceId,
    name: p.name,
    state: p.state,
    scaling: scalingOut(p.scaling),
    source: { [p.kind]: clone(p.source) },
    destination: clone(p.destination),
    fieldMappings: clone(p.fieldMappings),
    settings: settingsOutput(p.settings),
    createdAt: p.createdAt,
    updatedAt: p.updatedAt,
  };
}
