import type { InventoryStore } from '../core/inventory.js';
import type { LiveState } from '../core/live.js';
import type { Address, Change, Kind } from '../core/plan.js';
import type { ServicePort } from '../core/ports.js';
import type { DesiredResource } from '../core/resource.js';
import type { KindDefinition, Lookups } from '../kinds/kind.js';
import type { Json } from '../core/wire.js';

export interface ApplyContext {
  port: ServicePort;
  inventory: InventoryStore;
  definitions: ReadonlyMap<Kind, KindDefinition>;
  /** Lookups built while planning against the current live state; updated as objects are created. */
  lookups: Lookups;
  live: LiveState;
  desired: ReadonlyMap<Address, DesiredResource>;
  specHashes: Pick<ReadonlyMap<Address, string>, 'get'>;
  fingerprints: ReadonlyMap<Address, Record<string, string>>;
  /** Sensitive values by fingerprint, per address (from the manifests). */
  secretValues: ReadonlyMap<Address, ReadonlyMap<string, Json>>;
  backupDir: string;
  concurrency: number;
  now: () => Date;
  signal?: AbortSignal;
  /** Called when each step ends (progress lines, logs, metrics). */
  onStepDone?: (result: StepResult) => void;
  /** Called just before a step's first request. */
  onStepStart?: (address: Address, action: string) => void;
}

export type StepOutcomeKind = 'applied' | 'unchanged' | 'failed' | 'skipped' | 'refused';

export interface StepResult {
  address: Address;
  action: string;
  outcome: StepOutcomeKind;
  id?: string;
  /** Why it failed, was skipped or refused. */
  message?: string;
  /** Fields the service did not keep (re-read after the write). */
  nonConvergent?: Change[];
  /** The create was resolved by adopting an object found by natural key after a lost response. */
  resolvedAmbiguous?: boolean;
  backup?: string;
  durationMs: number;
}

export interface ApplyReport {
  target: string;
  results: StepResult[];
  summary: Record<StepOutcomeKind, number>;
  /** Deletes were skipped because something failed earlier in the run. */
  pruneSkipped?: string;
}
