/**
 * The planner's answer to every reference a kind makes, generic over kinds (src/kinds/refs.ts):
 * a name is the metadata.name of a declared object of a managed kind when there is one (its id
 * when matched, a placeholder when planned in this run), else the display name of exactly one
 * live object; `{id}` is taken as is. Tokens: a managed object's name; an unmanaged object of a
 * kind obsync only reads, its display name when unique; anything else `{id}`, with the display
 * name beside it when unique, for the reader (so an unmanaged object of a managed kind never
 * compares equal to a managed one).
 *
 * One resolver object per kind, of one of two classes: every reference to a kind takes the same
 * path, so the hot functions keep stable type feedback (a shared function whose managed branch
 * first runs after it was optimized for the other kinds is deoptimized in every plan).
 */
import type { IdMap } from '../core/id-map.js';
import type { LiveState } from '../core/live.js';
import { nameOf, type Address, type NamedRef } from '../core/plan.js';
import type { Json } from '../core/wire.js';
import type { KindDefinition, SpecRef } from '../kinds/kind.js';
import { placeholder, tokenJson, type NameOrId, type RefContext, type RefToken, type RefUse, type TokenContext } from '../kinds/refs.js';
import { REGISTRY, type AnyKind } from '../kinds/registry.js';
import { didYouMean } from '../manifests/suggest.js';

/** Live objects of one kind by display name. */
class NameIndex {
  readonly byName = new Map<string, string[]>();
  /** id → its name when no other object has it (the token), else absent. */
  readonly uniqueName = new Map<string, string>();

  constructor(def: KindDefinition, objects: readonly { id: string }[]) {
    const nameOfLive = def.displayName?.bind(def) as ((live: unknown) => string) | undefined;
    if (!nameOfLive) return;
    for (const o of objects) {
      const name = nameOfLive(o);
      const list = this.byName.get(name);
      if (list) list.push(o.id);
      else this.byName.set(name, [o.id]);
    }
    for (const [name, ids] of this.byName) if (ids.length === 1 && ids[0] !== undefined) this.uniqueName.set(ids[0], name);
  }

  /** `declared`: the names the manifests give objects of the kind, suggested beside the live ones. */
  resolve(noun: string, name: string, declared: Iterable<string> = []): RefUse {
    const found = this.byName.get(name) ?? [];
    const [only] = found;
    if (found.length === 1 && only !== undefined) return { ok: true, token: this.uniqueName.get(only) ?? { id: only }, id: only };
    if (found.length === 0)
      return {
        ok: false,
        error: `${noun} '${name}' does not exist on the target${didYouMean(name, [...declared, ...this.byName.keys()])}`,
      };
    return {
      ok: false,
      error: `${found.length} ${noun}s are named '${name}' on the target; refer to one by {id: ...} (${found.join(', ')})`,
    };
  }
}

/** What the resolvers of every kind share in one plan. */
interface Shared {
  live: LiveState;
  ids: IdMap;
  /** Whether a declared object has a step in this plan (its id is then the applier's to fill). */
  planned: (address: Address) => boolean;
  /** Records that the object being planned refers to a declared object. */
  use: (address: Address) => void;
  placeholder: (address: Address, part?: string) => Json;
}

interface KindRefs {
  ref(ref: NameOrId): RefUse;
  part(parent: NameOrId, part: NameOrId): RefUse;
  wire(ref: NameOrId, part?: NameOrId): Json | null;
  token(id: string): RefToken;
  partToken(parentId: string, partId: string): RefToken;
  /** Whether an id is one of a managed object matched in this plan. */
  isManaged(id: string): boolean;
}

/** A kind obsync only reads: referred to by display name (unique) or {id}. */
class ReadableRefs implements KindRefs {
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
class ManagedRefs implements KindRefs {
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
        error: `${this.def.kind}/${parent} is not declared, so ${noun} '${part}' cannot be found${didYouMean(parent, this.#declaredByName().keys())}`,
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

  /** An unmanaged object's token carries its display name when unique, for the reader (it comes from the id, so both sides of a diff agree). */
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

export class PlanRefs implements RefContext, TokenContext {
  readonly #kinds = new Map<AnyKind, KindRefs>();
  /** Placeholders are immutable JSON: one per address (and part) for the whole plan. */
  readonly #placeholders = new Map<string, Json>();
  #used: Address | Address[] | null = null;

  constructor(
    live: LiveState,
    desired: readonly { kind: string; name: string; address: Address }[],
    planned: (address: Address) => boolean,
    ids: IdMap,
  ) {
    const shared: Shared = { live, ids, planned, use: (a) => this.#use(a), placeholder: (a, p) => this.#placeholder(a, p) };
    for (const def of REGISTRY as readonly KindDefinition[])
      this.#kinds.set(
        def.kind,
        def.managed ? new ManagedRefs(def, shared, () => declaredOf(desired, def.kind)) : new ReadableRefs(def, live),
      );
  }

  /** Starts collecting the declared objects one desired object refers to. */
  startObject(): void {
    this.#used = null;
  }

  /** The declared objects referred to since `startObject`: the object depends on them. */
  usedAddresses(): Address[] {
    const used = this.#used;
    return used === null ? [] : typeof used === 'string' ? [used] : used;
  }

  /** The unmanaged objects a desired object refers to, with their tokens (the applier's re-diff needs them). */
  namesOf(refs: readonly SpecRef[]): NamedRef[] {
    const out: NamedRef[] = [];
    for (const r of refs) {
      const use = this.ref(r.kind, r.ref);
      if (!use.ok || use.id === null || this.#of(r.kind).isManaged(use.id)) continue;
      const token = use.token;
      if (!out.some((n) => n.kind === r.kind && n.id === use.id)) out.push({ kind: r.kind, id: use.id, token: tokenJson(token) });
    }
    return out;
  }

  ref(kind: AnyKind, ref: NameOrId): RefUse {
    return this.#of(kind).ref(ref);
  }

  part(kind: AnyKind, parent: NameOrId, part: NameOrId): RefUse {
    return this.#of(kind).part(parent, part);
  }

  wire(kind: AnyKind, ref: NameOrId, part?: NameOrId): Json | null {
    return this.#of(kind).wire(ref, part);
  }

  token(kind: AnyKind, id: string): RefToken {
    return this.#of(kind).token(id);
  }

  partToken(kind: AnyKind, parentId: string, partId: string): RefToken {
    return this.#of(kind).partToken(parentId, partId);
  }

  #of(kind: AnyKind): KindRefs {
    const refs = this.#kinds.get(kind);
    if (!refs) throw new Error(`no kind ${kind} in the registry`);
    return refs;
  }

  #placeholder(address: Address, part?: string): Json {
    const key = part === undefined ? address : `${address}\u0000${part}`;
    let value = this.#placeholders.get(key);
    if (value === undefined) {
      value = placeholder(address, part);
      this.#placeholders.set(key, value);
    }
    return value;
  }

  /** Most objects refer to one declared object at most: no array until a second one. */
  #use(address: Address): void {
    const used = this.#used;
    if (used === null) this.#used = address;
    else if (typeof used === 'string') {
      if (used !== address) this.#used = [used, address];
    } else if (!used.includes(address)) used.push(address);
  }
}

function* declaredOf(
  desired: readonly { kind: string; name: string; address: Address }[],
  kind: string,
): Iterable<{ name: string; address: Address }> {
  for (const r of desired) if (r.kind === kind) yield r;
}
