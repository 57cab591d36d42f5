/**
 * One service, one owner (issue 53, item 6). Two targets that write to one service (the same
 * normalised base URL and, hosted, organisation and service) each keep their own inventory, so
 * without a look at the other's each would adopt the other's objects by natural key — and prune
 * them. These are the objects the other targets on this target's service own, read from their
 * inventories before a run: nothing here adopts, imports or resolves a pending create to one of
 * them (planner/adoption.ts, export/import.ts, export/adopt.ts), and each refusal names the owner.
 */
import { entryAddress, type InventoryEntry } from './inventory.js';
import type { Address, Kind } from './plan.js';

export interface OwnerElsewhere {
  target: string;
  address: Address;
  /** The other target's service could not be told (its settings use variables not set here): it may be this one. */
  maybe: boolean;
}

/** Another target on this target's service (or one whose service is unknown), with its inventory entries. */
export interface OtherTargetState {
  target: string;
  maybe: boolean;
  entries: readonly InventoryEntry[];
}

/** The plan diagnostic of an adoption refused because another target on the service owns the object. */
export const OWNED_ELSEWHERE = 'owned-by-other-target';

export class OwnersElsewhere {
  static readonly NONE = new OwnersElsewhere('', []);
  readonly #owners = new Map<string, OwnerElsewhere>();

  /** `here`: the target whose runs look. */
  constructor(
    readonly here: string,
    others: readonly OtherTargetState[],
  ) {
    for (const other of others)
      for (const e of other.entries)
        if (e.status === 'owned' && e.id !== null && !this.#owners.has(key(e.kind, e.id)))
          this.#owners.set(key(e.kind, e.id), { target: other.target, address: entryAddress(e), maybe: other.maybe });
  }

  get size(): number {
    return this.#owners.size;
  }

  /**
   * One line per owned object, sorted: tells one set of owners from another (a daemon's plan is taken again only when they are the same).
   */
  lines(): string[] {
    return [...this.#owners].map(([k, o]) => `${k}\u0000${o.target}\u0000${o.address}\u0000${o.maybe}`).sort();
  }

  /** The other target that owns this object, if any. */
  owner(kind: Kind, id: string): OwnerElsewhere | undefined {
    return this.#owners.get(key(kind, id));
  }

  /** Why target `here` may not take the object over, or delete it (`what`: e.g. `dashboard 65f…`). */
  refusal(what: string, owner: OwnerElsewhere, action = 'take it over'): string {
    const where = owner.maybe
      ? 'which may write to the same service (its settings could not be resolved here)'
      : 'which writes to the same service';
    return (
      `${what} is owned by target '${owner.target}' (as ${owner.address}), ${where}: one service has one owner, so target ` +
      `'${this.here}' does not ${action}`
    );
  }

  /** What to do about it. */
  hint(owner: OwnerElsewhere): string {
    return (
      `manage it from target '${owner.target}' only (leave it out of this target's manifests), or point the two targets at ` +
      `different services; \`obsync validate\` lists targets that share a service`
    );
  }
}

function key(kind: Kind, id: string): string {
  return `${kind}\u0000${id}`;
}
