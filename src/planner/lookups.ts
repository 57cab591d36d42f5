import type { DesiredResource } from '../core/resource.js';
import { indexByName, type LiveState } from '../core/live.js';
import type { Lookups } from '../kinds/kind.js';

export function buildLookups(live: LiveState, desired: readonly DesiredResource[]): Lookups {
  return {
    sources: indexByName(live.sources),
    webhooks: indexByName(live.webhooks),
    savedSearches: indexByName(live.savedSearches),
    dashboardIds: new Map(),
    dashboardAddresses: new Map(),
    tileIds: new Map(),
    desired: new Map(desired.map((r) => [r.address, r])),
  };
}
