/**
 * Sources (reference/selfhosted-api.md §1.4, §3.5, §4.3; hosted-api.md §2.1/§2.4): list, get,
 * create, full-replace PUT (the kind may change; an `id` in the body is ignored) and delete
 * (no cascade). Stored in output form.
 */
import type { DomainResult, JsonRecord } from './contract.js';
import { badRequest, invalidIdParam, notFoundJson, ok, zodFailure } from './result.js';
import { isConnectionId, sourceBodySchema } from './source-schema.js';
import { findById, type Store } from './store.js';

export function listSources(store: Store): DomainResult<JsonRecord[]> {
  return ok(structuredClone(store.state.sources));
}

export function getSource(store: Store, id: string): DomainResult<JsonRecord> {
  const bad = invalidIdParam(id);
  if (bad) return bad;
  const source = findById(store.state.sources, id);
  return source ? ok(structuredClone(source)) : notFoundJson('Source not found');
}

/** The stored form: the body's fields plus what the server materialises (§4.3). */
function validated(store: Store, body: unknown): { ok: true; value: JsonRecord } | ReturnType<typeof badRequest> {
  const parsed = sourceBodySchema.safeParse(body);
  if (!parsed.success) return zodFailure('Body', parsed.error);
  const { connection } = parsed.data;
  if (!isConnectionId(connection)) return badRequest('connection must be a valid connection id');
  if (!findById(store.state.connections, connection)) return badRequest('connection must be an existing connection id');
  const value = JSON.parse(JSON.stringify(parsed.data)) as JsonRecord;
  value.disabled ??= false;
  value.querySettings ??= [];
  if (value.kind === 'log' || value.kind === 'trace') {
    value.highlightedTraceAttributeExpressions ??= [];
    value.highlightedRowAttributeExpressions ??= [];
    value.materializedViews ??= [];
  }
  return { ok: true, value };
}

export function createSource(store: Store, body: unknown): DomainResult<JsonRecord> {
  const v = validated(store, body);
  if (!v.ok) return v;
  const source: JsonRecord = { id: store.newId(), ...v.value };
  store.commit({ sources: [...store.state.sources, source] });
  return ok(structuredClone(source));
}

export function updateSource(store: Store, id: string, body: unknown): DomainResult<JsonRecord> {
  const v = validated(store, body);
  if (!v.ok) return v;
  if (!findById(store.state.sources, id)) return notFoundJson('Source not found');
  const source: JsonRecord = { id, ...v.value };
  store.commit({ sources: store.state.sources.map((s) => (s.id === id ? source : s)) });
  return ok(structuredClone(source));
}

export function deleteSource(store: Store, id: string): DomainResult<JsonRecord> {
  if (!findById(store.state.sources, id)) return notFoundJson('Source not found');
  store.commit({ sources: store.state.sources.filter((s) => s.id !== id) });
  return ok({});
}
