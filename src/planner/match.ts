/**
 * Pairs a desired object with its live object (gitops-engine's reconcile step): the inventory
 * first, then the natural key — exactly one unowned candidate is adopted, more is an error.
 */
import type { InventoryEntry } from '../core/inventory.js';
import type { DesiredResource } from '../core/resource.js';
import type { KindDefinition, Lookups } from '../kinds/kind.js';
import type { LiveIndex } from './live-index.js';

export type MatchResult<Live> =
  | { kind: 'owned'; live: Live }
  | { kind: 'adopted'; live: Live }
  | { kind: 'missing'; wasOwned: boolean }
  | { kind: 'ambiguous'; ids: string[]; key: string };

export function matchLive<Live extends { id: string }>(
  def: KindDefinition<unknown, Live>,
  res: DesiredResource,
  entry: InventoryEntry | undefined,
  index: LiveIndex<Live>,
  /** Ids the inventory records for this kind (other entries' objects are never adopted). */
  ownedIds: ReadonlySet<string>,
  lookups: Lookups,
): MatchResult<Live> {
  if (entry?.status === 'owned' && entry.id !== null) {
    const live = index.get(entry.id);
    if (live) return { kind: 'owned', live };
    // Deleted outside obsync: fall through to adoption by natural key, then create.
  }
  const key = def.desiredKey(res, lookups);
  if (key === null) return { kind: 'missing', wasOwned: entry?.status === 'owned' };
  const candidates = index.withKey(key).filter((o) => o.id === entry?.id || !ownedIds.has(o.id));
  if (candidates.length > 1) return { kind: 'ambiguous', ids: candidates.map((c) => c.id), key };
  const [only] = candidates;
  if (only) return { kind: 'adopted', live: only };
  return { kind: 'missing', wasOwned: entry?.status === 'owned' };
}

export function keyMatches(liveKey: string | readonly string[], key: string): boolean {
  return typeof liveKey === 'string' ? liveKey === key : liveKey.includes(key);
}
