/**
 * Managed objects' server ids, both ways, with the ids of their keyed parts (dashboard tiles).
 * The planner fills one as it matches objects; the applier keeps its own, seeded from the
 * inventory and the plan's steps and completed as creates land, and resolves every reference
 * placeholder of a step from it.
 */
import type { Address, AnyKind, Kind } from './plan.js';

export class IdMap {
  // Two flat maps, not an object per address: a plan fills one entry per matched object (20,000).
  readonly #ids = new Map<Address, string>();
  readonly #parts = new Map<Address, ReadonlyMap<string, string>>();
  readonly #byId = new Map<AnyKind, Map<string, Address>>();

  set(address: Address, kind: Kind, id: string, parts?: ReadonlyMap<string, string>): void {
    const before = this.#ids.get(address);
    if (before !== undefined && before !== id) this.#byId.get(kind)?.delete(before);
    this.#ids.set(address, id);
    if (parts) this.#parts.set(address, parts);
    let ids = this.#byId.get(kind);
    if (!ids) {
      ids = new Map<string, Address>();
      this.#byId.set(kind, ids);
    }
    ids.set(id, address);
  }

  id(address: Address): string | undefined {
    return this.#ids.get(address);
  }

  parts(address: Address): ReadonlyMap<string, string> | undefined {
    return this.#parts.get(address);
  }

  partId(address: Address, key: string): string | undefined {
    return this.#parts.get(address)?.get(key);
  }

  /** The key of a part by its id (a reverse scan: parts are few per object). */
  partKey(address: Address, partId: string): string | undefined {
    for (const [key, id] of this.#parts.get(address) ?? []) if (id === partId) return key;
    return undefined;
  }

  addressOf(kind: AnyKind, id: string): Address | undefined {
    return this.#byId.get(kind)?.get(id);
  }
}

/**
 * An id map filled by `seed` when it is first used, from what the seed captured when it was made:
 * the same map as one seeded at once, built only by a run that needs an id (a daemon's run over
 * an unchanged estate writes nothing and needs none: 20,000 entries a run).
 */
export class LazyIdMap extends IdMap {
  #seed: ((into: IdMap) => void) | undefined;

  constructor(seed: (into: IdMap) => void) {
    super();
    this.#seed = seed;
  }

  #seeded(): void {
    const seed = this.#seed;
    if (seed === undefined) return;
    this.#seed = undefined;
    seed(this);
  }

  override set(address: Address, kind: Kind, id: string, parts?: ReadonlyMap<string, string>): void {
    this.#seeded();
    super.set(address, kind, id, parts);
  }

  override id(address: Address): string | undefined {
    this.#seeded();
    return super.id(address);
  }

  override parts(address: Address): ReadonlyMap<string, string> | undefined {
    this.#seeded();
    return super.parts(address);
  }

  override partId(address: Address, key: string): string | undefined {
    this.#seeded();
    return super.partId(address, key);
  }

  override partKey(address: Address, partId: string): string | undefined {
    this.#seeded();
    return super.partKey(address, partId);
  }

  override addressOf(kind: AnyKind, id: string): Address | undefined {
    this.#seeded();
    return super.addressOf(kind, id);
  }
}
