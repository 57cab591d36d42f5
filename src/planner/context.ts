/** What the planner keeps while planning one target: ids matched so far, live indexes, references. */
import { IdMap } from '../core/id-map.js';
import type { InventoryEntry } from '../core/inventory.js';
import type { LiveState } from '../core/live.js';
import type { Address, Kind } from '../core/plan.js';
import type { Variant } from '../core/ports.js';
import type { DesiredResource } from '../core/resource.js';
import type { ManagedKind } from '../kinds/kind.js';
import { LiveIndex } from './live-index.js';
import { PlanRefs } from './refs.js';

export interface PlanInput {
  target: string;
  variant: Variant;
  /** Every declared resource (references resolve against all of them; prune never touches them). */
  desired: readonly DesiredResource[];
  /** The resources to plan steps for (--selector / --only); all when absent. */
  selected?: ReadonlySet<Address>;
  /** Which inventory entries this run may prune (the narrowing applied to entries). */
  eligibleForPrune: (entry: InventoryEntry) => boolean;
  live: LiveState;
  inventory: readonly InventoryEntry[];
  /** Hash of each desired spec (engine-computed). */
  specHashes: Pick<ReadonlyMap<Address, string>, 'get'>;
  /** Fingerprints of each desired object's sensitive values, by path. */
  fingerprints: ReadonlyMap<Address, Record<string, string>>;
  prune: boolean;
  /** `--prune-cascade`: deletes and updates may take along objects obsync does not own. */
  pruneCascade: boolean;
  maxDeletes: number;
  /** Reasons this run must not prune (invalid manifests, a failure earlier in the run). */
  pruneBlockers?: readonly string[];
}

export class PlanContext {
  readonly ids = new IdMap();
  readonly refs: PlanRefs;
  readonly declared: ReadonlySet<Address>;
  readonly #indexes = new Map<Kind, LiveIndex | null>();
  readonly #taken = new Map<Kind, Set<string>>();

  constructor(readonly input: PlanInput) {
    this.declared = new Set(input.desired.map((r) => r.address));
    const selected = input.selected;
    this.refs = new PlanRefs(input.live, this.declared, (a) => !selected || selected.has(a), this.ids);
  }

  /** The kind's live objects by id and natural key; null when the target does not serve the kind. */
  index(def: ManagedKind): LiveIndex | null {
    const kind = def.kind;
    const known = this.#indexes.get(kind);
    if (known !== undefined) return known;
    const objects = this.input.live.objects(kind);
    const index = objects ? new LiveIndex(objects, (o) => def.liveKey(o)) : null;
    this.#indexes.set(kind, index);
    return index;
  }

  /** Live ids no desired object may adopt: owned by the inventory, or adopted earlier in this plan. */
  taken(kind: Kind): Set<string> {
    let ids = this.#taken.get(kind);
    if (!ids) {
      ids = new Set();
      for (const e of this.input.inventory) if (e.kind === kind && e.status === 'owned' && e.id !== null) ids.add(e.id);
      this.#taken.set(kind, ids);
    }
    return ids;
  }

  claim(kind: Kind, id: string): void {
    this.taken(kind).add(id);
  }
}
