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
import type { Address, NamedRef } from '../core/plan.js';
import type { Json } from '../core/wire.js';
import type { KindDefinition, SpecRef } from '../kinds/kind.js';
import { placeholder, tokenJson, type NameOrId, type RefContext, type RefToken, type RefUse, type TokenContext } from '../kinds/refs.js';
import { REGISTRY, type AnyKind } from '../kinds/registry.js';
import { type Shared, type KindRefs, ReadableRefs, ManagedRefs } from './kind-resolvers.js';

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
