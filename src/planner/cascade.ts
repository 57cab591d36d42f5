/**
 * What the service deletes along with an object (DESIGN §4 "Trust rules"): the kinds whose
 * definitions say they go with a parent (a dashboard's tile alerts, a saved search's alerts),
 * found in the live state and marked with their ownership. A delete or update may take along
 * only what obsync would delete on its own; anything else blocks it unless `--prune-cascade`.
 */
import { pushTo } from '../core/collections.js';
import { entryAddress, type InventoryEntry } from '../core/inventory.js';
import type { LiveObject, LiveState } from '../core/live.js';
import type { Address, AnyKind, CascadeItem } from '../core/plan.js';
import type { JsonObject } from '../core/wire.js';
import type { CascadeRule, KindDefinition } from '../kinds/kind.js';
import { REGISTRY } from '../kinds/registry.js';

interface Child {
  def: KindDefinition;
  live: LiveObject;
  partId: string | null;
}

export class Cascades {
  readonly #byParent = new Map<AnyKind, Map<string, Child[]>>();
  #owned: Map<string, InventoryEntry> | undefined;
  #declared: Map<string, Address> | undefined;

  constructor(
    private readonly live: LiveState,
    private readonly inventory: readonly InventoryEntry[],
    /** The declared objects matched in this plan, with their ids. */
    private readonly matched: () => Iterable<{ address: Address; kind: AnyKind; id: string }>,
  ) {}

  /** Objects deleted with the parent; with `kept`, only those on parts an update does not keep. */
  of(parent: AnyKind, parentId: string, kept?: ReadonlySet<string>): CascadeItem[] {
    const children = this.#children(parent).get(parentId) ?? [];
    const out: CascadeItem[] = [];
    for (const child of children) {
      if (kept && (child.partId === null || kept.has(child.partId))) continue;
      out.push(this.#item(child));
    }
    return out;
  }

  /** A live object named as cascades name it: its address when owned or declared, and whose it is. */
  itemOf(def: KindDefinition, live: LiveObject): CascadeItem {
    return this.#item({ def, live, partId: null });
  }

  #item({ def, live }: Child): CascadeItem {
    const key = `${def.kind}\u0000${live.id}`;
    const entry = this.#ownedByKey().get(key);
    const declared = this.#declaredByKey().get(key);
    // The declared address first: an entry a rename takes over is still recorded under its old one.
    const address = declared ?? (entry ? entryAddress(entry) : undefined);
    const name = def.displayName ? def.displayName(live) : null;
    return {
      kind: def.kind,
      id: live.id,
      name,
      ...(address ? { address } : {}),
      owned: entry !== undefined,
      declared: declared !== undefined,
      object: live as unknown as JsonObject,
    };
  }

  #ownedByKey(): Map<string, InventoryEntry> {
    if (!this.#owned) {
      this.#owned = new Map();
      for (const e of this.inventory) if (e.status === 'owned' && e.id !== null) this.#owned.set(`${e.kind}\u0000${e.id}`, e);
    }
    return this.#owned;
  }

  #declaredByKey(): Map<string, Address> {
    if (!this.#declared) {
      this.#declared = new Map();
      for (const m of this.matched()) this.#declared.set(`${m.kind}\u0000${m.id}`, m.address);
    }
    return this.#declared;
  }

  /** Children of one parent kind by parent id, indexed on first use. */
  #children(parent: AnyKind): Map<string, Child[]> {
    const known = this.#byParent.get(parent);
    if (known) return known;
    const index = new Map<string, Child[]>();
    for (const def of REGISTRY) {
      for (const rule of (def.deletedWith ?? []) as readonly CascadeRule<LiveObject>[]) {
        if (rule.parent !== parent) continue;
        for (const live of this.live.objects(def.kind) ?? []) {
          const parentId = rule.parentId(live);
          if (parentId) pushTo(index, parentId, { def, live, partId: rule.partId?.(live) ?? null });
        }
      }
    }
    this.#byParent.set(parent, index);
    return index;
  }
}

/** How a cascaded object is named in messages: `Alert/checkout-slow` or `Alert 'High errors' (id a1)`. */
export function describeItem(item: CascadeItem): string {
  if (item.address) return `${item.address} (id ${item.id})`;
  return `${item.kind} ${item.name ? `'${item.name}' ` : ''}(id ${item.id})`;
}
