/** An estate on the bench sandbox (a child process), adopted by a fresh inventory: what the plan and apply measures start from. */
import type { Variant } from '../src/core/ports.js';
import type { Pacing, Target } from '../src/core/target.js';
import { entryAddress, type InventoryEntry, type InventoryStore } from '../src/core/inventory.js';
import type { Address } from '../src/core/plan.js';
import type { DesiredResource } from '../src/core/resource.js';
import type { ServicePort } from '../src/core/ports.js';
import { applyPlanned, makePlan, type PlanRequest } from '../src/engine/run.js';
import { SELECT_ALL } from '../src/engine/selection.js';
import { memoryInventory } from '../src/inventory/memory-store.js';
import { createServicePort } from '../src/remote/index.js';
import { benchManifests } from './fixtures.js';
import { startChildSandbox, type ChildSandbox } from './sandbox-process.js';
import { benchTarget, NO_PACING } from './target.js';
import type { ChildOptions } from './sandbox-child.js';

export interface Estate {
  child: ChildSandbox;
  target: Target;
  port: ServicePort;
  inventory: InventoryStore;
  desired: DesiredResource[];
  /** A plan of the whole estate, pruning nothing. */
  request(extra?: Partial<PlanRequest>): PlanRequest;
  close(): Promise<void>;
}

/**
 * The manifests the child's inventory does not own yet. A function of its own: a set made in
 * `adoptedEstate` would share the closure context `request` keeps, and stay resident through
 * every measure (20,000 addresses, about 2 MB at N = 10,000).
 */
function notOwned(desired: readonly DesiredResource[], seeded: readonly InventoryEntry[]): Address[] {
  const owned = new Set(seeded.map(entryAddress));
  return desired.map((r) => r.address).filter((a) => !owned.has(a));
}

/**
 * N dashboards and alerts and a few of every other kind on a sandbox of their own; the inventory
 * owns them all, as in a daemon's every run. It is the inventory the child recorded while seeding
 * (a plan and an apply of the whole estate here would leave this process's RSS at their peak
 * before anything is measured; the child adopts the pipes too, over HTTP). Anything the child's
 * inventory still lacks is adopted here, by a plan selecting those objects.
 */
export async function adoptedEstate(
  variant: Variant,
  n: number,
  opts: { rateLimit?: ChildOptions['rateLimit']; pacing?: Pacing } = {},
): Promise<Estate> {
  const child = await startChildSandbox({ n, variant, rateLimit: opts.rateLimit ?? 'off' });
  const target = benchTarget(variant, child, opts.pacing ?? NO_PACING);
  const port = createServicePort(target);
  const seeded = child.takeInventory();
  const inventory = memoryInventory('bench', seeded);
  const desired = benchManifests(n, variant);
  const request = (extra: Partial<PlanRequest> = {}): PlanRequest => ({
    port,
    inventory,
    desired,
    selection: SELECT_ALL,
    prune: false,
    maxDeletes: 0,
    ...extra,
  });
  const only = notOwned(desired, seeded);
  if (only.length > 0)
    await applyPlanned(await makePlan(request({ selection: { labels: {}, only } })), { port, inventory, concurrency: 8 });
  return {
    child,
    target,
    port,
    inventory,
    desired,
    request,
    close: async () => {
      await port.close();
      await child.close();
    },
  };
}
