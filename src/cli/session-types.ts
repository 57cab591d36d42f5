/** What a command asks of its sessions (SessionOptions) and what it gets: one Session per target, in Sessions. */
import type { TargetElsewhere } from './targets-elsewhere.js';
import type { Telemetry } from '../telemetry/api.js';
import type { Diagnostic } from '../core/diagnostics.js';
import type { InventoryStore, TargetLeadership } from '../core/inventory.js';
import type { ConfigError } from '../core/errors.js';
import type { EventBus } from '../events/bus.js';
import type { ServicePort } from '../core/ports.js';
import type { AdoptPolicy } from '../core/plan.js';
import type { OwnersElsewhere } from '../core/owners-elsewhere.js';
import type { TargetIdentity } from '../core/target.js';
import type { DesiredResource, ManifestFiles } from '../core/resource.js';
import type { StateBackend } from '../inventory/backend.js';
import type { TargetAssignment } from '../inventory/elector.js';
import type { ObsyncConfig } from '../config/schema.js';
import type { PolicyRule } from '../policy/policy-manifest.js';
import type { PolicySettings } from '../policy/settings.js';
import type { Logger } from '../log/logger.js';
import type { ProjectPaths } from './project-paths.js';
import type { BacktestDefaults } from './backtest-options.js';
import type { ConnectInput } from './wiring.js';

export interface SessionOptions {
  paths: readonly string[];
  /** Per target, instead of `paths` (a saved plan of several targets: each target's own). */
  pathsByTarget?: Readonly<Record<string, readonly string[]>> | undefined;
  config?: string | undefined;
  /** --target (repeatable); none: OBSYNC_TARGET, defaults.target, else every declared target. */
  targets?: readonly string[] | undefined;
  /** Take the inventory's writer lease (apply; export --adopt, import and state commands write only the inventory). */
  lock: boolean;
  /**
   * apply: writes go to the service, under the writer lease. Every other command's port refuses
   * them before they leave (core/fence.ts READ_ONLY): it reads the service and writes nothing
   * there, a hosted wake-up included. `elect` (the daemon in apply mode) implies it.
   */
  writeService?: boolean;
  /** The daemon in apply mode: compete for the writer lease; writes only while leading. */
  elect?: boolean;
  /** With `elect`, where replicas share the targets: whether this replica may compete for a target. */
  assignment?: (target: string) => TargetAssignment;
  /** How many targets run at once (`run --parallel-runs`): the PostgreSQL state opens a connection for each. */
  parallelRuns?: number;
  command: string;
  allowMissingEnv?: boolean;
  /** Default log level (OBSYNC_LOG_LEVEL wins); the daemon logs runs at info. */
  logLevel?: string;
  onResponse?: ConnectInput['onResponse'];
  /** --timeout: deadline of each request, over the target's timeoutSeconds. */
  timeoutMs?: number | undefined;
  /** --allow-file-outside: manifests' `${file:}` may read outside the config's directory. */
  allowFileOutside?: boolean | undefined;
  /** Waits over 2 s: a line on stderr (default) or an info log (the daemon). */
  waits?: 'stderr' | 'log';
  /** false: no undeclared embedded sandbox stands in for a missing target (obsync run). */
  implicitSandbox?: boolean;
  /**
   * Sees the manifests' diagnostics (every target's, a shared file's once) before any state,
   * connection or sandbox is opened; throws to stop there with nothing written.
   */
  checkManifests?: (diagnostics: readonly Diagnostic[]) => void;
  /** plan, apply: of several targets, one whose settings cannot be resolved fails alone (in `unavailable`). */
  isolateTargets?: boolean;
}

/** A load of a target's manifests: what they declare, what is wrong with them, and which files declare nothing. */
export interface LoadedManifests {
  desired: DesiredResource[];
  diagnostics: Diagnostic[];
  manifests: ManifestFiles;
  /** The rules of the Policy manifests among them. */
  policies: PolicyRule[];
}

/** One target of a command: its service port, inventory and desired state. */
export interface Session {
  port: ServicePort;
  /** Which service the port writes to: recorded in plans, checked against a saved plan's. */
  identity: TargetIdentity;
  inventory: InventoryStore;
  desired: DesiredResource[];
  diagnostics: Diagnostic[];
  /** The files the desired state was loaded from that declare nothing, and the project folder the inventory records files relative to. */
  manifests?: ManifestFiles;
  manifestPaths: string[];
  configPath?: string;
  /** The file backend's directory (also the source or destination of `state migrate`). */
  stateDir: string;
  state: StateBackend;
  /** Set with `elect`: the daemon starts and stops it. */
  leadership?: TargetLeadership;
  defaults: { prune: boolean; maxDeletes: number; concurrency: number; backtest?: BacktestDefaults | undefined };
  /** The target's adoption policy (targets[].adopt; default by-name). */
  adopt: AdoptPolicy;
  /** defaults.schedule of obsync.yaml. */
  schedule?: string;
  /** The target is the embedded sandbox (a simulator). */
  embedded: boolean;
  logger: Logger;
  /** obsync's telemetry when on (a span per run, its phases and requests). */
  telemetry?: Telemetry;
  /** The command's events (src/events): logged at info; the daemon has its own bus. */
  events: EventBus;
  /** Paths in what the command writes: relative to the project (./project-paths.ts). */
  shown: ProjectPaths;
  /** The policy rules plan and apply check (./policy-rules.ts): Policy manifests and `policy:` of obsync.yaml. */
  policy: { rules: PolicyRule[]; settings: PolicySettings | undefined };
  /** Re-reads the manifests (the daemon calls it before each run). */
  reload(): LoadedManifests;
  /** What the other targets on this target's service own now (one service, one owner; ./neighbours.ts). */
  ownersElsewhere(): Promise<OwnersElsewhere>;
  close(): Promise<void>;
}

/** The sessions of every target a command uses; they share the state backend and the logger. */
export interface Sessions {
  sessions: Session[];
  /** Targets in use that have no session: their settings could not be resolved (`isolateTargets`). */
  unavailable: { target: string; error: ConfigError }[];
  /** Declared targets this command did not open, with the manifest paths each reads (./targets-elsewhere.ts). */
  elsewhere: TargetElsewhere[];
  logger: Logger;
  /** obsync.yaml as loaded (the targets in use resolved), when there is one. */
  config: ObsyncConfig | undefined;
  /** Closes every session, then the state backend. */
  close(): Promise<void>;
}
