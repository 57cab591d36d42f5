/**
 * A plan is a value (Terraform's idea): ordered steps with an action, a reason, the changed
 * paths with before/after (sensitive values masked) and the payload to send. It is built by a
 * pure function (src/planner), can be saved as JSON, reviewed, and applied exactly.
 */
import type { Diagnostic } from './diagnostics.js';
import type { Json, JsonObject } from './wire.js';

export type Kind = 'Dashboard' | 'Alert' | 'Pipe';
export const KINDS: readonly Kind[] = ['Dashboard', 'Alert', 'Pipe'];

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

export function parseAddress(address: string): { kind: Kind; name: string } | null {
  const slash = address.indexOf('/');
  if (slash <= 0) return null;
  const kind = address.slice(0, slash);
  const name = address.slice(slash + 1);
  if (!(KINDS as readonly string[]).includes(kind) || name === '') return null;
  return { kind: kind as Kind, name };
}

/** One changed field. Sensitive values are never present: `before`/`after` are `(sensitive)`. */
export interface Change {
  /** Path in the manifest's terms, e.g. `tiles[p99].config.select[0].aggFn`. */
  path: string;
  before?: Json;
  after?: Json;
  sensitive?: boolean;
}

/** A pipe is changed through several calls; each is sent only when its part changed. */
export interface PipeCalls {
  patch?: JsonObject;
  settings?: JsonObject;
  scaling?: JsonObject;
  state?: 'start' | 'stop';
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
  changes: Change[];
  /**
   * What to send. References to objects created in the same apply are placeholders
   * (`{"$ref": "Dashboard/checkout"}`, `{"$tile": ["Dashboard/checkout", "p99"]}`) resolved
   * by the applier; sensitive values are `{"$sensitive": "<fingerprint>"}` filled from the
   * manifests at apply time, so a saved plan never holds a secret.
   */
  payload?: JsonObject;
  pipe?: PipeCalls;
  /** Version (hash) of the live object the step was planned against. */
  liveVersion?: string;
  /** Addresses that must be applied first. */
  dependsOn: Address[];
  /** Paths left out because an earlier apply showed the service does not keep them. */
  nonConvergent?: string[];
  /** Plain-language notes (e.g. "the service deletes 2 unmanaged alerts on removed tiles"). */
  notes?: string[];
}

export interface PruneReport {
  requested: boolean;
  /** Owned objects that are no longer declared. */
  candidates: Address[];
  /** Why prune was refused (guards of DESIGN §4); empty when not refused. */
  refused: string[];
}

export interface PlanSummary {
  create: number;
  update: number;
  delete: number;
  noop: number;
}

export const PLAN_FORMAT_VERSION = 1;

export interface Plan {
  formatVersion: typeof PLAN_FORMAT_VERSION;
  target: string;
  variant: string;
  steps: PlanStep[];
  summary: PlanSummary;
  prune: PruneReport;
  /** Resources that could not be planned (ambiguous adoption, unresolved reference…), with their dependants. */
  diagnostics: Diagnostic[];
  /** True when some resource could not be planned: the rest can still be applied; prune is off. */
  errored: boolean;
}

export function summarize(steps: readonly PlanStep[]): PlanSummary {
  const s: PlanSummary = { create: 0, update: 0, delete: 0, noop: 0 };
  for (const step of steps) s[step.action] += 1;
  return s;
}

export function hasChanges(plan: Plan): boolean {
  return plan.summary.create + plan.summary.update + plan.summary.delete > 0;
}
