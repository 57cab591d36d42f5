/**
 * One kind's live objects indexed by id and by natural key, built once per plan: matching
 * 10,000 desired objects against 10,000 live ones must not compare every pair.
 */
import type { LiveObject } from '../core/live.js';

export class LiveIndex<Live extends LiveObject = LiveObject> {
  readonly #byId = new Map<string, Live>();
  /** A key's one object, or its objects when several share it: an array per key was 1 MB of a daemon's index at 20,000 objects. */
  readonly #byKey = new Map<string, Live | Live[]>();

  constructor(objects: readonly Live[], keyOf: (live: Live) => string | readonly string[]) {
    for (const live of objects) {
      this.#byId.set(live.id, live);
      const keys = keyOf(live);
      if (typeof keys === 'string') this.#add(keys, live);
      else for (const key of keys) this.#add(key, live);
    }
  }

  #add(key: string, live: Live): void {
    const found = this.#byKey.get(key);
    if (found === undefined) this.#byKey.set(key, live);
    else if (Array.isArray(found)) found.push(live);
    else this.#byKey.set(key, [found, live]);
  }

  get(id: string): Live | undefined {
    return this.#byId.get(id);
  }

  /** Live objects whose natural key is `key`, in live order. */
  withKey(key: string): readonly Live[] {
    const found = this.#byKey.get(key);
    return found === undefined ? [] : Array.isArray(found) ? found : [found];
  }
}
