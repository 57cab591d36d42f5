/** What an export reads: the live objects by kind, the inventory, its filters, and what the manifests already declare. */
import type { InventoryEntry } from '../core/inventory.js';
import type { LiveObject } from '../core/live.js';
import type { AnyKind } from '../kinds/registry.js';

export interface ExportInput {
  /** Live objects of a kind; undefined when the target does not serve it (or it was not read). */
  objects(kind: AnyKind): readonly LiveObject[] | undefined;
  /** --kind: only these kinds (all managed kinds the target serves when absent). */
  kinds?: ReadonlySet<string> | undefined;
  /** --match: only objects whose display name matches. */
  match?: RegExp | undefined;
  /** The target's inventory: an object obsync owns keeps the name it is owned under. */
  owned: readonly InventoryEntry[];
  /** The target's name: display names that name it (`Storefront (staging)`) are named without it. */
  target?: string | undefined;
  /** Only the objects this accepts (besides --kind and --match): `obsync pull --include-unmanaged`. */
  include?: ((kind: AnyKind, live: LiveObject) => boolean) | undefined;
  /** Objects the manifests already declare (pull): references to them use their names and tile keys. */
  declared?: DeclaredObjects | undefined;
}

/** The manifests' names for live objects, by id. */
export interface DeclaredObjects {
  name(kind: AnyKind, id: string): string | undefined;
  /** Whether a manifest of the kind has this metadata.name. */
  declares(kind: AnyKind, name: string): boolean;
  /** A declared object's tile keys, by tile id. */
  partKeys(kind: AnyKind, id: string): ReadonlyMap<string, string> | undefined;
}
