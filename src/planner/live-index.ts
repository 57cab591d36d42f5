/**
 * One kind's live objects indexed by id and by natural key, built once per plan: matching
 * 10,000 desired objects against 10,000 live ones must not compare every pair.
 */
import { pushTo } from '../core/collections.js';
import type { LiveObject } from '../core/live.js';

export class LiveIndex<Live extends LiveObject = LiveObject> {
  readonly #byId = new Map<string, Live>();
  readonly #byKey = new Map<string, Live[]>();

  constructor(objects: readonly Live[], keyOf: (live: Live) => string | readonly string[]) {
    for (const live of objects) {
      this.#byId.set(live.id, live);
      const keys = keyOf(live);
      if (typeof keys === 'string') pushTo(this.#byKey, keys, live);
      else for (const key of keys) pushTo(this.#byKey, key, live);
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
