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
  /**
   * Why a kind the run meant to read could not be read without changing the service (an idle
   * hosted service's pipes, in a read-only command); undefined when it was read. Its objects are
   * undefined: nothing of the kind is planned, adopted or pruned.
   */
  unread?(kind: AnyKind): string | undefined;
  /**
   * Why the target does not have this kind at all (open-source HyperDX has no roles), found by
   * reading it; undefined when it does. Its objects are undefined; a manifest of it is an error.
   */
  unsupported?(kind: AnyKind): string | undefined;
}

/**
 * An owned object the list of its kind left out although it exists (its GET by id found it): the
 * list is inconsistent, and the run creates nothing (engine/list-gaps.ts).
 */
export interface ListGap {
  kind: AnyKind;
  address: string;
  id: string;
}

/**
 * What a run read before it wrote: the proof that an id a create answers is new (DESIGN §4, trust
 * invariant 2). An id in this read existed before obsync's create, so the create did not make it.
 */
export interface ReadBefore {
  /** The id was among the objects the run read, of any kind (both variants' ids are unique across collections: ObjectIds, UUIDs). */
  had(id: string): boolean;
  /** Ids of `kind` whose natural key was `key` in that read. */
  withKey(kind: AnyKind, key: string): readonly string[];
}
