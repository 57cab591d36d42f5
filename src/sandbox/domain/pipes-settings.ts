/**
 * The advanced settings of a pipe (reference/hosted-api.md §3.8): flat keys, nullable except
 * `kafka_read_committed`. `GET/PUT …/settings` and the pipe's `settings` member share this
 * object, and like the real service it carries only the keys that are set (a new pipe reads
 * `settings: {}`: clickhousectl tests/client_test.rs, list_click_pipes_with_null_array_fields).
 */
import type { JsonRecord, JsonValue } from './contract.js';

type SettingSpec = { type: 'int'; min: number; max: number } | { type: 'bool'; nullable?: false };

export const SETTING_SPECS: Readonly<Record<string, SettingSpec>> = {
  streaming_max_insert_wait_ms: { type: 'int', min: 500, max: 60000 },
  object_storage_concurrency: { type: 'int', min: 1, max: 35 },
  object_storage_polling_interval_ms: { type: 'int', min: 100, max: 3600000 },
  object_storage_max_insert_bytes: { type: 'int', min: 10485760, max: 53687091200 },
  object_storage_max_file_count: { type: 'int', min: 1, max: 10000 },
  object_storage_use_cluster_function: { type: 'bool' },
  clickhouse_max_threads: { type: 'int', min: 0, max: 64 },
  clickhouse_max_insert_threads: { type: 'int', min: 0, max: 16 },
  clickhouse_min_insert_block_size_bytes: { type: 'int', min: 0, max: 10737418240 },
  clickhouse_max_download_threads: { type: 'int', min: 0, max: 32 },
  clickhouse_parallel_distributed_insert_select: { type: 'int', min: 0, max: 2 },
  clickhouse_parallel_view_processing: { type: 'bool' },
  // Sep-2026 spec; not nullable (terraform-provider internal/api/clickpipe_test.go sends it as a boolean).
  kafka_read_committed: { type: 'bool', nullable: false },
};

/** The keys that are set (an older snapshot may still hold nulls). */
export function settingsOutput(stored: JsonRecord): JsonRecord {
  const out: JsonRecord = {};
  for (const [key, value] of Object.entries(stored)) if (value !== null && value !== undefined) out[key] = value;
  return out;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** One value, coerced the way PUT accepts it ("strings, numbers, or booleans"); a message on failure. */
function coerce(spec: SettingSpec, raw: unknown, label: string): { value: JsonValue } | { error: string } {
  if (spec.type === 'bool') {
    if (raw === null && spec.nullable !== false) return { value: null };
    if (typeof raw === 'boolean') return { value: raw };
    if (raw === 'true' || raw === 'false') return { value: raw === 'true' };
    return { error: `${label} must be a boolean${spec.nullable === false ? '' : ' or null'}` };
  }
  if (raw === null) return { value: null };
  const n = typeof raw === 'number' ? raw : typeof raw === 'string' && /^-?\d+$/.test(raw.trim()) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(n) || n < spec.min || n > spec.max) {
    return { error: `${label} must be an integer between ${spec.min} and ${spec.max} or null` };
  }
  return { value: n };
}

/**
 * Validates a settings body (all keys known, values in range) and returns the merge of it over
 * `current`; a null unsets the key (back to the service default). `prefix` names the fields in
 * messages (`settings.` inside a pipe PATCH).
 */
export function mergeSettings(current: JsonRecord, body: unknown, prefix = ''): { value: JsonRecord } | { error: string } {
  if (!isPlainObject(body)) return { error: `${prefix === '' ? 'body' : prefix.slice(0, -1)} must be an object` };
  const next = settingsOutput(current);
  for (const [key, raw] of Object.entries(body)) {
    const spec = SETTING_SPECS[key];
    if (spec === undefined) return { error: `${prefix}${key} is not a known setting` };
    const result = coerce(spec, raw, `${prefix}${key}`);
    if ('error' in result) return result;
    if (result.value === null) delete next[key];
    else next[key] = result.value;
  }
  return { value: next };
}
