/**
 * A plan is a value (Terraform's idea): ordered steps with an action, a reason, the changed
 * paths with before/after (sensitive values masked) and what to send. It is built by a pure
 * function (src/planner), can be saved as JSON, reviewed, and applied exactly: the applier reads
 * nothing but the plan (and the secret values, which never go into one).
 */
import type { Backtest, BacktestRun, Impact, ImpactItem } from './backtest.js';
import type { Diagnostic } from './diagnostics.js';
import type { PolicyFinding } from './finding.js';
import type { AnyKind, Kind } from './kind-name.js';
import type { TargetIdentity } from './target.js';
import type { Json, JsonObject } from './wire.js';

export type { AnyKind, Kind };

export type Action = 'create' | 'update' | 'delete' | 'noop';

/**
 * Why a step exists: `missing` (not on the service), `drifted` (the service changed, the
 * manifest did not), `spec-changed` (the manifest changed since the last apply), `not-declared`
 * (owned but no longer in the manifests: prune), `unchanged` (no-op).
 */
export type Reason = 'missing' | 'drifted' | 'spec-changed' | 'not-declared' | 'unchanged';

/** `Kind/name`, e.g. `Dashboard/checkout`. */
export type Address = `${Kind}/${string}`;

export function addressOf(kind: Kind, name: string): Address {
  return `${kind}/${name}`;
}

/** The metadata.name part of an address. */
export function nameOf(address: Address): string {
  return address.slice(address.indexOf('/') + 1);
}

/** One changed field. Sensitive values are never present: `before`/`after` are `(sensitive)`. */
export interface Change {
  /** Path in the manifest's terms, e.g. `tiles[p99].config.select[0].aggFn`. */
  path: string;
  before?: Json;
  after?: Json;
  sensitive?: boolean;
}

/** A difference left out by an ignore rule (issue 48): shown as "ignored by rule …", never planned. */
export interface IgnoredChange extends Change {
  /** The rule's path, e.g. `tiles[*].x`. */
  rule: string;
  /** Where the rule is declared: `defaults.ignore.Dashboard`, `targets[prod].ignore.Dashboard`, `metadata.ignore`. */
  from: string;
}

/** One extra update call of a kind that is changed through several calls (pipes), sent in order. */
export interface UpdateCall {
  call: string;
  body: JsonObject;
}

/** What the applier writes into the inventory for the step's object. */
export interface StepRecord {
  /** Natural key of the live object (creates: derived from the body once its references are ids). */
  naturalKey?: string;
  labels?: Record<string, string>;
  /** Hash of the desired spec (tells `spec-changed` from `drifted` next time). */
  specHash?: string;
  /** Fingerprints of the write-only values, by path (the values never are in a plan). */
  secrets?: Record<string, string>;
  /** The manifest file that declares the object, relative to the project (what a file that declares nothing any more declared). */
  source?: string;
}

/** A sub-object the manifest keys (a dashboard tile), in manifest order, with its live id when known. */
export interface PartRef {
  key: string;
  id?: string;
}

/** The comparable token of an object referred to that obsync does not manage (a source's name). */
export interface NamedRef {
  kind: AnyKind;
  id: string;
  token: Json;
}

/** The desired object in comparable form: after a write the stored object is diffed against it. */
export interface Expected {
  value: Json;
  /** Tokens of the unmanaged objects it refers to (managed ones resolve through the applier's ids). */
  names: NamedRef[];
}

/** An object the service deletes along with the step's object (a dashboard's tile alerts). */
export interface CascadeItem {
  kind: AnyKind;
  id: string;
  /** Its display name on the service, when it has one. */
  name: string | null;
  /** The manifest address, when obsync owns it or a manifest declares it. */
  address?: Address;
  owned: boolean;
  declared: boolean;
  /** The object as read (written to the backups before the step). */
  object: JsonObject;
}

/** A keyed part (tile) that takes over the id recorded under another key: a renamed tile key. */
export interface PartMove {
  from: string;
  to: string;
}

export interface PlanStep {
  address: Address;
  kind: Kind;
  name: string;
  action: Action;
  reason: Reason;
  /** Server id of the object acted on (absent for creates). */
  id?: string;
  /** The object is not in the inventory yet: it is adopted (matched by natural key). */
  adopt?: boolean;
  /**
   * A rename (`metadata.previousNames`): the object is owned under this address until the apply
   * records it under the step's own (Terraform's `moved`). The object itself is kept, with its id.
   */
  movedFrom?: Address;
  /** Parts (tiles) whose key was renamed (`previousKeys`): each keeps its id, and what hangs on it. */
  movedParts?: PartMove[];
  changes: Change[];
  /**
   * The body of a create or update. A reference to an object planned in the same run is a
   * placeholder (`{"$ref": "Dashboard/checkout"}`, `{"$ref": "Dashboard/checkout", "$part": "p99"}`)
   * the applier fills from its own id map; sensitive values are `{"$sensitive": "<fingerprint>"}`
   * filled from the manifests at apply time, so a saved plan never holds a secret.
   */
  payload?: JsonObject;
  /** Updates of kinds changed through several calls: only the calls whose part changed. */
  calls?: UpdateCall[];
  /** After the calls, wait until the object leaves its transitional states. */
  settle?: boolean;
  /** Version (hash) of the live object the step was planned against. */
  liveVersion?: string;
  /** Addresses that must be applied first. */
  dependsOn: Address[];
  /** Paths left out because an earlier apply showed the service does not keep them. */
  nonConvergent?: string[];
  /** Differences left out by ignore rules: the UI owns those fields (a noop step may have some). */
  ignored?: IgnoredChange[];
  /** Plain-language notes. */
  notes?: string[];
  record?: StepRecord;
  parts?: PartRef[];
  expected?: Expected;
  /**
   * Updates and deletes: the live object in the same comparable form as `expected` (sensitive
   * values as fingerprints): the plan output's `before`. Absent for creates and unchanged objects.
   */
  current?: Json;
  /**
   * An unchanged object's form (the same comparable form as `current`), only when the plan was
   * asked for them (`unchangedForms`: a JSON plan shows every object's values, as Terraform's
   * planned_values and prior_state do). Absent otherwise: a plan of 20,000 unchanged objects keeps none.
   */
  form?: Json;
  /** What the service deletes with this step (deletes, and updates that remove parts). */
  cascade?: CascadeItem[];
  /** Deletes: the object as read, written to the backups first. */
  backup?: JsonObject;
  /** Created or updated alerts: how often it would have fired over the history window (engine-filled). */
  backtest?: Backtest;
  /** Other objects this change touches (alerts on a changed tile, what reads a changed source…). */
  impact?: Impact[];
}

export interface BlockedDelete {
  address: Address;
  reason: string;
  /** Objects the service refuses to delete it for (a webhook alerts still use: 409). */
  usedBy?: ImpactItem[];
}

export interface PruneReport {
  requested: boolean;
  /** `--prune-cascade`: objects obsync does not own may go with a delete. */
  cascade: boolean;
  /** `--allow-empty-kind`: kinds whose last owned objects may be pruned (absent: none). */
  allowEmptyKinds?: Kind[];
  /** Owned objects that are no longer declared. */
  candidates: Address[];
  /** Why prune was refused as a whole (guards of DESIGN §4); empty when not refused. */
  refused: string[];
  /** Candidates kept in this run, each with why (an unowned object in what its delete takes along). */
  blocked: BlockedDelete[];
}

export interface PlanSummary {
  create: number;
  update: number;
  delete: number;
  noop: number;
  /** Renamed objects and parts (counted also under their action): the apply records where they moved. */
  move: number;
}

export const PLAN_FORMAT_VERSION = 2;

/**
 * How a target takes on an existing object a manifest matches by natural key (DESIGN §3):
 * `by-name` adopts it (loudly, in every plan); `explicit` refuses, naming the object's id, until
 * `obsync import` or `obsync export --adopt` binds it.
 */
export type AdoptPolicy = 'by-name' | 'explicit';

export interface Plan {
  formatVersion: typeof PLAN_FORMAT_VERSION;
  target: string;
  variant: string;
  /** Which service the plan was made for (set by the engine; the planner is pure): a saved plan applies only there. */
  identity?: TargetIdentity;
  steps: PlanStep[];
  summary: PlanSummary;
  prune: PruneReport;
  /**
   * Pending inventory entries (a create whose answer was lost) whose object no manifest declares
   * any more: an apply forgets them. They never become owned, so they can never be pruned.
   */
  forget: Address[];
  /** Resources that could not be planned (ambiguous adoption, unresolved reference…), with their dependants. */
  diagnostics: Diagnostic[];
  /** True when some resource could not be planned: the rest can still be applied; prune is off. */
  errored: boolean;
  /** The plan's backtests as a whole (absent when backtests are off). */
  backtest?: BacktestRun;
  /** The policy rules' findings over the manifests and this plan (absent: not checked); an unwaived error refuses apply. */
  policy?: PolicyFinding[];
}

export function summarize(steps: readonly PlanStep[]): PlanSummary {
  const s: PlanSummary = { create: 0, update: 0, delete: 0, noop: 0, move: 0 };
  for (const step of steps) {
    s[step.action] += 1;
    if (isMove(step)) s.move += 1;
  }
  return s;
}

/** The counts every output shows of a plan or an apply: `noop` is unchanged. */
export type CountKey = 'create' | 'update' | 'delete' | 'noop' | 'adopt' | 'move';

/**
 * The one count an object falls under, so the counts of every output (text, JSON, markdown, the
 * apply report, a run's counts) add up to the objects: an adoption is counted once, as adopted
 * (whatever else it changes); a rename with no other change as a move; anything else by its action.
 */
export function countKey(action: Action, adopted: boolean, moved: boolean): CountKey {
  if (adopted) return 'adopt';
  if (action !== 'noop') return action;
  return moved ? 'move' : 'noop';
}

/** A step that records a rename: of the object (`previousNames`) or of some of its parts (`previousKeys`). */
export function isMove(step: PlanStep): boolean {
  return step.movedFrom !== undefined || (step.movedParts !== undefined && step.movedParts.length > 0);
}

/** Something to apply: a write, or a rename to record (as Terraform counts a `moved` block a change). */
export function hasChanges(plan: Plan): boolean {
  return plan.summary.create + plan.summary.update + plan.summary.delete + plan.summary.move > 0;
}
