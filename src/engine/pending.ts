/**
 * A crash between "entry written" and "create answered" leaves a pending inventory entry
 * (DESIGN §4). Each run resolves them against the live state by natural key: exactly one
 * unowned match becomes owned; none means the create never happened and the entry goes.
 */
import { entryAddress, type InventoryEntry, type InventoryStore } from '../core/inventory.js';
import type { LiveState } from '../core/live.js';
import type { Kind } from '../core/plan.js';
import type { KindDefinition, Lookups } from '../kinds/kind.js';
import { keyMatches } from '../planner/match.js';

export type PendingResolution = { entry: InventoryEntry; outcome: 'owned'; id: string } | { entry: InventoryEntry; outcome: 'gone' } | { entry: InventoryEntry; outcome: 'ambiguous'; ids: string[] };

export function resolvePending(entries: readonly InventoryEntry[], live: LiveState, definitions: ReadonlyMap<Kind, KindDefinition>, lookups: Lookups): PendingResolution[] {
  const owned = new Set(entries.filter((e) => e.status === 'owned' && e.id !== null).map((e) => e.id as string));
  const out: PendingResolution[] = [];
  for (const entry of entries) {
    if (entry.status !== 'pending') continue;
    const objects = definitions.get(entry.kind)?.liveObjects(live);
    const def = definitions.get(entry.kind);
    if (!def || !objects) continue;
    const ids = objects.filter((o) => !owned.has(o.id) && keyMatches(def.liveKey(o, lookups), entry.naturalKey)).map((o) => o.id);
    const [only] = ids;
    if (ids.length === 0) out.push({ entry, outcome: 'gone' });
    else if (ids.length === 1 && only) {
      owned.add(only);
      out.push({ entry, outcome: 'owned', id: only });
    } else out.push({ entry, outcome: 'ambiguous', ids });
  }
  return out;
}

/** The inventory as it will be once the resolutions are recorded (plans use this without writing). */
export function withResolutions(entries: readonly InventoryEntry[], resolutions: readonly PendingResolution[]): InventoryEntry[] {
  const byAddress = new Map(resolutions.map((r) => [entryAddress(r.entry), r]));
  const out: InventoryEntry[] = [];
  for (const entry of entries) {
    const r = byAddress.get(entryAddress(entry));
    if (!r) out.push(entry);
    else if (r.outcome === 'owned') out.push({ ...entry, status: 'owned', id: r.id });
    else if (r.outcome === 'ambiguous') out.push(entry);
  }
  return out;
}

export async function recordResolutions(inventory: InventoryStore, resolutions: readonly PendingResolution[], now: Date): Promise<void> {
  for (const r of resolutions) {
    if (r.outcome === 'owned') await inventory.put({ ...r.entry, status: 'owned', id: r.id, updatedAt: now.toISOString() });
    else if (r.outcome === 'gone') await inventory.remove(entryAddress(r.entry));
  }
}
