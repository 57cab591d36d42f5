/**
 * Pairs manifest tiles (by stable key) with live tiles (by server id). The inventory's
 * key → id map wins, under the tile's key or else one of its previous keys (a renamed key);
 * tiles it does not know (adoption, or an entry lost) pair by tile name, in order. Sending the
 * paired ids back on update is what keeps the service from deleting the alerts on those tiles
 * (selfhosted-api §4.4).
 */
import { ownValue } from '../../core/json.js';
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
    const id = knownId(tile, known, (candidate) => liveIds.has(candidate) && !taken.has(candidate));
    if (id !== undefined) {
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

/** The tile's id in the inventory's map: under its key, else under the first previous key that still names a live tile. */
function knownId(
  tile: TileSpecView,
  known: Readonly<Record<string, string>> | undefined,
  usable: (id: string) => boolean,
): string | undefined {
  if (!known) return undefined;
  const own = ownValue(known, tile.key);
  if (own !== undefined) return usable(own) ? own : undefined;
  for (const previous of tile.previousKeys ?? []) {
    const id = ownValue(known, previous);
    if (id !== undefined && usable(id)) return id;
  }
  return undefined;
}
