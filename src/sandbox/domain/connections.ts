/**
 * Connections (hyperdx v2/connections.ts at b52a6fa8): the write-only `password` is stored and
 * never returned; an update that omits the password (or sends "") keeps the stored one;
 * `hyperdxSettingPrefix` is cleared by `null` or "" and kept when omitted. Missing rows answer
 * Express's plain-text `Not Found`. Deleting a connection cascades nothing.
 */
import * as z from 'zod';
import type { DomainResult, JsonRecord } from './contract.js';
import { notFoundText, ok, parseRequest, requestFailure } from './result.js';
import { findById, type Store } from './store.js';

const prefix = z.string().regex(/^[a-z0-9_]+$/i);
const fields = {
  name: z.string(),
  host: z.string(),
  username: z.string(),
  password: z.string().optional(),
  isPrometheusEndpoint: z.boolean().optional(),
};
const createBody = z.object({ ...fields, hyperdxSettingPrefix: prefix.nullable().optional() });
const updateBody = z.object({ ...fields, hyperdxSettingPrefix: prefix.or(z.literal('')).nullable().optional() });

const OUTPUT_KEYS = ['id', 'name', 'host', 'username', 'hyperdxSettingPrefix', 'isPrometheusEndpoint', 'createdAt', 'updatedAt'];

export function renderConnection(stored: JsonRecord): JsonRecord {
  return Object.fromEntries(Object.entries(stored).filter(([k, v]) => OUTPUT_KEYS.includes(k) && v !== undefined && v !== null));
}

export function listConnections(store: Store): DomainResult<JsonRecord[]> {
  return ok(store.state.connections.map(renderConnection));
}

export function getConnection(store: Store, id: string): DomainResult<JsonRecord> {
  const bad = requestFailure({ id });
  if (bad) return bad;
  const found = findById(store.state.connections, id);
  return found ? ok(renderConnection(found)) : notFoundText('Connection not found');
}

export function createConnection(store: Store, body: unknown): DomainResult<JsonRecord> {
  const parsed = parseRequest(createBody, body);
  if (!parsed.ok) return parsed;
  const { hyperdxSettingPrefix, password, ...rest } = parsed.value;
  const now = store.nowIso();
  const connection: JsonRecord = { id: store.newId(), ...rest, password: password ?? '', createdAt: now, updatedAt: now };
  if (hyperdxSettingPrefix) connection.hyperdxSettingPrefix = hyperdxSettingPrefix;
  store.commit({ connections: [...store.state.connections, connection] });
  return ok(renderConnection(connection));
}

export function updateConnection(store: Store, id: string, body: unknown): DomainResult<JsonRecord> {
  const parsed = parseRequest(updateBody, body, id);
  if (!parsed.ok) return parsed;
  const existing = findById(store.state.connections, id);
  if (!existing) return notFoundText('Connection not found');
  const { hyperdxSettingPrefix, password, ...rest } = parsed.value;
  const next: JsonRecord = { ...existing, ...rest, password: password ? password : (existing.password ?? ''), updatedAt: store.nowIso() };
  if (hyperdxSettingPrefix) next.hyperdxSettingPrefix = hyperdxSettingPrefix;
  else if (hyperdxSettingPrefix !== undefined) delete next.hyperdxSettingPrefix;
  store.commit({ connections: store.state.connections.map((c) => (c.id === id ? next : c)) });
  return ok(renderConnection(next));
}

export function deleteConnection(store: Store, id: string): DomainResult<JsonRecord> {
  const bad = requestFailure({ id });
  if (bad) return bad;
  if (!findById(store.state.connections, id)) return notFoundText('Connection not found');
  store.commit({ connections: store.state.connections.filter((c) => c.id !== id) });
  return ok({});
}
