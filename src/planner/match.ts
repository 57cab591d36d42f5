/**
 * Pairs a desired object with its live object (gitops-engine's reconcile step): the inventory
 * first, then the natural key — exactly one unowned candidate is adopted, more is an error. A
 * pending entry (a create whose answer was lost) owns nothing: its object is found like any
 * other, by natural key, and only while a manifest declares it.
 */
import type { InventoryEntry } from '../core/inventory.js';
import type { AdoptPolicy } from '../core/plan.js';
import type { LiveObject } from '../core/live.js';
import type { DesiredResource } from '../core/resource.js';
import type { ManagedKind } from '../kinds/kind.js';
import type { RefContext } from '../kinds/refs.js';
import type { LiveIndex } from './live-index.js';

export type MatchResult =
  | { kind: 'owned'; live: LiveObject }
  | { kind: 'adopted'; live: LiveObject }
  | { kind: 'missing' }
  | { kind: 'ambiguous'; ids: string[]; key: string };

export function matchLive(
  def: ManagedKind,
  res: DesiredResource,
  entry: InventoryEntry | undefined,
  index: LiveIndex,
  /** Ids the inventory owns for this kind, and ids adopted earlier in this plan (never adopted twice). */
  taken: ReadonlySet<string>,
  refs: RefContext,
): MatchResult {
  if (entry?.status === 'owned' && entry.id !== null) {
    const live = index.get(entry.id);
    if (live) return { kind: 'owned', live };
    // Deleted outside obsync: fall through to adoption by natural key, then create.
  }
  const key = def.desiredKey(res, refs);
  if (key === null) return { kind: 'missing' };
  const candidates = index.withKey(key).filter((o) => !taken.has(o.id));
  if (candidates.length > 1) return { kind: 'ambiguous', ids: candidates.map((c) => c.id), key };
  const [only] = candidates;
  return only ? { kind: 'adopted', live: only } : { kind: 'missing' };
}

export function keyMatches(liveKey: string | readonly string[], key: string): boolean {
  return typeof liveKey === 'string' ? liveKey === key : liveKey.includes(key);
}

/**
 * Under `adopt: explicit` a match by natural key is not taken — wherever the match is made (the
 * object planned, an object outside the selection, a same-kind reference). A pending entry is
 * obsync's own create whose answer was lost: finding it by natural key is no adoption.
 */
export function adoptionRefused(policy: AdoptPolicy | undefined, match: MatchResult, entry: InventoryEntry | undefined): boolean {
  return match.kind === 'adopted' && policy === 'explicit' && entry?.status !== 'pending';
}
