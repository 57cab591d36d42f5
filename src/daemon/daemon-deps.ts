/** What a target's daemon is given (its ports, stores and observers) and how it is told to run. */
import type { Telemetry } from '../telemetry/api.js';
import type { Diagnostic } from '../core/diagnostics.js';
import type { InventoryStore, TargetLeadership } from '../core/inventory.js';
import type { PolicyFinding } from '../core/finding.js';
import type { PolicyRule } from '../policy/policy-manifest.js';
import type { AdoptPolicy, Plan } from '../core/plan.js';
import type { ServicePort } from '../core/ports.js';
import type { OwnersElsewhere } from '../core/owners-elsewhere.js';
import type { TargetIdentity } from '../core/target.js';
import type { DesiredResource, ManifestFiles } from '../core/resource.js';
import type { ReconcileRequest } from '../engine/reconcile.js';
import type { SensitivePaths } from '../engine/secrets.js';
import type { Selection } from '../engine/selection.js';
import type { EventBus } from '../events/bus.js';
import type { Logger } from '../log/logger.js';
import type { DaemonMetrics } from './metrics.js';
import type { DriftMode } from '../config/write-back-schema.js';
import type { WriteBack } from './write-back.js';
import type { IgnoreSuggestionSettings } from '../config/field-rules.js';
import type { RunSlots } from './slots.js';

export interface DaemonDeps {
  port: ServicePort;
  inventory: InventoryStore;
  /** Defaults to the marks in the kinds' schemas. */
  sensitive?: SensitivePaths;
  /** With a shared state (apply mode): only the elected leader runs; the others stay ready as standby. */
  leadership?: TargetLeadership;
  /** Re-reads the manifests (called at each run). */
  loadDesired(): { desired: DesiredResource[]; diagnostics: Diagnostic[]; manifests?: ManifestFiles; policies?: readonly PolicyRule[] };
  /**
   * The policy check of each run's plan (src/policy), with the rules of the load it was made from:
   * an unwaived error finding refuses the apply, and the run fails, as `obsync apply` does.
   */
  policy?: (plan: Plan, desired: readonly DesiredResource[], rules: readonly PolicyRule[]) => PolicyFinding[];
  /** What the other targets on this target's service own now (read at each run; one service, one owner). */
  ownersElsewhere?: () => Promise<OwnersElsewhere>;
  /** The manifest paths the target reads: a change below them triggers a run. */
  watchPaths: readonly string[];
  logger: Logger;
  metrics: DaemonMetrics;
  /** obsync's telemetry: each run a root span (its phases and requests below it). */
  telemetry?: Telemetry;
  /** Where the target's events go (logs, metrics, rings, subscribers). */
  events: EventBus;
  /** The target is the embedded sandbox (the status page says so). */
  embedded?: boolean;
  /** Where the target points (the status page shows it). */
  identity: Pick<TargetIdentity, 'baseUrl' | 'organizationId' | 'serviceId'>;
  /** Shared by the targets of one process: how many reconcile at once (`--parallel-runs`). */
  slots?: RunSlots;
  /** `drift: propose`: where held drift goes (./write-back.ts). */
  writeBack?: WriteBack;
  now?: () => Date;
}

export interface DaemonOptions {
  mode: 'apply' | 'plan';
  schedule: string;
  /**
   * Random delay before a scheduled run, so many daemons (and targets) do not hit the API at once
   * (at most half the schedule's interval).
   */
  jitterMs: number;
  prune: boolean;
  /** `--prune-cascade`: deletes and updates may take along objects obsync does not own. */
  pruneCascade?: boolean;
  maxDeletes: number;
  concurrency: number;
  selection: Selection;
  /** The target's adoption policy (default by-name). */
  adopt?: AdoptPolicy;
  /** SIGTERM: the current run is aborted when it has not finished by then. */
  shutdownMs: number;
  /** Backtests of changed alerts in each run's plan (only when configured: they spend the rate limit). */
  backtest?: ReconcileRequest['backtest'];
  /** Apply mode: drift is put back (revert, the default), only reported, or proposed to Git (with `writeBack`). */
  drift?: DriftMode;
  /**
   * When a field that keeps drifting gets an ignore rule suggested (./drift-history.ts; default 3
   * runs in 30 days); false: never.
   */
  ignoreSuggestions?: IgnoreSuggestionSettings | false;
  /** false: the last plan's pictures are not drawn for the status page (the renderer is never loaded). */
  previews?: boolean;
}
