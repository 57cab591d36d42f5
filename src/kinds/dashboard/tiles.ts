/**
 * Pairs manifest tiles (by stable key) with live tiles (by server id). The inventory's
 * key → id map wins; tiles it does not know (adoption, or an entry lost) pair by tile name,
 * in order. Sending the paired ids back on update is what keeps the service from deleting
 * the alerts on those tiles (selfhosted-api §4.4).
 */
import type { WireTile } from '../../core/wire.js';
import type { TileSpecView } from './model.js';

export interface TilePairing {
  byKey: Map<string, WireTile>;
  /** Live tiles no manifest tile claims: an update removes them. */
  unclaimed: WireTile[];
}

export function pairTiles(desired: readonly TileSpecView[], live: readonly WireTile[], known: Record<string, string> | undefined): TilePairing {
  const byKey = new Map<string, WireTile>();
  const taken = new Set<string>();
  const liveById = new Map(live.map((t) => [t.id, t]));
  for (const tile of desired) {
    const id = known?.[tile.key];
    const found = id === undefined ? undefined : liveById.get(id);
    if (found && !taken.has(found.id)) {
      byKey.set(tile.key, found);
      taken.add(found.id);
    }
  }
  for (const tile of desired) {
    if (byKey.has(tile.key)) continue;
    const found = live.find((t) => !taken.has(t.id) && t.name === tile.name);
    if (found) {
      byKey.set(tile.key, found);
      taken.add(found.id);
    }
  }
  return { byKey, unclaimed: live.filter((t) => !taken.has(t.id)) };
}

/** After a write the service returns tiles in the order sent: pair positionally. */
export function tileIdsFromResponse(desired: readonly TileSpecView[], stored: readonly WireTile[]): Record<string, string> {
  const map: Record<string, string> = {};
  desired.forEach((tile, i) => {
    const live = stored[i];
    if (live) map[tile.key] = live.id;
  });
  return map;
}

/** Tile configs the service keeps alerts on (selfhosted-api §4.4). */
export function isAlertable(config: Record<string, unknown>): boolean {
  return config.displayType === 'line' || config.displayType === 'stacked_bar' || config.displayType === 'number';
}
