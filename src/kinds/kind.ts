/**
 * What the planner and applier need from a kind. One folder per kind implements it
 * (dashboard/, alert/, pipe/), `definitions.ts` lists them. Everything here is pure.
 */
import type { InventoryEntry } from '../core/inventory.js';
import type { Address, Kind, PipeCalls } from '../core/plan.js';
import type { DesiredResource } from '../core/resource.js';
import type { Json, JsonObject } from '../core/wire.js';
import type { LiveState, NameIndex } from '../core/live.js';

/** Lookups shared by all kinds during one plan or apply; ids of managed objects fill in as they are matched or created. */
export interface Lookups {
  sources: NameIndex;
  webhooks: NameIndex;
  savedSearches: NameIndex;
  /** Managed dashboards: address → live id, and back. */
  dashboardIds: Map<Address, string>;
  dashboardAddresses: Map<string, Address>;
  /** Managed dashboards: address → (tile key → live tile id). */
  tileIds: Map<Address, Map<string, string>>;
  /** Every desired resource by address (for cross-references). */
  desired: Map<Address, DesiredResource>;
}

export type Canonical = { ok: true; value: Json } | { ok: false; errors: string[] };

export interface MatchContext {
  entry: InventoryEntry | undefined;
  lookups: Lookups;
}

export interface KindDefinition<Spec = unknown, Live extends { id: string } = { id: string }> {
  readonly kind: Kind;
  /** Apply order: lower first; deletes run in reverse. */
  readonly rank: number;
  /** Pipes are never created nor deleted by obsync. */
  readonly creatable: boolean;
  readonly deletable: boolean;
  /** The live objects of this kind (undefined when not read, e.g. no capability). */
  liveObjects(live: LiveState): readonly Live[] | undefined;
  /** Managed objects that must be applied first. */
  dependencies(res: DesiredResource<Spec>): Address[];
  /**
   * Natural key of a desired object, in the same form as `liveKey`; null when it cannot be
   * known yet (it names an object that does not exist yet), so nothing can be adopted.
   */
  desiredKey(res: DesiredResource<Spec>, lookups: Lookups): string | null;
  /** Natural key(s) of a live object; pipes answer both their id and their name form. Read once per plan, when the kind's turn comes: it may use the lookups of lower-ranked kinds only. */
  liveKey(live: Live, lookups: Lookups): string | readonly string[];
  /** Called once a desired object is paired with its live object (before canonical forms). */
  onMatched?(res: DesiredResource<Spec>, live: Live, ctx: MatchContext): void;
  /** Called when a desired object has no live object (it will be created). */
  onMissing?(res: DesiredResource<Spec>, lookups: Lookups): void;
  /** Comparable form of the desired object; sensitive values as `{$sensitive: fingerprint}`. */
  canonicalDesired(res: DesiredResource<Spec>, lookups: Lookups, fingerprints: Record<string, string>): Canonical;
  /** Comparable form of the live object, in the desired object's terms. `entry` carries fingerprints of write-only values. */
  canonicalLive(live: Live, ctx: MatchContext, res: DesiredResource<Spec> | undefined): Json;
  /** Body of a create; references to objects not created yet are placeholders. */
  createPayload?(res: DesiredResource<Spec>, lookups: Lookups, fingerprints: Record<string, string>): JsonObject;
  /** What an update sends, given what changed. */
  updateCalls(res: DesiredResource<Spec>, live: Live, ctx: MatchContext, fingerprints: Record<string, string>, changedPaths: readonly string[]): { payload?: JsonObject; pipe?: PipeCalls };
  /**
   * After the service answered a create or update with the stored object: registers its ids in
   * the lookups (dependants resolve against them) and returns extra inventory fields
   * (dashboards: the tile key → tile id map).
   */
  recordWrite?(res: DesiredResource<Spec>, live: Live, lookups: Lookups): Pick<InventoryEntry, 'tiles'>;
  /** Notes for a plan step (e.g. alerts the service deletes as a side effect). */
  notes?(res: DesiredResource<Spec> | undefined, live: Live | undefined, state: LiveState, lookups: Lookups): string[];
}
