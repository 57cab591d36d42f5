/**
 * Sources (hyperdx v2/sources.ts at b52a6fa8): full CRUD. Short granularities are stored long
 * and returned short; the connection must be an ObjectId of one of the team's connections; PUT
 * replaces the whole document (the kind may change, `createdAt` stays); DELETE cascades nothing.
 * Rows are stored with the defaults the server's model fills (`disabled`, `querySettings`, the
 * log/trace expression arrays).
 */
import type { DomainError, DomainResult, JsonRecord } from './contract.js';
import { isObjectIdLike, notFoundJson, ok, parseRequest, requestFailure, failJson } from './result.js';
import { granularityToExternal, granularityToInternal, mapGranularities, sourceBody } from './source-schema.js';
import { findById, type Store } from './store.js';

const TIMESTAMPS = ['createdAt', 'updatedAt'];

export function renderSource(stored: JsonRecord): JsonRecord {
  const out = Object.fromEntries(Object.entries(stored).filter(([k]) => !TIMESTAMPS.includes(k)));
  return mapGranularities(out, granularityToExternal);
}

export function listSources(store: Store): DomainResult<JsonRecord[]> {
  return ok(store.state.sources.map(renderSource));
}

export function getSource(store: Store, id: string): DomainResult<JsonRecord> {
  const bad = requestFailure({ id });
  if (bad) return bad;
  const source = findById(store.state.sources, id);
  return source ? ok(renderSource(source)) : notFoundJson('Source not found');
}

/** The model's defaults for fields the body left out. */
function withModelDefaults(body: JsonRecord): JsonRecord {
  const out: JsonRecord = { disabled: false, querySettings: [], ...body };
  if (body.kind === 'log' || body.kind === 'trace') {
    out.highlightedTraceAttributeExpressions = body.highlightedTraceAttributeExpressions ?? [];
    out.highlightedRowAttributeExpressions = body.highlightedRowAttributeExpressions ?? [];
    out.materializedViews = body.materializedViews ?? [];
  }
  return out;
}

function parseSource(store: Store, body: unknown, id?: string): { ok: true; value: JsonRecord } | { ok: false; error: DomainError } {
  const parsed = parseRequest(sourceBody, mapGranularities(body, granularityToInternal), id);
  if (!parsed.ok) return parsed;
  const connection = parsed.value.connection;
  if (!isObjectIdLike(connection)) return failJson(400, 'connection must be a valid connection id');
  if (!findById(store.state.connections, connection)) return failJson(400, 'connection must be an existing connection id');
  return { ok: true, value: withModelDefaults(JSON.parse(JSON.stringify(parsed.value)) as JsonRecord) };
}

export function createSource(store: Store, body: unknown): DomainResult<JsonRecord> {
  const parsed = parseSource(store, body);
  if (!parsed.ok) return parsed;
  const now = store.nowIso();
  const source: JsonRecord = { id: store.newId(), ...parsed.value, createdAt: now, updatedAt: now };
  store.commit({ sources: [...store.state.sources, source] });
  return ok(renderSource(source));
}

export function updateSource(store: Store, id: string, body: unknown): DomainResult<JsonRecord> {
  const parsed = parseSource(store, body, id);
  if (!parsed.ok) return parsed;
  const existing = findById(store.state.sources, id);
  if (!existing) return notFoundJson('Source not found');
  const source: JsonRecord = { id, ...parsed.value, updatedAt: store.nowIso() };
  if (existing.createdAt !== undefined) source.createdAt = existing.createdAt;
  store.commit({ sources: store.state.sources.map((s) => (s.id === id ? source : s)) });
  return ok(renderSource(source));
}

export function deleteSource(store: Store, id: string): DomainResult<JsonRecord> {
  const bad = requestFailure({ id });
  if (bad) return bad;
  if (!findById(store.state.sources, id)) return notFoundJson('Source not found');
  store.commit({ sources: store.state.sources.filter((s) => s.id !== id) });
  return ok({});
}
