/**
 * Pairs a desired object with its live object (gitops-engine's reconcile step): the inventory
 * first, then the natural key — exactly one unowned candidate is adopted, more is an error. A
 * pending entry (a create whose answer was lost) owns nothing: only while a manifest declares the
 * object is it looked for, by the natural key the create was sent with, among objects that did
 * not exist before it (./adoption.ts then proves the one found is what was sent); failing that,
 * the object is matched like any other.
 */
import type { InventoryEntry } from '../core/inventory.js';
import type { LiveObject } from '../core/live.js';
import type { DesiredResource } from '../core/resource.js';
import type { ManagedKind } from '../kinds/kind.js';
import type { RefContext } from '../kinds/refs.js';
import type { LiveIndex } from './live-index.js';

export type MatchResult =
  | { kind: 'owned'; live: LiveObject }
  /** `pending`: found as the object of the entry's lost create (still to be proven), not by the desired key. */
  | { kind: 'adopted'; live: LiveObject; pending?: true }
  | { kind: 'missing' }
  | { kind: 'ambiguous'; ids: string[]; key: string };

export function matchLive(
  def: ManagedKind,
  res: DesiredResource,
  entry: InventoryEntry | undefined,
  index: LiveIndex,
  /** Ids the inventory owns for this kind, and ids adopted earlier in this plan (never adopted twice). */
  taken: { has(id: string): boolean },
  refs: RefContext,
): MatchResult {
  if (entry?.status === 'owned' && entry.id !== null) {
    const live = index.get(entry.id);
    if (live) return { kind: 'owned', live };
    // Deleted outside obsync: fall through to adoption by natural key, then create.
  }
  if (entry?.status === 'pending') {
    const before = new Set(entry.preexisting ?? []);
    const mine = index.withKey(entry.naturalKey).filter((o) => !taken.has(o.id) && !before.has(o.id));
    if (mine.length > 1) return { kind: 'ambiguous', ids: mine.map((c) => c.id), key: entry.naturalKey };
    const [only] = mine;
    if (only) return { kind: 'adopted', live: only, pending: true };
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
