/**
 * Saved-search operations (reference §1.6, §3.4, §4.3, §4.4): full replace with defaults, new or
 * changed filters must be sidebar-renderable SQL predicates, DELETE removes its alerts.
 */
import * as z from 'zod';
import type { DomainError, DomainResult, JsonRecord, PageQuery } from './contract.js';
import { paginate } from './paging.js';
import { badRequest, invalidIdParam, notFoundJson, ok, parseRequest } from './result.js';
import { findById, type Store } from './store.js';
import { objectId } from './tile-config-schema.js';

const filter = z.union([
  z.object({
    type: z.literal('sql_ast'),
    operator: z.enum(['=', '<', '>', '!=', '<=', '>=']),
    left: z.string().max(8192),
    right: z.string().max(8192),
  }),
  z.object({ type: z.enum(['lucene', 'sql']).default('sql'), condition: z.string().max(8192) }),
]);

const savedSearchBody = z.object({
  name: z.string().trim().min(1).max(1024),
  sourceId: objectId,
  select: z.string().max(4096).default(''),
  where: z.string().max(8192).default(''),
  whereLanguage: z.enum(['lucene', 'sql']).default('lucene'),
  orderBy: z.string().max(1024).default(''),
  tags: z.array(z.string().max(32)).max(50).default([]),
  filters: z.array(filter).max(100).default([]),
});

const COLUMN = String.raw`[A-Za-z_][\w.]*(?:\[[^\]]*\])?|` + '`[^`]+`';
const NUMBER = String.raw`-?\d+(?:\.\d+)?`;
const RENDERABLE = [
  new RegExp(String.raw`^\s*(?:${COLUMN})\s+(?:NOT\s+)?IN\s*\([^()]*\)\s*$`, 'i'),
  new RegExp(String.raw`^\s*(?:${COLUMN})\s+BETWEEN\s+${NUMBER}\s+AND\s+${NUMBER}\s*$`, 'i'),
];

function renderable(f: z.output<typeof filter>): boolean {
  return f.type === 'sql' && RENDERABLE.some((r) => r.test(f.condition));
}

function filterProblem(filters: z.output<typeof filter>[], previous: JsonRecord | undefined): string | undefined {
  const stored = Array.isArray(previous?.filters) ? previous.filters.map((f) => JSON.stringify(f)) : [];
  const index = filters.findIndex((f) => !stored.includes(JSON.stringify(f)) && !renderable(f));
  if (index < 0) return undefined;
  return (
    `filters[${index}] must be a sidebar-renderable SQL predicate ` +
    `(e.g. "<column> IN ('<value>', ...)", "NOT IN (...)", or "BETWEEN <n> AND <n>"). ` +
    'Other shapes are only accepted on update when preserved unchanged from the stored saved search.'
  );
}

function validate(
  store: Store,
  body: unknown,
  id: string | undefined,
): { ok: true; value: JsonRecord } | { ok: false; error: DomainError } {
  const parsed = parseRequest(savedSearchBody, body, id);
  if (!parsed.ok) return parsed;
  const data = parsed.value;
  if (!findById(store.state.sources, data.sourceId)) return badRequest('sourceId must be an existing source id');
  const previous = id === undefined ? undefined : findById(store.state.savedSearches, id);
  if (id !== undefined && !previous) return notFoundJson('Saved search not found');
  const problem = filterProblem(data.filters, previous);
  if (problem) return badRequest(problem);
  return { ok: true, value: JSON.parse(JSON.stringify(data)) as JsonRecord };
}

export function renderSavedSearch(stored: JsonRecord, teamId: string): JsonRecord {
  return { ...stored, teamId };
}

export function listSavedSearches(store: Store, query: PageQuery): DomainResult<JsonRecord[]> {
  return paginate(store.state.savedSearches, query, (s) => renderSavedSearch(s, store.state.teamId));
}

export function getSavedSearch(store: Store, id: string): DomainResult<JsonRecord> {
  const bad = invalidIdParam(id);
  if (bad) return bad;
  const found = findById(store.state.savedSearches, id);
  return found ? ok(renderSavedSearch(found, store.state.teamId)) : notFoundJson('Saved search not found');
}

export function createSavedSearch(store: Store, body: unknown): DomainResult<JsonRecord> {
  const v = validate(store, body, undefined);
  if (!v.ok) return v;
  const now = store.nowIso();
  const search: JsonRecord = { id: store.newId(), ...v.value, createdAt: now, updatedAt: now };
  store.commit({ savedSearches: [...store.state.savedSearches, search] });
  return ok(renderSavedSearch(search, store.state.teamId));
}

export function updateSavedSearch(store: Store, id: string, body: unknown): DomainResult<JsonRecord> {
  const v = validate(store, body, id);
  if (!v.ok) return v;
  const previous = findById(store.state.savedSearches, id);
  const search: JsonRecord = { id, ...v.value, createdAt: previous?.createdAt ?? store.nowIso(), updatedAt: store.nowIso() };
  store.commit({ savedSearches: store.state.savedSearches.map((s) => (s.id === id ? search : s)) });
  return ok(renderSavedSearch(search, store.state.teamId));
}

export function deleteSavedSearch(store: Store, id: string): DomainResult<JsonRecord> {
  const bad = invalidIdParam(id);
  if (bad) return bad;
  if (!findById(store.state.savedSearches, id)) return notFoundJson('Saved search not found');
  store.commit({
    savedSearches: store.state.savedSearches.filter((s) => s.id !== id),
    alerts: store.state.alerts.filter((a) => !(a.source === 'saved_search' && a.savedSearchId === id)),
  });
  return ok({});
}
