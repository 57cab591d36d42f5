import type { KindDefinition } from '../kinds/kind.js';
import type { RefUse } from '../kinds/refs.js';
import { didYouMean } from '../manifests/suggest.js';

/** Live objects of one kind by display name. */
export class NameIndex {
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
