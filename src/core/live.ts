/** The live state one plan is made against: every collection read from the service in one pass. */
import type { AnyKind } from './kind-name.js';

export interface LiveObject {
  id: string;
}

export interface LiveState {
  /** The live objects of a kind; undefined when not read (the variant lacks it, or no manifest needed it). */
  objects(kind: AnyKind): readonly LiveObject[] | undefined;
  /** Version (hash) of a live object, computed on first ask (only changing steps record one). */
  versionOf(kind: AnyKind, id: string): string | undefined;
}
