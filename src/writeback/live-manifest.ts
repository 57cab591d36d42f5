/**
 * A live object in manifest terms for `obsync pull`: the kind's own export (`toManifest`, the
 * inverse of its normalisation), with references named as the manifests name them — a declared
 * object by its metadata.name, a tile of one by its manifest key, another object by its display
 * name where that is unique and no manifest uses it as a name, else `{id}` — and the object's own
 * tiles under the keys they already have. Sensitive values come back as SECRET_MARK: pull never
 * writes one, it reports a difference there as a conflict.
 */
import type { InventoryEntry } from '../core/inventory.js';
import type { LiveObject } from '../core/live.js';
import { nameOf } from '../core/plan.js';
import type { DesiredResource } from '../core/resource.js';
import type { Json, JsonObject } from '../core/wire.js';
import type { ExportContext, ManagedKind } from '../kinds/kind.js';
import type { NameOrId } from '../kinds/refs.js';
import type { AnyKind } from '../kinds/registry.js';
import type { PlanContext } from '../planner/context.js';

/** Stands for a sensitive value in a live manifest (never a manifest's own text: it holds a NUL). */
export const SECRET_MARK = '\u0000obsync:sensitive\u0000';

export function holdsSecretMark(value: Json | undefined): boolean {
  if (typeof value === 'string') return value === SECRET_MARK;
  if (Array.isArray(value)) return value.some(holdsSecretMark);
  if (value !== null && typeof value === 'object') return Object.values(value).some(holdsSecretMark);
  return false;
}

/** What the references of live manifests are resolved against: the plan's context, and names computed once per pull. */
export class LiveNames {
  readonly #declared = new Map<AnyKind, Set<string>>();
  readonly #displayCounts = new Map<AnyKind, Map<string, number>>();

  constructor(readonly plan: PlanContext) {}

  ref(kind: AnyKind, id: string): NameOrId {
    const declared = this.declaredName(kind, id);
    if (declared !== undefined) return declared;
    const token = this.plan.refs.token(kind, id);
    const display = typeof token === 'string' ? token : token.name;
    return display !== undefined && !this.#declaredNames(kind).has(display) ? display : { id };
  }

  declaredName(kind: AnyKind, id: string): string | undefined {
    const address = this.plan.ids.addressOf(kind, id);
    return address === undefined ? undefined : nameOf(address);
  }

  partRef(kind: AnyKind, parentId: string, partId: string): NameOrId {
    const address = this.plan.ids.addressOf(kind, parentId);
    return (address && this.plan.ids.partKey(address, partId)) ?? { id: partId };
  }

  uniqueDisplayName(def: ManagedKind, live: LiveObject): boolean {
    const nameOfLive = def.displayName?.bind(def);
    if (!nameOfLive) return false;
    let counts = this.#displayCounts.get(def.kind);
    if (!counts) {
      counts = new Map();
      for (const o of this.plan.input.live.objects(def.kind) ?? []) counts.set(nameOfLive(o), (counts.get(nameOfLive(o)) ?? 0) + 1);
      this.#displayCounts.set(def.kind, counts);
    }
    return counts.get(nameOfLive(live)) === 1;
  }

  #declaredNames(kind: AnyKind): Set<string> {
    let names = this.#declared.get(kind);
    if (!names) {
      names = new Set(this.plan.input.desired.filter((r) => r.kind === kind).map((r) => r.name));
      this.#declared.set(kind, names);
    }
    return names;
  }
}

/** The live object as its manifest's spec would say it (strings as values, not as written: no `$${`). */
export function liveManifest(
  def: ManagedKind,
  res: DesiredResource,
  entry: InventoryEntry | undefined,
  live: LiveObject,
  names: LiveNames,
): JsonObject {
  const pairing = def.parts?.pair(res.spec, live, entry?.tiles);
  const partKeys = pairing ? new Map([...pairing].map(([key, id]) => [id, key])) : undefined;
  const ctx: ExportContext = {
    ref: (kind, id) => names.ref(kind, id),
    declaredRef: (kind, id) => names.declaredName(kind, id) ?? { id },
    partRef: (kind, parentId, partId) => names.partRef(kind, parentId, partId),
    uniqueDisplayName: () => names.uniqueDisplayName(def, live),
    secret: () => SECRET_MARK,
    note: () => undefined,
    ...(partKeys ? { partKeys } : {}),
  };
  return def.toManifest(live, ctx);
}
