/**
 * The two resolvers of references to one kind (PlanRefs holds one per kind): a kind obsync only reads,
 * answered from its live objects; a managed kind, answered from the declared objects first.
 */
import type { IdMap } from '../core/id-map.js';
import type { LiveState } from '../core/live.js';
import { nameOf, type Address } from '../core/plan.js';
import type { Json } from '../core/wire.js';
import type { KindDefinition } from '../kinds/kind.js';
import type { NameOrId, RefToken, RefUse } from '../kinds/refs.js';
import { didYouMean } from '../manifests/suggest.js';
import { NameIndex } from './name-index.js';

/** What the resolvers of every kind share in one plan. */
export interface Shared {
  live: LiveState;
  ids: IdMap;
  /** Whether a declared object has a step in this plan (its id is then the applier's to fill). */
  planned: (address: Address) => boolean;
  /** Records that the object being planned refers to a declared object. */
  use: (address: Address) => void;
  placeholder: (address: Address, part?: string) => Json;
}

export interface KindRefs {
  ref(ref: NameOrId): RefUse;
  part(parent: NameOrId, part: NameOrId): RefUse;
  wire(ref: NameOrId, part?: NameOrId): Json | null;
  token(id: string): RefToken;
  partToken(parentId: string, partId: string): RefToken;
  /** Whether an id is one of a managed object matched in this plan. */
  isManaged(id: string): boolean;
}

/** A kind obsync only reads: referred to by display name (unique) or {id}. */
export class ReadableRefs implements KindRefs {
  readonly #index: NameIndex | null;

  constructor(
    private readonly def: KindDefinition,
    live: LiveState,
  ) {
    const objects = live.objects(def.kind);
    this.#index = objects && def.displayName ? new NameIndex(def, objects) : null;
  }

  ref(ref: NameOrId): RefUse {
    if (typeof ref !== 'string') return { ok: true, token: this.token(ref.id), id: ref.id };
    if (!this.#index) return { ok: false, error: `${this.def.noun}s cannot be referred to by name on this target; use {id: ...}` };
    return this.#index.resolve(this.def.noun, ref);
  }

  part(): RefUse {
    return { ok: false, error: `a ${this.def.noun} has no keyed parts` };
  }

  wire(ref: NameOrId): Json | null {
    const use = this.ref(ref);
    return use.ok ? use.id : null;
  }

  token(id: string): RefToken {
    return this.#index?.uniqueName.get(id) ?? { id };
  }

  partToken(_parentId: string, partId: string): RefToken {
    return { id: partId };
  }

  isManaged(): boolean {
    return false;
  }
}

/** A managed kind: a name is a declared object first, else one unmanaged live object; tokens of unmanaged ones are ids. */
export class ManagedRefs implements KindRefs {
  /**
   * metadata.name → address of every declared object of the kind (the manifests' strings, hashed
   * once), made on the first reference to the kind: most kinds are referred to by none (10,000
   * alerts' names were 0.9 MB of a first plan's large tables).
   */
  #declared: Map<string, Address> | undefined;
  #index: NameIndex | null | undefined;

  constructor(
    private readonly def: KindDefinition,
    private readonly shared: Shared,
    private readonly declarations: () => Iterable<{ name: string; address: Address }>,
  ) {}

  #declaredAt(name: string): Address | undefined {
    return this.#declaredByName().get(name);
  }

  #declaredByName(): Map<string, Address> {
    let declared = this.#declared;
    if (declared === undefined) {
      declared = this.#declared = new Map();
      for (const d of this.declarations()) declared.set(d.name, d.address);
    }
    return declared;
  }

  ref(ref: NameOrId): RefUse {
    if (typeof ref !== 'string') return { ok: true, token: this.token(ref.id), id: ref.id };
    const address = this.#declaredAt(ref);
    if (address === undefined) return this.#byDisplayName(ref);
    this.shared.use(address);
    const id = this.shared.ids.id(address) ?? null;
    if (id === null && !this.shared.planned(address))
      return { ok: false, error: `${address} is not on the target (and not planned in this run)` };
    return { ok: true, token: ref, id };
  }

  part(parent: NameOrId, part: NameOrId): RefUse {
    const noun = (this.def.managed ? this.def.parts?.noun : undefined) ?? 'part';
    if (typeof part !== 'string') {
      const parentAddress = typeof parent === 'string' ? this.#declaredAt(parent) : undefined;
      const parentId = typeof parent === 'string' ? parentAddress && this.shared.ids.id(parentAddress) : parent.id;
      return { ok: true, token: parentId === undefined ? { id: part.id } : this.partToken(parentId, part.id), id: part.id };
    }
    if (typeof parent !== 'string')
      return { ok: false, error: `a ${this.def.noun} given by {id} has no ${noun} keys: give the ${noun} as {id: ...}` };
    const address = this.#declaredAt(parent);
    if (address === undefined)
      return {
        ok: false,
        error:
          `${this.def.kind}/${parent} is not declared, so ${noun} '${part}' cannot be ` +
          `found${didYouMean(parent, this.#declaredByName().keys())}`,
      };
    this.shared.use(address);
    const id = this.shared.ids.partId(address, part) ?? null;
    if (id === null && !this.shared.planned(address))
      return { ok: false, error: `${noun} '${part}' of ${address} is not on the target (and not planned in this run)` };
    return { ok: true, token: part, id };
  }

  wire(ref: NameOrId, part?: NameOrId): Json | null {
    const use = part === undefined ? this.ref(ref) : this.part(ref, part);
    if (!use.ok) return null;
    const address = typeof ref === 'string' ? this.#declaredAt(ref) : undefined;
    // A managed object planned in this run: the applier fills its id (it may be created, or re-created, first).
    if (address !== undefined && this.shared.planned(address)) {
      if (part === undefined) return this.shared.placeholder(address);
      if (typeof part === 'string') return this.shared.placeholder(address, part);
    }
    return use.id;
  }

  /**
   * An unmanaged object's token carries its display name when unique, for the reader (it comes from the id, so both sides of a diff agree).
   */
  token(id: string): RefToken {
    const address = this.shared.ids.addressOf(this.def.kind, id);
    if (address) return nameOf(address);
    const name = this.#names()?.uniqueName.get(id);
    return name === undefined ? { id } : { id, name };
  }

  partToken(parentId: string, partId: string): RefToken {
    const address = this.shared.ids.addressOf(this.def.kind, parentId);
    return (address && this.shared.ids.partKey(address, partId)) ?? { id: partId };
  }

  isManaged(id: string): boolean {
    return this.shared.ids.addressOf(this.def.kind, id) !== undefined;
  }

  /** No manifest declares the name: one unmanaged live object of that display name (rare: built on first use). */
  #byDisplayName(name: string): RefUse {
    const index = this.#names();
    const declared = this.#declaredByName().keys();
    if (!index)
      return {
        ok: false,
        error: `${this.def.noun} '${name}' is not declared by any ${this.def.kind} manifest${didYouMean(name, declared)}`,
      };
    const use = index.resolve(this.def.noun, name, declared);
    return use.ok && use.id !== null ? { ok: true, token: this.token(use.id), id: use.id } : use;
  }

  /** Live objects of the kind by display name (built on first use). */
  #names(): NameIndex | null {
    if (this.#index === undefined) {
      const objects = this.shared.live.objects(this.def.kind);
      this.#index = objects && this.def.displayName ? new NameIndex(this.def, objects) : null;
    }
    return this.#index;
  }
}
