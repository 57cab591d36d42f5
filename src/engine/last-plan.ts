/**
 * A daemon's plan of a wholly unchanged estate, taken as it was. The planner is a function of its
 * inputs alone (no clock, no I/O): when every input of the last plan is the same, it would make
 * the same plan. Recognising that costs a look at each object, where planning even memoised
 * objects (planner/memo.ts) costs a replay of everything each one was compared from.
 *
 * "The same" is decided without trusting any cache of this module's own:
 * - manifests: the very same objects, frozen (a daemon's kept loads hand over the resource of an
 *   unchanged document run after run; objects are frozen here only by `deepFreeze`, which freezes
 *   everything inside first), or objects loaded again from an equal document at the same place
 *   (a file with `${...}` is loaded afresh each run): the same digest, taken after interpolation,
 *   which covers kind, name, labels and spec, and the same file, line and field positions (a
 *   plan's errors point at them);
 * - live objects: the very same objects, frozen, in the same order, for the same kinds (the remote
 *   client hands out the object it parsed when an item's raw bytes are unchanged, core/item-memo.ts);
 * - inventory entries: the same or equal entries in the same order (a PostgreSQL store reloads
 *   its entries as new objects);
 * - everything else a plan depends on: target, variant, the fingerprint key, the sensitive paths,
 *   selection, prune settings, adoption policy, prune blockers, and whether backtests are on (a
 *   plan kept while they were off holds alert changes no backtest ran for).
 *
 * Never a plan that backtests alerts: their series are read at the time of each run. A plan kept
 * is frozen, and each run gets a copy of its top level (a run records its backtest summary there).
 */
import type { InventoryEntry } from '../core/inventory.js';
import { sameItems } from '../core/collections.js';
import { deepFreeze } from '../core/freeze.js';
import { sameJson } from '../core/json.js';
import type { AnyKind } from '../core/kind-name.js';
import type { LiveObject } from '../core/live.js';
import type { Address, Plan } from '../core/plan.js';
import type { DesiredResource, SourceLocation } from '../core/resource.js';
import type { Json } from '../core/wire.js';
import type { SensitivePaths } from './secrets.js';

/** What one plan was made from. */
export interface PlanInputs {
  /** Target, variant, fingerprint key and options, as one string. */
  scope: string;
  sensitive: SensitivePaths;
  desired: readonly DesiredResource[];
  /** Each kind read, with its live objects. */
  live: readonly { kind: AnyKind; objects: readonly LiveObject[] }[];
  inventory: readonly InventoryEntry[];
}

/** A plan with what its apply needs besides it. */
export interface KeptPlan {
  plan: Plan;
  secretValues: ReadonlyMap<Address, ReadonlyMap<string, Json>>;
}

export class LastPlan {
  #last: { inputs: PlanInputs; kept: KeptPlan } | undefined;
  /** Plans taken as they were, since this memo was made. */
  reused = 0;

  /** The last plan, when it was made from the same inputs (its top level a copy); undefined otherwise. */
  take(inputs: PlanInputs): KeptPlan | undefined {
    const last = this.#last;
    if (!last || !sameInputs(last.inputs, inputs)) return undefined;
    this.reused += 1;
    // Equal inputs, but this run's: the last run's manifests and entries (reloaded as other objects) are not held on to.
    if (keepable(inputs)) last.inputs = inputs;
    return { plan: { ...last.kept.plan }, secretValues: last.kept.secretValues };
  }

  /**
   * Keeps a plan just made (frozen: the caller gets it back as a copy of its top level) for the
   * next run to take, or forgets the last one when this one cannot be kept. `backtests`: the
   * alerts this run backtests (none when backtests are off).
   */
  keep(inputs: PlanInputs, made: KeptPlan, backtests: number): KeptPlan {
    if (backtests > 0 || !keepable(inputs)) {
      this.#last = undefined;
      return made;
    }
    const kept = { plan: deepFreeze(made.plan), secretValues: made.secretValues };
    this.#last = { inputs, kept };
    return { plan: { ...kept.plan }, secretValues: kept.secretValues };
  }
}

/** Inputs whose sameness can be proven: manifests frozen or with a digest, frozen live objects and entries. */
function keepable(inputs: PlanInputs): boolean {
  const frozen = (o: object) => Object.isFrozen(o);
  return (
    inputs.desired.every((r) => frozen(r) || r.digest !== undefined) &&
    inputs.inventory.every(frozen) &&
    inputs.live.every((l) => l.objects.every(frozen))
  );
}

function sameResource(a: DesiredResource, b: DesiredResource): boolean {
  if (a === b) return Object.isFrozen(a);
  return a.digest !== undefined && a.digest === b.digest && samePlace(a.source, b.source);
}

function samePlace(a: SourceLocation, b: SourceLocation): boolean {
  if (a.file !== b.file || a.line !== b.line || a.col !== b.col) return false;
  const x = a.fields ?? NO_POSITIONS;
  const y = b.fields ?? NO_POSITIONS;
  const keys = Object.keys(x);
  if (keys.length !== Object.keys(y).length) return false;
  return keys.every((k) => x[k]?.line === y[k]?.line && x[k]?.col === y[k]?.col);
}

const NO_POSITIONS: NonNullable<SourceLocation['fields']> = {};

function sameInputs(a: PlanInputs, b: PlanInputs): boolean {
  return (
    a.scope === b.scope &&
    a.sensitive === b.sensitive &&
    a.desired.length === b.desired.length &&
    a.desired.every((r, i) => sameResource(r, b.desired[i] as DesiredResource)) &&
    a.live.length === b.live.length &&
    a.live.every((l, i) => {
      const other = b.live[i];
      return other !== undefined && l.kind === other.kind && sameItems(l.objects, other.objects);
    }) &&
    sameEntries(a.inventory, b.inventory)
  );
}

function sameEntries(a: readonly InventoryEntry[], b: readonly InventoryEntry[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as InventoryEntry;
    const y = b[i] as InventoryEntry;
    if (x !== y && !sameJson(x as unknown as Json, y as unknown as Json)) return false;
  }
  return true;
}
