/**
 * One kind's live objects indexed by id and by natural key, built once per plan: matching
 * 10,000 desired objects against 10,000 live ones must not compare every pair.
 */
import { pushTo } from '../core/collections.js';
import type { KindDefinition, Lookups } from '../kinds/kind.js';

export class LiveIndex<Live extends { id: string }> {
  readonly #byId = new Map<string, Live>();
  readonly #byKey = new Map<string, Live[]>();

  constructor(objects: readonly Live[], keyOf: (live: Live) => string | readonly string[]) {
    for (const live of objects) {
      this.#byId.set(live.id, live);
      const keys = keyOf(live);
      for (const key of typeof keys === 'string' ? [keys] : keys) pushTo(this.#byKey, key, live);
    }
  }

  get(id: string): Live | undefined {
    return this.#byId.get(id);
  }

  /** Live objects whose natural key is `key`, in live order. */
  withKey(key: string): readonly Live[] {
    return this.#byKey.get(key) ?? [];
  }
}

/**
 * Indexes per kind, built on first use. A kind's live keys may read the lookups of kinds planned
 * before it (lower rank), so an index is built when its kind's turn comes, not up front.
 */
export class LiveIndexes {
  readonly #built = new Map<string, LiveIndex<{ id: string }>>();

  constructor(
    private readonly liveOf: (def: KindDefinition) => readonly { id: string }[] | undefined,
    private readonly lookups: Lookups,
  ) {}

  of(def: KindDefinition): LiveIndex<{ id: string }> | undefined {
    const cached = this.#built.get(def.kind);
    if (cached) return cached;
    const objects = this.liveOf(def);
    if (!objects) return undefined;
    const index = new LiveIndex(objects, (o) => def.liveKey(o, this.lookups));
    this.#built.set(def.kind, index);
    return index;
  }
}
