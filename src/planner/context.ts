/** What the planner keeps while planning one target: ids matched so far, live indexes, references. */
import { IdMap } from '../core/id-map.js';
import type { InventoryEntry, SkippedRow } from '../core/inventory.js';
import type { ListGap, LiveState } from '../core/live.js';
import type { Address, AdoptPolicy, Kind } from '../core/plan.js';
import type { Variant } from '../core/ports.js';
import type { DeclaringFiles, DesiredResource } from '../core/resource.js';
import type { OwnersElsewhere } from '../core/owners-elsewhere.js';
import type { Json } from '../core/wire.js';
import type { ManagedKind } from '../kinds/kind.js';
import { MANAGED, REGISTRY } from '../kinds/registry.js';
import { LiveIndex } from './live-index.js';
import type { PlanMemo } from './memo.js';
import type { MovePlan } from './moves.js';
import { PlanRefs } from './refs.js';

export interface PlanInput {
  target: string;
  variant: Variant;
  /** Every declared resource (references resolve against all of them; prune never touches them). */
  desired: readonly DesiredResource[];
  /** Each object's manifest file as the inventory records it, and the files that declare nothing now (absent: none recorded or checked). */
  declaringFiles?: DeclaringFiles;
  /** The resources to plan steps for (--selector / --only); all when absent. */
  selected?: ReadonlySet<Address>;
  /** Which inventory entries this run may prune (the narrowing applied to entries). */
  eligibleForPrune: (entry: InventoryEntry) => boolean;
  live: LiveState;
  inventory: readonly InventoryEntry[];
  /**
   * Rows of the inventory left out (not readable, or a second owner of one object): nothing is planned at their addresses, prune is off.
   */
  skipped?: readonly SkippedRow[];
  /** Hash of each desired spec (engine-computed). */
  specHashes: Pick<ReadonlyMap<Address, string>, 'get'>;
  /** Fingerprints of each desired object's sensitive values, by path. */
  fingerprints: ReadonlyMap<Address, Record<string, string>>;
  /** The keyed fingerprint of a value (the same function the desired fingerprints come from). */
  fingerprint: (value: Json) => string;
  prune: boolean;
  /** `--prune-cascade`: deletes and updates may take along objects obsync does not own. */
  pruneCascade: boolean;
  /** `--allow-empty-kind`: kinds whose last owned objects may be pruned. */
  allowEmptyKinds?: readonly Kind[];
  maxDeletes: number;
  /** Reasons this run must not prune (invalid manifests, a failure earlier in the run). */
  pruneBlockers?: readonly string[];
  /** The target's adoption policy (default by-name). */
  adopt?: AdoptPolicy;
  /** What the last plans of this target found unchanged (a daemon's; memo.ts): read and renewed by this plan. */
  memo?: PlanMemo;
  /** Keep each unchanged object's form in its step (`form`): a JSON plan shows every object's values. */
  unchangedForms?: boolean;
  /** Owned objects the service's lists left out although they exist (engine/list-gaps.ts): this run creates nothing. */
  listGaps?: readonly ListGap[];
  /**
   * A daemon's addresses created run after run (engine/repeated-creates.ts), with the spec hash they were created with: not created again.
   */
  refusedCreates?: ReadonlyMap<Address, string | undefined>;
  /** The objects other targets on this target's service own: never adopted here (core/owners-elsewhere.ts). */
  ownersElsewhere?: OwnersElsewhere;
}

/**
 * Live ids of one kind no desired object may adopt: the ids the inventory owns, and those adopted
 * earlier in this plan. Made on first use: a plan whose objects are all owned never asks (matching
 * an owned object looks it up by its id), and the set of 20,000 owned ids was 1.2 MB of a first
 * plan's large tables.
 */
class TakenIds {
  #ids: Set<string> | undefined;

  constructor(private readonly owned: () => Iterable<string>) {}

  has(id: string): boolean {
    return this.#all().has(id);
  }

  add(id: string): void {
    this.#all().add(id);
  }

  #all(): Set<string> {
    return (this.#ids ??= new Set(this.owned()));
  }
}

/** Kinds some kind refers to. */
const REFERABLE: ReadonlySet<string> = new Set(REGISTRY.flatMap((d) => d.refersTo));

export class PlanContext {
  readonly ids = new IdMap();
  readonly refs: PlanRefs;
  readonly memo: PlanMemo | undefined;
  readonly #indexes = new Map<Kind, LiveIndex | null>();
  readonly #taken = new Map<Kind, TakenIds>();
  readonly #once = new Map<string, unknown>();
  /** Renames of this plan (set by the planner before any object is planned). */
  moves: MovePlan | undefined;

  constructor(readonly input: PlanInput) {
    // Built up front, not on first use: a lazy branch inside a hot function deoptimizes it once per plan.
    for (const def of MANAGED) this.#taken.set(def.kind, this.#newTaken(def.kind));
    const selected = input.selected;
    this.refs = new PlanRefs(input.live, input.desired, (a) => !selected || selected.has(a), this.ids);
    this.memo = input.memo;
  }

  /** The kind's live objects by id and natural key; null when the target does not serve the kind. */
  index(def: ManagedKind): LiveIndex | null {
    return this.#indexes.get(def.kind) ?? this.#buildIndex(def);
  }

  #buildIndex(def: ManagedKind): LiveIndex | null {
    const objects = this.input.live.objects(def.kind);
    const build = () => new LiveIndex(objects ?? [], (o) => def.liveKey(o));
    const index = objects ? (this.memo ? this.memo.index(def.kind, objects, build) : build()) : null;
    this.#indexes.set(def.kind, index);
    return index;
  }

  /** Live ids no desired object may adopt: owned by the inventory, or adopted earlier in this plan. */
  taken(kind: Kind): TakenIds {
    let taken = this.#taken.get(kind);
    if (taken === undefined) this.#taken.set(kind, (taken = this.#newTaken(kind)));
    return taken;
  }

  #newTaken(kind: Kind): TakenIds {
    return new TakenIds(() => ownedIds(this.input.inventory, kind));
  }

  /** A value computed once per plan, on first use (what only rare paths need). */
  once<T>(key: string, make: () => T): T {
    if (this.#once.has(key)) return this.#once.get(key) as T;
    const value = make();
    this.#once.set(key, value);
    return value;
  }

  claim(kind: Kind, id: string): void {
    this.taken(kind).add(id);
  }

  /**
   * A declared object matched its live object. Kinds other objects refer to go into the id map
   * (references resolve through it); the rest are found from the plan's steps when needed.
   */
  register(def: ManagedKind, address: Address, id: string, parts: ReadonlyMap<string, string> | undefined): void {
    if (REFERABLE.has(def.kind)) this.ids.set(address, def.kind, id, parts);
  }
}

function* ownedIds(inventory: readonly InventoryEntry[], kind: Kind): Iterable<string> {
  for (const e of inventory) if (e.kind === kind && e.status === 'owned' && e.id !== null) yield e.id;
}
