import type { LiveObject } from '../core/live.js';
import type { KindDefinition } from '../kinds/kind.js';
import type { NameOrId } from '../kinds/refs.js';
import { definitionOf, type AnyKind } from '../kinds/registry.js';
import type { ExportInput } from './export-input.js';

export function displayNameOf(def: KindDefinition, live: LiveObject): string {
  const named = def.displayName?.bind(def);
  return named ? named(live) : '';
}

/** How exported manifests refer to objects, exported or not (indexes built once per kind: exports of thousands stay linear). */
export class ExportRefs {
  readonly #byId = new Map<AnyKind, Map<string, LiveObject>>();
  readonly #displayCount = new Map<AnyKind, Map<string, number>>();
  readonly #exportedNames = new Map<AnyKind, Set<string>>();
  readonly #partKeys = new Map<string, ReadonlyMap<string, string>>();

  constructor(
    private readonly input: ExportInput,
    private readonly names: ReadonlyMap<AnyKind, ReadonlyMap<string, string>>,
    private readonly chosen: ReadonlyMap<AnyKind, ReadonlySet<string>>,
  ) {}

  /** The metadata.name of an object; with `exportedOnly`, only when it is exported in this run (or declared). */
  nameOf(kind: AnyKind, id: string, exportedOnly = false): string | undefined {
    const declared = this.input.declared?.name(kind, id);
    if (declared !== undefined) return declared;
    if (exportedOnly && !this.chosen.get(kind)?.has(id)) return undefined;
    return this.names.get(kind)?.get(id);
  }

  ref(kind: AnyKind, id: string): NameOrId {
    const exported = this.nameOf(kind, id, true);
    if (exported !== undefined) return exported;
    const live = this.#index(kind).get(id);
    if (!live) return { id };
    const display = displayNameOf(definitionOf(kind), live);
    // A display name another exported (or declared) manifest uses as its metadata.name would resolve to that one.
    const taken = this.#exported(kind).has(display) || this.input.declared?.declares(kind, display) === true;
    return display !== '' && this.uniqueDisplayName(kind, id) && !taken ? display : { id };
  }

  partKey(kind: AnyKind, parentId: string, partId: string): string | undefined {
    const declared = this.input.declared?.partKeys(kind, parentId);
    if (declared) return declared.get(partId);
    if (this.nameOf(kind, parentId, true) === undefined) return undefined;
    const def = definitionOf(kind);
    if (!def.managed || !def.parts) return undefined;
    const cacheKey = `${kind}\u0000${parentId}`;
    let keys = this.#partKeys.get(cacheKey);
    if (!keys) {
      const parent = this.#index(kind).get(parentId);
      keys = parent ? def.parts.exportKeys(parent) : new Map<string, string>();
      this.#partKeys.set(cacheKey, keys);
    }
    return keys.get(partId);
  }

  uniqueDisplayName(kind: AnyKind, id: string): boolean {
    const live = this.#index(kind).get(id);
    if (!live) return false;
    let counts = this.#displayCount.get(kind);
    if (!counts) {
      const def = definitionOf(kind);
      counts = new Map();
      for (const o of this.input.objects(kind) ?? []) {
        const n = displayNameOf(def, o);
        counts.set(n, (counts.get(n) ?? 0) + 1);
      }
      this.#displayCount.set(kind, counts);
    }
    return counts.get(displayNameOf(definitionOf(kind), live)) === 1;
  }

  #index(kind: AnyKind): Map<string, LiveObject> {
    let index = this.#byId.get(kind);
    if (!index) this.#byId.set(kind, (index = new Map((this.input.objects(kind) ?? []).map((o) => [o.id, o]))));
    return index;
  }

  /** The metadata.names of the exported objects of a kind. */
  #exported(kind: AnyKind): Set<string> {
    let names = this.#exportedNames.get(kind);
    if (!names) {
      names = new Set();
      for (const id of this.chosen.get(kind) ?? []) {
        const name = this.names.get(kind)?.get(id);
        if (name !== undefined) names.add(name);
      }
      this.#exportedNames.set(kind, names);
    }
    return names;
  }
}
