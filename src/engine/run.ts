/**
 * One reconcile pass for one target: read the live state, plan against the manifests and
 * the inventory, and (for apply) execute. Shared by `plan`, `apply` and the daemon.
 */
import type { InventoryStore } from '../core/inventory.js';
import type { LiveState } from '../core/live.js';
import type { Address, Plan } from '../core/plan.js';
import type { ServicePort } from '../core/ports.js';
import type { DesiredResource } from '../core/resource.js';
import { applyPlan } from '../applier/apply.js';
import type { ApplyReport, StepResult } from '../applier/context.js';
import { DEFINITIONS_BY_KIND, KIND_DEFINITIONS } from '../kinds/definitions.js';
import { SENSITIVE_PATHS } from '../kinds/sensitive-paths.js';
import type { Lookups } from '../kinds/kind.js';
import { buildLookups } from '../planner/lookups.js';
import { planWithLookups } from '../planner/plan.js';
import { readLive } from './live.js';
import { recordResolutions, resolvePending, withResolutions, type PendingResolution } from './pending.js';
import { extractSecrets, type DesiredSecrets, type SensitivePaths } from './secrets.js';
import { pruneEligibility, selectedAddresses, type Selection } from './selection.js';

export interface PlanRequest {
  port: ServicePort;
  inventory: InventoryStore;
  desired: readonly DesiredResource[];
  /** Defaults to the marks in the kinds' schemas. */
  sensitive?: SensitivePaths;
  selection: Selection;
  prune: boolean;
  maxDeletes: number;
  /** Reasons this run must not prune (e.g. invalid manifests kept from the last good state). */
  pruneBlockers?: readonly string[];
  signal?: AbortSignal;
}

export interface Planned {
  plan: Plan;
  lookups: Lookups;
  live: LiveState;
  secrets: DesiredSecrets;
  desired: readonly DesiredResource[];
  pending: PendingResolution[];
}

export async function makePlan(req: PlanRequest): Promise<Planned> {
  const wantsPipes = req.desired.some((r) => r.kind === 'Pipe');
  const live = await readLive(req.port, { pipes: wantsPipes, ...(req.signal ? { signal: req.signal } : {}) });
  const entries = req.inventory.entries();
  const pending = resolvePending(entries, live, DEFINITIONS_BY_KIND, buildLookups(live, req.desired));
  const secrets = extractSecrets(req.desired, req.sensitive ?? SENSITIVE_PATHS, req.inventory);
  const selected = selectedAddresses(req.desired, req.selection);
  const { plan, lookups } = planWithLookups({
    target: req.port.target,
    variant: req.port.variant,
    desired: req.desired,
    ...(selected ? { selected } : {}),
    eligibleForPrune: pruneEligibility(req.selection),
    live,
    inventory: withResolutions(entries, pending),
    specHashes: secrets.specHashes,
    fingerprints: secrets.fingerprints,
    definitions: KIND_DEFINITIONS,
    prune: req.prune,
    maxDeletes: req.maxDeletes,
    ...(req.pruneBlockers ? { pruneBlockers: req.pruneBlockers } : {}),
  });
  return { plan, lookups, live, secrets, desired: req.desired, pending };
}

export interface ApplyRequest {
  port: ServicePort;
  inventory: InventoryStore;
  backupDir: string;
  concurrency: number;
  now?: () => Date;
  signal?: AbortSignal;
  /** Steps to refuse (saved plan whose object moved), with the reason. */
  refused?: ReadonlyMap<Address, string>;
  onStepStart?: (address: Address, action: string) => void;
  onStepDone?: (result: StepResult) => void;
}

export async function applyPlanned(planned: Planned, req: ApplyRequest): Promise<ApplyReport> {
  const now = req.now ?? (() => new Date());
  await recordResolutions(req.inventory, planned.pending, now());
  return applyPlan(
    planned.plan,
    {
      port: req.port,
      inventory: req.inventory,
      definitions: DEFINITIONS_BY_KIND,
      lookups: planned.lookups,
      live: planned.live,
      desired: new Map(planned.desired.map((r) => [r.address, r])),
      specHashes: planned.secrets.specHashes,
      fingerprints: planned.secrets.fingerprints,
      secretValues: planned.secrets.values,
      backupDir: req.backupDir,
      concurrency: req.concurrency,
      now,
      ...(req.signal ? { signal: req.signal } : {}),
      ...(req.onStepStart ? { onStepStart: req.onStepStart } : {}),
      ...(req.onStepDone ? { onStepDone: req.onStepDone } : {}),
    },
    req.refused ? { refused: req.refused } : {},
  );
}
