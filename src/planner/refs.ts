/**
 * The planner's answer to every reference a kind makes, generic over kinds (src/kinds/refs.ts):
 * a name is the metadata.name of a declared object of a managed kind when there is one (its id
 * when matched, a placeholder when planned in this run), else the display name of exactly one
 * live object; `{id}` is taken as is. Tokens: a managed object's name; an unmanaged object of a
 * kind obsync only reads, its display name when unique; anything else `{id}` (so an unmanaged
 * object of a managed kind never compares equal to a managed one).
 */
import type { IdMap } from '../core/id-map.js';
import type { LiveState } from '../core/live.js';
import { nameOf, type Address, type NamedRef } from '../core/plan.js';
import type { SpecRef } from '../kinds/kind.js';
import { placeholder, type NameOrId, type RefContext, type RefToken, type RefUse, type TokenContext } from '../kinds/refs.js';
import { definitionOf, type AnyKind } from '../kinds/registry.js';

interface NameIndex {
  byName: Map<string, string[]>;
  byId: Map<string, string>;
}

export class PlanRefs implements RefContext, TokenContext {
  readonly #indexes = new Map<AnyKind, NameIndex | null>();
  #used: Address[] | null = null;

  constructor(
    private readonly live: LiveState,
    private readonly declared: ReadonlySet<Address>,
    /** Whether a declared object has a step in this plan (its id is then the applier's to fill). */
    private readonly planned: (address: Address) => boolean,
    private readonly ids: IdMap,
  ) {}

  /** Starts collecting the declared objects one desired object refers to. */
  startObject(): void {
    this.#used = null;
  }

  /** The declared objects referred to since `startObject`: the object depends on them. */
  usedAddresses(): Address[] {
    return this.#used ?? [];
  }

  /** The unmanaged objects a desired object refers to, with their tokens (the applier's re-diff needs them). */
  namesOf(refs: readonly SpecRef[]): NamedRef[] {
    const out: NamedRef[] = [];
    for (const r of refs) {
      const use = this.ref(r.kind, r.ref);
      if (!use.ok || use.id === null || this.ids.addressOf(r.kind, use.id)) continue;
      const token = use.token;
      if (!out.some((n) => n.kind === r.kind && n.id === use.id)) out.push({ kind: r.kind, id: use.id, token: typeof token === 'string' ? token : { id: token.id } });
    }
    return out;
  }

  ref(kind: AnyKind, ref: NameOrId): RefUse {
    if (typeof ref !== 'string') return { ok: true, wire: ref.id, token: this.token(kind, ref.id), id: ref.id };
    const def = definitionOf(kind);
    if (def.managed) {
      const address = `${kind}/${ref}` as Address;
      if (this.declared.has(address)) {
        this.#use(address);
        const id = this.ids.id(address) ?? null;
        if (this.planned(address)) return { ok: true, wire: placeholder(address), token: ref, id };
        if (id !== null) return { ok: true, wire: id, token: ref, id };
        return { ok: false, error: `${address} is not on the target (and not planned in this run)` };
      }
    }
    const index = this.#index(kind);
    if (!index) return { ok: false, error: `${def.noun}s cannot be referred to by name on this target; use {id: ...}` };
    const found = index.byName.get(ref) ?? [];
    const [only] = found;
    if (found.length === 1 && only !== undefined) return { ok: true, wire: only, token: this.token(kind, only), id: only };
    if (found.length === 0) return { ok: false, error: `${def.noun} '${ref}' does not exist on the target` };
    return { ok: false, error: `${found.length} ${def.noun}s are named '${ref}' on the target; refer to one by {id: ...} (${found.join(', ')})` };
  }

  part(kind: AnyKind, parent: NameOrId, part: NameOrId): RefUse {
    const def = definitionOf(kind);
    const noun = def.managed ? (def.parts?.noun ?? 'part') : 'part';
    if (typeof part !== 'string') {
      const parentId = typeof parent === 'string' ? this.ids.id(`${kind}/${parent}` as Address) : parent.id;
      return { ok: true, wire: part.id, token: parentId === undefined ? { id: part.id } : this.partToken(kind, parentId, part.id), id: part.id };
    }
    if (typeof parent !== 'string') return { ok: false, error: `a ${def.noun} given by {id} has no ${noun} keys: give the ${noun} as {id: ...}` };
    const address = `${kind}/${parent}` as Address;
    if (!def.managed || !this.declared.has(address)) return { ok: false, error: `${address} is not declared, so ${noun} '${part}' cannot be found` };
    this.#use(address);
    const id = this.ids.partId(address, part) ?? null;
    if (this.planned(address)) return { ok: true, wire: placeholder(address, part), token: part, id };
    if (id !== null) return { ok: true, wire: id, token: part, id };
    return { ok: false, error: `${noun} '${part}' of ${address} is not on the target (and not planned in this run)` };
  }

  token(kind: AnyKind, id: string): RefToken {
    const address = this.ids.addressOf(kind, id);
    if (address) return nameOf(address);
    if (definitionOf(kind).managed) return { id };
    const index = this.#index(kind);
    const name = index?.byId.get(id);
    return name !== undefined && index?.byName.get(name)?.length === 1 ? name : { id };
  }

  partToken(kind: AnyKind, parentId: string, partId: string): RefToken {
    const address = this.ids.addressOf(kind, parentId);
    return (address && this.ids.partKey(address, partId)) ?? { id: partId };
  }

  #use(address: Address): void {
    const used = (this.#used ??= []);
    if (!used.includes(address)) used.push(address);
  }

  #index(kind: AnyKind): NameIndex | null {
    const known = this.#indexes.get(kind);
    if (known !== undefined) return known;
    const def = definitionOf(kind);
    const objects = this.live.objects(kind);
    let index: NameIndex | null = null;
    if (objects && def.displayName) {
      index = { byName: new Map(), byId: new Map() };
      const nameOfLive = def.displayName.bind(def) as (live: unknown) => string;
      for (const o of objects) {
        const name = nameOfLive(o);
        index.byId.set(o.id, name);
        const list = index.byName.get(name);
        if (list) list.push(o.id);
        else index.byName.set(name, [o.id]);
      }
    }
    this.#indexes.set(kind, index);
    return index;
  }
}
