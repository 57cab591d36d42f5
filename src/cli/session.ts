/**
 * Everything a command needs to talk to one target: the config (if any), the loaded manifests,
 * the resolved target (the embedded sandbox when none is configured), its service port and the
 * inventory. Opened once per command, closed in `finally`.
 */
import type { Diagnostic } from '../core/diagnostics.js';
import { formatDiagnostic, hasErrors } from '../core/diagnostics.js';
import type { InventoryStore, TargetLeadership } from '../core/inventory.js';
import { ConfigError, errorMessage } from '../core/errors.js';
import { entryAddress } from '../core/inventory.js';
import { EventBus } from '../events/bus.js';
import { eventsOfRun, firstFailure, runCounts } from '../events/derive.js';
import { FenceSlot, READ_ONLY, UNFENCED } from '../core/fence.js';
import { Secret } from '../core/secret.js';
import type { ServicePort } from '../core/ports.js';
import type { AdoptPolicy, Plan } from '../core/plan.js';
import type { OwnersElsewhere } from '../core/owners-elsewhere.js';
import type { TargetIdentity } from '../core/target.js';
import type { DesiredResource, ManifestFiles } from '../core/resource.js';
import type { InventoryAccess, StateBackend } from '../inventory/backend.js';
import { LeaseElector, type TargetAssignment } from '../inventory/elector.js';
import { openStateBackend, type StateSpec } from '../inventory/open.js';
import type { ObsyncConfig } from '../config/schema.js';
import { checkPolicy } from '../policy/check.js';
import type { PolicyRule } from '../policy/policy-manifest.js';
import type { PolicySettings } from '../policy/settings.js';
import { policyPaths, policyRules, projectFinding, uniqueRules } from './policy-rules.js';
import { STATE_SCHEMA_NAME, STATE_SCHEMA_RULE } from '../config/state-schema-name.js';
import { createLogger, type Logger } from '../log/logger.js';
import { serverFields } from '../log/fields.js';
import { resolve } from 'node:path';
import { colorEnabled, ExitRequest, type CliIO } from './io.js';
import { configInUse } from './config-path.js';
import { closeProgress, terminalProgress } from './progress.js';
import { reconcile, type ReconcileRequest, type RunReport } from '../engine/reconcile.js';
import { githubAnnotation } from './commands/validate.js';
import { projectPaths, type ProjectPaths } from './project-paths.js';
import { backtestDefaults, backtestSettings, type BacktestDefaults, type RunOptions } from './run-options.js';
import { manifestFileScope, stateDirectory } from '../config/file-scope.js';
import type { ResolvedTarget } from '../config/target-resolution.js';
import { manifestPaths } from '../config/trees.js';
import { readRegularFile, unreadableReason } from '../manifests/files.js';
import { LoadedFiles } from '../manifests/loaded-files.js';
import { loadTargetTree, mergeTargetDiagnostics, type TargetTree } from '../manifests/targets.js';
import { targetIgnoreRules, targetMark } from '../config/field-rules.js';
import { ownersElsewhereReader } from './neighbours.js';
import { connectTarget, openProject, targetApi, targetName, type Connection, type ConnectInput, type Project } from './wiring.js';

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
  logger: Logger;
  /** obsync.yaml as loaded (the targets in use resolved), when there is one. */
  config: ObsyncConfig | undefined;
  /** Closes every session, then the state backend. */
  close(): Promise<void>;
}

export const DEFAULT_MAX_DELETES = 10;

/** `--config`, else `obsync.yaml` in the single directory given, else in the working directory. */
export function findConfig(io: CliIO, paths: readonly string[], flag: string | undefined): string | undefined {
  return configInUse(io.cwd, paths, flag);
}

/** Logs go to stderr: pretty on a terminal (coloured unless NO_COLOR / --no-color), JSON lines otherwise; OBSYNC_LOG_LEVEL wins over the command's default. */
export function cliLogger(io: CliIO, level: string): Logger {
  const lvl = io.env.OBSYNC_LOG_LEVEL ?? level;
  // The process's own stderr is written at its file descriptor (synchronously, nothing lost at exit); any other (a test's) as a stream.
  if (io.stderr.isTTY !== true)
    return createLogger({ format: 'json', level: lvl, ...(io.isProcess === true ? {} : { stream: io.stderr }) });
  return createLogger({ format: 'pretty', level: lvl, stream: io.stderr, color: colorEnabled(io, 'stderr') });
}

/** What a command adds to a reconcile run of the session (mode, saved plan, callbacks). */
export type SessionRun = Pick<ReconcileRequest, 'mode'> &
  Partial<
    Pick<
      ReconcileRequest,
      'saved' | 'beforeApply' | 'onStepDone' | 'onStepStart' | 'concurrency' | 'signal' | 'applySignal' | 'unchangedForms' | 'previews'
    >
  >;

/**
 * One reconcile run of the session's manifests against its target, with the run flags over
 * obsync.yaml's defaults; told as events like the daemon's runs (at info: the command's output
 * already shows the plan).
 */
export async function reconcileSession(session: Session, opts: RunOptions, run: SessionRun): Promise<RunReport> {
  const target = session.port.target;
  const ownedBefore = new Set(
    session.inventory
      .entries()
      .filter((e) => e.status === 'owned')
      .map(entryAddress),
  );
  session.events.emit(target, { event: 'run-started', mode: run.mode, trigger: ['cli'] });
  const started = performance.now();
  const requests = session.port.stats.requests;
  const finished = (result: 'success' | 'failure', rest: { counts?: ReturnType<typeof runCounts>; error?: string }) =>
    session.events.emit(target, {
      event: 'run-finished',
      mode: run.mode,
      result,
      durationMs: Math.round(performance.now() - started),
      counts: rest.counts ?? { create: 0, update: 0, delete: 0, unchanged: 0, adopted: 0, failed: 0 },
      requests: session.port.stats.requests - requests,
      planned: rest.counts !== undefined,
      ...(rest.error === undefined ? {} : { error: rest.error }),
    });
  let report: RunReport;
  // What the command shows (the plan before the prompt, every output after) names files as the project does.
  const before = run.beforeApply;
  const shown = before ? { ...run, beforeApply: (plan: Plan) => before(session.shown.plan(plan)) } : run;
  try {
    const made = await reconcileOnce(session, opts, shown);
    report = { ...made, plan: session.shown.plan(made.plan) };
  } catch (err) {
    finished('failure', { error: errorMessage(err) });
    throw err;
  }
  const events = eventsOfRun(report, { ownedBefore });
  for (const e of events) session.events.emit(target, e);
  const error = firstFailure(events);
  finished(report.plan.errored || (report.apply?.summary.failed ?? 0) > 0 ? 'failure' : 'success', {
    counts: runCounts(report),
    ...(error === undefined ? {} : { error }),
  });
  return report;
}

async function reconcileOnce(session: Session, opts: RunOptions, run: SessionRun): Promise<RunReport> {
  const ownersElsewhere = await session.ownersElsewhere();
  return reconcile({
    port: session.port,
    inventory: session.inventory,
    desired: session.desired,
    ...(session.manifests ? { manifests: session.manifests } : {}),
    selection: opts.selection,
    prune: opts.prune ?? session.defaults.prune,
    pruneCascade: opts.pruneCascade ?? false,
    maxDeletes: opts.maxDeletes ?? session.defaults.maxDeletes,
    ...(opts.allowEmptyKinds ? { allowEmptyKinds: opts.allowEmptyKinds } : {}),
    concurrency: session.defaults.concurrency,
    adopt: session.adopt,
    identity: session.identity,
    ...(ownersElsewhere.size > 0 ? { ownersElsewhere } : {}),
    ...backtestOf(backtestSettings(opts, session.defaults.backtest, false)),
    // Named as the project names its files: the findings go into the plan, its outputs and a refusal's message.
    policy: (plan) =>
      checkPolicy({
        resources: session.desired,
        rules: session.policy.rules,
        settings: session.policy.settings,
        target: { name: session.port.target, variant: session.port.variant },
        plan,
      }).map((f) => projectFinding(session.shown, f)),
    ...run,
  });
}

function backtestOf(settings: ReturnType<typeof backtestSettings>): { backtest?: NonNullable<typeof settings> } {
  return settings ? { backtest: settings } : {};
}

/** One target's service, for the commands that talk to exactly one (keys, query). */
export async function openConnection(
  io: CliIO,
  opts: { config?: string | undefined; target?: string | undefined; timeoutMs?: number | undefined },
): Promise<Connection> {
  const project = openProject({
    configPath: findConfig(io, [], opts.config),
    cwd: io.cwd,
    env: io.env,
    targets: opts.target === undefined ? [] : [opts.target],
  });
  const resolved = onlyTarget(project);
  const logger = cliLogger(io, 'warn');
  const connection = await connectTarget({
    resolved,
    declared: isDeclared(project, resolved),
    env: io.env,
    baseDir: project.baseDir,
    stateDir: fileStateDir(io, project.config, project.baseDir),
    logger,
    announce: (line) => io.stderr.write(`${line}\n`),
    timeoutMs: opts.timeoutMs,
    // keys and query are not runs: no lease to hold.
    fence: UNFENCED,
    ...waitReporter(io, logger, 'stderr'),
  });
  return {
    port: connection.port,
    identity: connection.identity,
    async close() {
      try {
        await connection.close();
      } finally {
        closeProgress(io);
      }
    },
  };
}

function onlyTarget(project: Project): ResolvedTarget {
  const [only, ...more] = project.targets;
  if (!only || more.length > 0) {
    const names = project.targets.map(targetName);
    throw new ConfigError(`this command talks to one target, and ${names.length} are selected (${names.join(', ')})`, {
      hint: 'choose one with --target (or defaults.target in obsync.yaml)',
    });
  }
  return only;
}

function isDeclared(project: Project, resolved: ResolvedTarget): boolean {
  return project.declared.some((d) => d.name === targetName(resolved));
}

/**
 * Shows every wait over 2 s: on a terminal, a progress line that also shows retries and requests
 * slow to answer; a line on stderr otherwise (CI logs); an info log for the daemon.
 */
function waitReporter(io: CliIO, logger: Logger, how: 'stderr' | 'log'): Pick<ConnectInput, 'onWait' | 'progress'> {
  if (how === 'log')
    return {
      onWait: (target, w) => logger.info({ target, seconds: w.seconds, ...serverFields(w.host), reason: w.reason }, 'rate limit wait'),
    };
  const terminal = terminalProgress(io);
  if (terminal) return { onWait: (_target, w) => terminal.onWait(w), progress: { onRetry: terminal.onRetry, onSlow: terminal.onSlow } };
  return { onWait: (_target, w) => io.stderr.write(`obsync: waiting ${w.seconds} s before the next request to ${w.host} (${w.reason})\n`) };
}

/** A command on exactly one target (for now plan, apply and run too): several selected is an error. */
export async function openSession(io: CliIO, opts: SessionOptions): Promise<Session> {
  const group = await openSessions(io, opts, (project) => void onlyTarget(project));
  const [only] = group.sessions;
  if (!only) throw new ConfigError('no target');
  return { ...only, close: () => group.close() };
}

/**
 * Every target the command uses: obsync.yaml read with only those targets' settings and
 * credentials resolved, each target's manifest tree loaded (a file without interpolation loaded once between them),
 * one state backend, then one connection and inventory per target.
 */
export async function openSessions(io: CliIO, opts: SessionOptions, check?: (project: Project) => void): Promise<Sessions> {
  const logger = cliLogger(io, opts.logLevel ?? 'warn');
  const project = openProject({
    configPath: findConfig(io, opts.paths, opts.config),
    cwd: io.cwd,
    env: io.env,
    targets: opts.targets ?? [],
    allowFileOutside: opts.allowFileOutside,
    isolateTargets: opts.isolateTargets,
    implicitSandbox: opts.implicitSandbox,
  });
  check?.(project);
  const loadedFiles = new LoadedFiles();
  const policyFolder = policyRules(policyPaths(io.cwd, project.configPath, project.config), [], io.env);
  const loaded = project.targets.map((resolved) => {
    const tree = targetTree(io, opts, project, resolved, loadedFiles);
    const load = tree.load();
    const policies = uniqueRules([...load.policies, ...policyFolder.rules]);
    return { ...tree, ...load, diagnostics: [...load.diagnostics, ...policyFolder.diagnostics], policies };
  });
  opts.checkManifests?.(mergeTargetDiagnostics(loaded.map((t) => ({ target: t.name, resources: t.desired, diagnostics: t.diagnostics }))));
  const { config, baseDir } = project;
  const stateDir = fileStateDir(io, config, baseDir);
  const state = await openStateBackend(stateSpec(io, config, baseDir), {
    prepare: opts.lock || opts.elect === true,
    ...(opts.parallelRuns ? { parallelRuns: opts.parallelRuns } : {}),
  });
  if (state.notice) io.stderr.write(`obsync: ${state.notice}\n`);
  const sessions: Session[] = [];
  const events = new EventBus({ logger, levels: 'info', ringSize: 0 });
  const closeAll = async () => {
    try {
      const closed = await Promise.allSettled(sessions.splice(0).map((s) => s.close()));
      const failed = closed.find((c): c is PromiseRejectedResult => c.status === 'rejected');
      if (failed) throw failed.reason;
    } finally {
      closeProgress(io);
      await state.close();
      logger.flush();
    }
  };
  try {
    for (const target of loaded) sessions.push(await openTargetSession(io, opts, { ...target, project, state, stateDir, logger, events }));
  } catch (err) {
    await closeAll();
    throw err;
  }
  return { sessions: [...sessions], unavailable: project.unavailable, logger, config, close: closeAll };
}

/** One target's manifest paths (top-level plus its own, or the PATH arguments) and how to load them with its vars. */
function targetTree(io: CliIO, opts: SessionOptions, project: Project, resolved: ResolvedTarget, loadedFiles: LoadedFiles) {
  const { config, configPath } = project;
  const name = targetName(resolved);
  const declared = project.declared.find((d) => d.name === name);
  const paths = manifestPaths({
    cwd: io.cwd,
    given: opts.pathsByTarget?.[name] ?? opts.paths,
    configPath,
    top: config?.manifests,
    own: declared?.tree?.manifests,
  });
  const files = manifestFileScope({ configPath, config, cwd: io.cwd, paths, allowFlag: opts.allowFileOutside === true, env: io.env });
  // A declared target without vars still answers ${var:} (with "target 'x' has no var").
  const ignore = targetIgnoreRules(config, name);
  const mark = targetMark(config, name);
  const tree: TargetTree = {
    target: name,
    api: targetApi(resolved),
    paths,
    vars: declared ? (declared.tree?.vars ?? {}) : undefined,
    ...(Object.keys(ignore).length > 0 ? { ignore } : {}),
    ...(mark ? { mark } : {}),
  };
  const load = () => {
    const { resources, diagnostics, emptyFiles, policies } = loadTargetTree(tree, {
      env: io.env,
      allowMissingEnv: opts.allowMissingEnv ?? false,
      files,
      loaded: loadedFiles,
      sensitive: project.sensitive,
    });
    return { desired: resources, diagnostics, manifests: { root: project.baseDir, empty: emptyFiles }, policies };
  };
  return { name, resolved, paths, load, declared: declared !== undefined };
}

interface TargetSessionInput {
  resolved: ResolvedTarget;
  declared: boolean;
  paths: string[];
  desired: DesiredResource[];
  diagnostics: Diagnostic[];
  manifests: ManifestFiles;
  policies: PolicyRule[];
  load: () => LoadedManifests;
  project: Project;
  state: StateBackend;
  stateDir: string;
  logger: Logger;
  events: EventBus;
}

async function openTargetSession(io: CliIO, opts: SessionOptions, input: TargetSessionInput): Promise<Session> {
  const { project, state, logger } = input;
  const config = project.config;
  let connection: Connection | undefined;
  let inventory: InventoryStore;
  let leadership: LeaseElector | undefined;
  // Bound once the inventory (and its lease) is open, before the first request of a run.
  const fence = new FenceSlot();
  try {
    connection = await connectTarget({
      resolved: input.resolved,
      declared: input.declared,
      env: io.env,
      baseDir: project.baseDir,
      stateDir: input.stateDir,
      logger,
      announce: (line) => io.stderr.write(`${line}\n`),
      onResponse: opts.onResponse,
      timeoutMs: opts.timeoutMs,
      fence,
      mark: targetMark(config, targetName(input.resolved)),
      ...waitReporter(io, logger, opts.waits ?? 'stderr'),
    });
    const target = connection.port.target;
    leadership = opts.elect
      ? new LeaseElector(state, target, { command: opts.command, logger, ...(opts.assignment ? { assignment: opts.assignment } : {}) })
      : undefined;
    const elector = leadership;
    const access: InventoryAccess = elector
      ? { mode: 'elected', lease: () => elector.lease() }
      : opts.lock
        ? { mode: 'write', command: opts.command }
        : { mode: 'read' };
    inventory = await state.openInventory(target, access);
    // Only apply writes to the service (under the lease): every other command's writes are refused before they leave.
    const writesService = opts.elect === true || opts.writeService === true;
    fence.bind(writesService ? inventory.writeFence() : READ_ONLY);
  } catch (err) {
    await leadership?.stop();
    await connection?.close();
    throw err;
  }
  const port = connection.port;
  const closeConnection = connection.close.bind(connection);
  return {
    port,
    identity: connection.identity,
    inventory,
    desired: input.desired,
    diagnostics: input.diagnostics,
    manifests: input.manifests,
    manifestPaths: input.paths,
    policy: { rules: input.policies, settings: config?.policy },
    ...(project.configPath ? { configPath: project.configPath } : {}),
    stateDir: input.stateDir,
    state,
    ...(leadership ? { leadership } : {}),
    defaults: {
      prune: config?.defaults?.prune ?? false,
      maxDeletes: config?.defaults?.maxDeletes ?? DEFAULT_MAX_DELETES,
      concurrency: config?.defaults?.concurrency ?? 4,
      backtest: backtestDefaults(config?.defaults?.backtest),
    },
    adopt: config?.targets?.find((t) => t.name === connection.port.target)?.adopt ?? 'by-name',
    ...(config?.defaults?.schedule ? { schedule: config.defaults.schedule } : {}),
    embedded: input.resolved.kind === 'embedded',
    logger,
    events: input.events,
    shown: projectPaths(io.cwd),
    reload: input.load,
    ownersElsewhere: ownersElsewhereReader(state, connection.identity, input.resolved.kind === 'embedded', project.services),
    async close() {
      try {
        await inventory.close();
      } finally {
        await leadership?.stop();
        await closeConnection();
      }
    },
  };
}

/**
 * Which state backend (DESIGN §3 precedence): OBSYNC_STATE_URL (or OBSYNC_STATE_URL_FILE) selects
 * PostgreSQL over obsync.yaml's `state`; otherwise obsync.yaml, else the file backend.
 */
export function stateSpec(io: CliIO, config: ObsyncConfig | undefined, baseDir: string): StateSpec {
  const configured = config?.state;
  const leaseSeconds = configured?.leaseSeconds;
  const url = stateUrlFromEnv(io) ?? (configured?.backend === 'postgres' ? Secret.connection(configured.url) : undefined);
  if (url) {
    const schema = stateSchemaFromEnv(io) ?? (configured?.backend === 'postgres' ? configured.schema : 'obsync');
    return { backend: 'postgres', url, schema, leaseSeconds };
  }
  return { backend: 'file', dir: fileStateDir(io, config, baseDir), leaseSeconds };
}

/** The file backend's directory: OBSYNC_STATE_DIR, else state.path of obsync.yaml, else .obsync/state. */
export function fileStateDir(io: CliIO, config: ObsyncConfig | undefined, baseDir: string): string {
  return stateDirectory({ env: io.env, cwd: io.cwd, statePath: config?.state?.path, baseDir });
}

/** OBSYNC_STATE_SCHEMA, held to the rule state.schema follows in obsync.yaml. */
function stateSchemaFromEnv(io: CliIO): string | undefined {
  const schema = io.env.OBSYNC_STATE_SCHEMA;
  // Empty is unset, as for the other OBSYNC_* variables (a CI template that fills in nothing).
  if (!schema) return undefined;
  if (!STATE_SCHEMA_NAME.test(schema))
    throw new ConfigError(`OBSYNC_STATE_SCHEMA ${JSON.stringify(schema)} is not a schema name obsync uses: ${STATE_SCHEMA_RULE}`, {
      hint: 'set it to a plain name such as obsync or obsync_prod (or unset it to use state.schema of obsync.yaml, default obsync)',
    });
  return schema;
}

function stateUrlFromEnv(io: CliIO): Secret | undefined {
  const file = io.env.OBSYNC_STATE_URL_FILE;
  if (file) {
    try {
      return Secret.connection(readRegularFile(resolve(io.cwd, file)).trim());
    } catch (err) {
      throw new ConfigError(`OBSYNC_STATE_URL_FILE points to ${file}, which cannot be read: ${unreadableReason(err)}`, {
        hint: 'point it at a regular file holding the connection URL (a mounted secret), of at most 1 MiB',
        cause: err,
      });
    }
  }
  return io.env.OBSYNC_STATE_URL ? Secret.connection(io.env.OBSYNC_STATE_URL) : undefined;
}

/** A `checkManifests` for plan and apply: prints the diagnostics; any error stops the command (exit 1) before anything is opened. */
export function refuseInvalid(io: CliIO, format: 'text' | 'github'): (diagnostics: readonly Diagnostic[]) => void {
  return (diagnostics) => {
    if (printDiagnostics(io, diagnostics, format)) throw new ExitRequest(1);
  };
}

/** Prints load diagnostics to stderr (paths relative to the project); true when any is an error (nothing may be written). */
export function printDiagnostics(io: CliIO, diagnostics: readonly Diagnostic[], format: 'text' | 'github'): boolean {
  const shown = projectPaths(io.cwd);
  for (const d of diagnostics.map(shown.diagnostic)) {
    if (format === 'github') io.stdout.write(`${githubAnnotation(d)}\n`);
    else io.stderr.write(`${formatDiagnostic(d)}\n`);
  }
  return hasErrors(diagnostics);
}
