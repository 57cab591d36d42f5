/**
 * Pairs manifest tiles (by stable key) with live tiles (by server id). The inventory's
 * key → id map wins; tiles it does not know (adoption, or an entry lost) pair by tile name,
 * in order. Sending the paired ids back on update is what keeps the service from deleting
 * the alerts on those tiles (selfhosted-api §4.4).
 */
import type { WireTile } from '../../core/wire.js';
import type { TileSpecView } from './model.js';

/** Tile key → live tile id. */
export function pairTiles(
  desired: readonly TileSpecView[],
  live: readonly WireTile[],
  known: Readonly<Record<string, string>> | undefined,
): Map<string, string> {
  const byKey = new Map<string, string>();
  const taken = new Set<string>();
  const liveIds = new Set(live.map((t) => t.id));
  for (const tile of desired) {
    const id = known?.[tile.key];
    if (id !== undefined && liveIds.has(id) && !taken.has(id)) {
      byKey.set(tile.key, id);
      taken.add(id);
    }
  }
  for (const tile of desired) {
    if (byKey.has(tile.key)) continue;
    const found = live.find((t) => !taken.has(t.id) && t.name === tile.name);
    if (found) {
      byKey.set(tile.key, found.id);
      taken.add(found.id);
    }
  }
  return byKey;
}

/** Tile configs the service keeps alerts on (selfhosted-api §4.4). */
export function isAlertable(config: Record<string, unknown>): boolean {
  return config.displayType === 'line' || config.displayType === 'stacked_bar' || config.displayType === 'number';
}
