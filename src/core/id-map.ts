/**
 * Managed objects' server ids, both ways, with the ids of their keyed parts (dashboard tiles).
 * The planner fills one as it matches objects; the applier keeps its own, seeded from the
 * inventory and the plan's steps and completed as creates land, and resolves every reference
 * placeholder of a step from it.
 */
import type { Address, AnyKind, Kind } from './plan.js';

interface Ids {
  id: string;
  /** part key → part id */
  parts: ReadonlyMap<string, string> | undefined;
}

export class IdMap {
  readonly #byAddress = new Map<Address, Ids>();
  readonly #byId = new Map<AnyKind, Map<string, Address>>();

  set(address: Address, kind: Kind, id: string, parts?: ReadonlyMap<string, string>): void {
    const before = this.#byAddress.get(address);
    if (before && before.id !== id) this.#byId.get(kind)?.delete(before.id);
    this.#byAddress.set(address, { id, parts: parts ?? before?.parts });
    let ids = this.#byId.get(kind);
    if (!ids) {
      ids = new Map<string, Address>();
      this.#byId.set(kind, ids);
    }
    ids.set(id, address);
  }

  id(address: Address): string | undefined {
    return this.#byAddress.get(address)?.id;
  }

  parts(address: Address): ReadonlyMap<string, string> | undefined {
    return this.#byAddress.get(address)?.parts;
  }

  partId(address: Address, key: string): string | undefined {
    return this.#byAddress.get(address)?.parts?.get(key);
  }

  /** The key of a part by its id (a reverse scan: parts are few per object). */
  partKey(address: Address, partId: string): string | undefined {
    for (const [key, id] of this.#byAddress.get(address)?.parts ?? []) if (id === partId) return key;
    return undefined;
  }

  addressOf(kind: AnyKind, id: string): Address | undefined {
    return this.#byId.get(kind)?.get(id);
  }
}

/** part id → key, for comparing a live object's parts in the manifest's terms. */
export function partKeysById(parts: ReadonlyMap<string, string> | undefined): Map<string, string> | undefined {
  if (!parts) return undefined;
  const out = new Map<string, string>();
  for (const [key, id] of parts) out.set(id, key);
  return out;
}
