/** Sources are read-only through the domain contract (list/get); stored in output form. */
import type { DomainResult, JsonRecord } from './contract.js';
import { invalidIdParam, notFoundJson, ok } from './result.js';
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
