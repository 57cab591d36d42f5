import type { Telemetry } from '../telemetry/api.js';
import type { IdMap } from '../core/id-map.js';
import type { InventoryStore } from '../core/inventory.js';
import type { ReadBefore } from '../core/live.js';
import type { Address, Change, PartMove } from '../core/plan.js';
import type { ServicePort } from '../core/ports.js';
import type { Json } from '../core/wire.js';

/** What an apply needs besides the plan: where to write, and the secret values (never in a plan). */
export interface ApplyTarget {
  port: ServicePort;
  inventory: InventoryStore;
  /** Sensitive values by fingerprint, per address (read from the manifests at apply time). */
  secretValues: ReadonlyMap<Address, ReadonlyMap<string, Json>>;
  /** What the run read before it wrote: an id in it was not created by this run's creates. */
  seen: ReadBefore;
}

export interface ApplyOptions {
  concurrency: number;
  now?: () => Date;
  signal?: AbortSignal;
  /** Steps refused before execution (a saved plan whose object moved), with the reason. */
  refused?: ReadonlyMap<Address, string>;
  /** Called when each step ends (progress lines, logs, metrics). */
  onStepDone?: (result: StepResult) => void;
  /** Called just before a step's first request. */
  onStepStart?: (address: Address, action: string) => void;
  /** obsync's telemetry: a span per step executed. */
  telemetry?: Telemetry;
}

/** One apply's working state: the target, the options, and the applier's own id map. */
export interface ApplyContext extends ApplyTarget {
  ids: IdMap;
  now: () => Date;
  signal?: AbortSignal;
  /** Every id a create of this run was answered with (proven or not), by the step it answered: one id answers one create. */
  answered: Map<string, Address>;
}

export type StepOutcomeKind = 'applied' | 'unchanged' | 'failed' | 'skipped' | 'refused';

export interface StepResult {
  address: Address;
  action: string;
  outcome: StepOutcomeKind;
  id?: string;
  /** Why it failed, was skipped or refused. */
  message?: string;
  /** A failure's stable code (the error's, e.g. API, AMBIGUOUS_WRITE). */
  code?: string;
  /** Fields the service did not keep (re-read after the write). */
  nonConvergent?: Change[];
  /** A rename recorded by this apply: the inventory entry moved from this address to the step's. */
  movedFrom?: Address;
  /** Part keys renamed by this apply (tiles): each kept its id. */
  movedParts?: PartMove[];
  /** The create was resolved by adopting an object found by natural key after a lost response. */
  resolvedAmbiguous?: boolean;
  backup?: string;
  /** Backups of the objects the service deleted along with this one. */
  cascadeBackups?: string[];
  durationMs: number;
  /** Of durationMs, the time its requests waited for obsync's own rate limit (and a 429's pause); absent when none. */
  rateLimitWaitMs?: number;
  /** Skipped because the run stopped (Ctrl-C, shutdown, the writer lease lost) before it started. */
  notStarted?: true;
}

export interface ApplyReport {
  target: string;
  results: StepResult[];
  summary: Record<StepOutcomeKind, number>;
  /** Deletes were skipped because something failed earlier in the run. */
  pruneSkipped?: string;
  /** A Ctrl-C (or a shutdown) stopped the apply: the steps not started are skipped (notStarted). */
  interrupted?: boolean;
}
