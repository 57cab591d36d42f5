/**
 * `obsync run`, one target: reconciled on triggers (start-up, its own jittered cron, file
 * changes routed by the host), one run at a time, its own back-off after a failure, its own
 * readiness; what it does is told as events (src/events), and what it knows is its status
 * (`status()`, for /api/status and the page). Invalid manifests keep the last good desired state
 * (no apply, no prune) until fixed; a failing API fails the run, not the daemon. The host
 * (./host.ts) runs one of these per target with one HTTP server and one watcher set.
 */
import cron, { type ScheduledTask } from 'node-cron';
import type { Diagnostic } from '../core/diagnostics.js';
import { hasErrors } from '../core/diagnostics.js';
import { errorMessage, ObsyncError } from '../core/errors.js';
import { isServiceDrift } from '../core/drift.js';
import { entryAddress, type InventoryStore, type TargetLeadership } from '../core/inventory.js';
import type { PolicyFinding } from '../core/finding.js';
import type { PolicyRule } from '../policy/policy-manifest.js';
import type { AdoptPolicy, Plan, PlanStep } from '../core/plan.js';
import type { ServicePort } from '../core/ports.js';
import type { OwnersElsewhere } from '../core/owners-elsewhere.js';
import type { TargetIdentity } from '../core/target.js';
import type { DesiredResource, ManifestFiles } from '../core/resource.js';
import { reconcile, type ReconcileRequest, type RunReport } from '../engine/reconcile.js';
import type { SensitivePaths } from '../engine/secrets.js';
import type { Selection } from '../engine/selection.js';
import type { EventBus } from '../events/bus.js';
import { eventsOfRun, firstFailure, runCounts } from '../events/derive.js';
import type { LastRun, TargetState, TargetStatus } from '../events/status-model.js';
import type { EventBody, ProposalOutcome } from '../events/vocabulary.js';
import type { Logger } from '../log/logger.js';
import type { TargetReadiness } from './health.js';
import type { ReadinessCode } from './readiness.js';
import { resourceCounts, type DaemonMetrics, type RunResult } from './metrics.js';
import { RunMemo } from '../engine/memo.js';
import type { DriftMode } from '../config/write-back-schema.js';
import type { WriteBack } from './write-back.js';
import { DEFAULT_IGNORE_SUGGESTIONS, type IgnoreSuggestionSettings } from '../config/field-rules.js';
import { DriftHistory, suggestionEvent } from './drift-history.js';
import { recordKept } from './kept-drift-history.js';
import { ScheduleJitter } from './jitter.js';
import { RunQueue, type TriggerReason } from './queue.js';
import type { RunSlots } from './slots.js';
import { duration, failureOfRun, manifestsInvalid, manifestsSignature, ownedByKind } from './tracker.js';

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
  /** Random delay before a scheduled run, so many daemons (and targets) do not hit the API at once (at most half the schedule's interval). */
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
  /** When a field that keeps drifting gets an ignore rule suggested (./drift-history.ts; default 3 runs in 30 days); false: never. */
  ignoreSuggestions?: IgnoreSuggestionSettings | false;
}

/** A target failing since `since`: every run since has failed. */
interface Failing {
  since: Date;
  reason: string;
  /** The failure's code (`API`, `NETWORK`, `refused`…), for the unauthenticated /readyz. */
  code: string;
  runs: number;
}

/** What a run found, for its run-finished event and the target's state. */
interface RunOutcome {
  result: LastRun['result'];
  report?: RunReport;
  error?: string;
  /** The error's code (what /readyz may say of it). */
  code?: string;
}

export class Daemon {
  readonly #queue: RunQueue;
  #lastGood: DesiredResource[] | null = null;
  /** The Policy rules of the last good load. */
  #lastGoodPolicies: readonly PolicyRule[] = [];
  /** The files of the last good load that declare nothing (with the desired state they go with). */
  #lastGoodFiles: ManifestFiles | undefined;
  #manifests = { loaded: false, valid: false, errors: 0, signature: '' };
  #lastSuccess: number | null = null;
  #lastRun: LastRun | null = null;
  #lastPlan: { plan: Plan; at: Date } | null = null;
  #failing: Failing | null = null;
  #unreachableSince: Date | null = null;
  #owned: Record<string, number> = {};
  #state: { state: TargetState; reason: string; since: Date };
  #stopping = false;
  #failures = 0;
  #leader = false;
  #handingOver = false;
  #retryAt: Date | null = null;
  #retryTimer: NodeJS.Timeout | null = null;
  #abort = new AbortController();
  /** Cancels the wait of a run for a slot (stop, hand-over, leadership lost): that run does not start. */
  #waitForSlot: AbortController | null = null;
  #task: ScheduledTask | null = null;
  /** Drawn a fire ahead, so the status tells when the next scheduled run really starts. */
  readonly #jitter: ScheduleJitter;
  #jitterTimer: NodeJS.Timeout | null = null;
  readonly #intervalMs: number;
  /** What the last runs found unchanged: an unchanged estate is re-planned at little more than the cost of reading it. */
  readonly #memo = new RunMemo();
  /** `drift: propose`: the proposal has been looked for since start-up. */
  #proposalLooked = false;
  readonly #driftHistory: DriftHistory | null;

  constructor(
    private readonly deps: DaemonDeps,
    private readonly opts: DaemonOptions,
  ) {
    this.#queue = new RunQueue((reasons) => this.#run(reasons));
    this.#intervalMs = scheduleIntervalMs(opts.schedule);
    this.#jitter = ScheduleJitter.forSchedule(opts.jitterMs, this.#intervalMs);
    this.#state = { state: 'starting', reason: 'the first run has not finished', since: this.#now() };
    const suggest = opts.ignoreSuggestions ?? DEFAULT_IGNORE_SUGGESTIONS;
    this.#driftHistory = suggest ? new DriftHistory(this.target, suggest, () => this.#now()) : null;
  }

  get target(): string {
    return this.deps.port.target;
  }

  get watchPaths(): readonly string[] {
    return this.deps.watchPaths;
  }

  start(): void {
    const { logger } = this.deps;
    this.#task = cron.schedule(this.opts.schedule, () => this.#scheduled(), {
      timezone: 'UTC',
      name: `obsync-reconcile-${this.target}`,
      noOverlap: true,
    });
    logger.info({ target: this.target, mode: this.opts.mode, schedule: this.opts.schedule }, 'target started');
    this.#startLeadership();
    this.#queue.trigger('startup');
  }

  /**
   * Ready (DESIGN §6, README "The daemon"): its manifests loaded and valid, and its last run
   * succeeded no longer than three schedule intervals ago. A run that fails makes it not ready
   * at once (reason and since when), until a run succeeds; a standby replica is ready.
   */
  readiness(): TargetReadiness {
    const leader = this.deps.leadership ? this.deps.leadership.isLeader() : undefined;
    const state = (ready: boolean, code: ReadinessCode, reason: string): TargetReadiness => ({
      ready,
      code,
      reason,
      ...(leader === undefined ? {} : { leader }),
    });
    if (this.#stopping) return state(false, 'shutting-down', 'shutting down');
    if (this.deps.leadership?.isStandby()) return state(true, 'standby', `standby: ${this.deps.leadership.describe()}`);
    if (this.#lastGood === null)
      return this.#manifests.loaded
        ? state(false, 'manifests-invalid', 'manifests not loaded: they are invalid')
        : state(false, 'manifests-not-loaded', 'manifests not loaded yet');
    if (this.#lastRun === null) return state(false, 'first-run', 'first run not finished');
    if (this.#failing) {
      const f = this.#failing;
      const reason = `${this.#lastSuccess === null ? 'no successful run yet: ' : ''}${this.#failingText(f)}`;
      return { ...state(false, 'failing', reason), failure: { code: f.code, since: f.since, runs: f.runs } };
    }
    if (this.#lastSuccess === null) return state(false, 'no-success-yet', 'no successful run yet');
    const age = (this.#now().getTime() - this.#lastSuccess) / 1000;
    if (age * 1000 > 3 * this.#intervalMs)
      return state(false, 'stale', `last successful run ${Math.round(age)} s ago (more than three intervals)`);
    return state(true, 'ready', `last successful run ${Math.round(age)} s ago`);
  }

  /** The target as /api/status and the page show it: in-memory state only, never a request. */
  status(recentEvents: TargetStatus['recentEvents']): TargetStatus {
    const readiness = this.readiness();
    const { state, reason, since } = this.#currentState();
    const { baseUrl, organizationId, serviceId } = this.deps.identity;
    const f = this.#failing;
    return {
      name: this.target,
      variant: this.deps.port.variant,
      embedded: this.deps.embedded ?? false,
      endpoint: {
        baseUrl,
        ...(organizationId === undefined ? {} : { organizationId }),
        ...(serviceId === undefined ? {} : { serviceId }),
      },
      mode: this.opts.mode,
      ...(this.opts.mode === 'apply' ? { drift: this.opts.drift ?? 'revert' } : {}),
      role: this.#role(),
      state,
      reason,
      since: since.toISOString(),
      ready: readiness.ready,
      readyReason: readiness.reason,
      failing:
        f && !this.#stopping && !this.deps.leadership?.isStandby() ? { since: f.since.toISOString(), runs: f.runs, error: f.reason } : null,
      lastRun: this.#lastRun,
      nextRun: this.#nextRun(),
      owned: { ...this.#owned },
      manifests: { valid: this.#manifests.valid, errors: this.#manifests.errors },
      recentEvents,
      ...(this.opts.drift === 'propose' && this.deps.writeBack ? { proposal: this.#proposalStatus(this.deps.writeBack) } : {}),
      ...(this.#driftHistory ? { ignoreSuggestions: this.#driftHistory.open() } : {}),
    };
  }

  #proposalStatus(writeBack: WriteBack): TargetStatus['proposal'] {
    const p = writeBack.proposal;
    if (!p || p.status === 'closed' || p.status === 'none') return null;
    const opened = p.openedAt === undefined ? Number.NaN : Date.parse(p.openedAt);
    return {
      status: p.status,
      branch: p.branch,
      ...(p.url ? { url: p.url } : {}),
      ...(p.openedAt && !Number.isNaN(opened)
        ? { openedAt: new Date(opened).toISOString(), ageSeconds: Math.max(0, Math.round((this.#now().getTime() - opened) / 1000)) }
        : {}),
      objects: p.objects,
      conflicts: p.conflicts,
    };
  }

  /** The plan of the last run that planned, and when (the target's page renders it). */
  lastPlan(): { plan: Plan; at: Date } | null {
    return this.#lastPlan;
  }

  /** Stops triggers, lets the current run finish (aborting it at the deadline) and closes everything. */
  async stop(): Promise<void> {
    if (this.#stopping) return;
    this.#stopping = true;
    const { logger } = this.deps;
    logger.info({ target: this.deps.port.target }, 'target stopping');
    if (this.#retryTimer) clearTimeout(this.#retryTimer);
    this.#waitForSlot?.abort(new Error('shutting down'));
    await this.#task?.destroy();
    if (this.#jitterTimer) clearTimeout(this.#jitterTimer);
    const deadline = setTimeout(() => this.#abort.abort(new Error('shutting down')), this.opts.shutdownMs);
    await this.#queue.stop();
    clearTimeout(deadline);
    // Compact while still holding the lease, then hand it over at once.
    await this.deps.inventory
      .flush()
      .catch((err: unknown) => logger.warn({ target: this.deps.port.target, err: errorMessage(err) }, 'inventory flush failed'));
    await this.deps.leadership?.stop();
    logger.info({ target: this.deps.port.target }, 'target stopped');
  }

  /** This replica leads the target now. */
  get leads(): boolean {
    return this.deps.leadership?.isLeader() ?? false;
  }

  /**
   * The target is assigned to another replica (issue 28): no new run starts; the current one
   * finishes (never cut between a write and its record), then the lease is released for the new
   * owner. Repeated calls while it is under way do nothing.
   */
  async handOver(): Promise<void> {
    const leadership = this.deps.leadership;
    if (!leadership?.handOver || !leadership.isLeader() || this.#handingOver || this.#stopping) return;
    this.#handingOver = true;
    try {
      this.#waitForSlot?.abort(new Error('handed over'));
      await this.#queue.idle();
      if (!this.#stopping) await leadership.handOver();
    } finally {
      this.#handingOver = false;
    }
  }

  /** The target is assigned to this replica: compete for it now. */
  claim(): void {
    this.deps.leadership?.poke?.();
  }

  /** Runs now (tests, manual trigger). */
  trigger(reason: TriggerReason = 'manual'): void {
    this.#queue.trigger(reason);
  }

  async idle(): Promise<void> {
    await this.#queue.idle();
  }

  #now(): Date {
    return this.deps.now?.() ?? new Date();
  }

  #emit(body: EventBody): void {
    this.deps.events.emit(this.target, body);
  }

  #failingText(f: Failing): string {
    const runs = f.runs === 1 ? '1 failed run' : `${f.runs} failed runs`;
    const retry = this.#retryAt ? `; retry at ${this.#retryAt.toISOString()}` : '';
    return `failing since ${f.since.toISOString()} (${duration(this.#now().getTime() - f.since.getTime())}, ${runs}): ${f.reason}${retry}`;
  }

  /** A failing target stays failing while it retries; standby and stopping come first. */
  #currentState(): { state: TargetState; reason: string; since: Date } {
    if (this.#stopping) return { state: 'stopping', reason: 'shutting down', since: this.#state.since };
    if (this.deps.leadership?.isStandby()) return { state: 'standby', reason: this.deps.leadership.describe(), since: this.#state.since };
    if (this.#failing) {
      const f = this.#failing;
      const retry = this.#retryAt ? `; retry at ${this.#retryAt.toISOString()}` : '';
      return {
        state: 'failing',
        reason: `${f.runs === 1 ? '1 failed run' : `${f.runs} failed runs`}: ${f.reason}${retry}`,
        since: f.since,
      };
    }
    return this.#state;
  }

  #setState(state: TargetState, reason: string): void {
    if (state !== this.#state.state) this.#state = { state, reason, since: this.#now() };
    else this.#state = { ...this.#state, reason };
  }

  #role(): TargetStatus['role'] {
    const leadership = this.deps.leadership;
    if (!leadership) return { kind: 'single', detail: this.opts.mode === 'plan' ? 'plan mode: no election' : 'no election' };
    if (leadership.isLeader()) return { kind: 'leader', detail: leadership.describe() };
    if (leadership.isStandby()) return { kind: 'standby', detail: leadership.describe() };
    return { kind: 'electing', detail: leadership.describe() };
  }

  /** The next run as it will really start: a scheduled one after its jitter; none while standby (it runs when it leads). */
  #nextRun(): TargetStatus['nextRun'] {
    if (this.#stopping || this.#standby()) return null;
    const scheduled = this.#jitter.nextStart(this.#task?.getNextRun() ?? null);
    if (this.#retryAt && (!scheduled || this.#retryAt < scheduled)) return { at: this.#retryAt.toISOString(), why: 'retry' };
    return scheduled ? { at: scheduled.toISOString(), why: 'schedule' } : null;
  }

  #startLeadership(): void {
    const { leadership, metrics, port } = this.deps;
    if (!leadership) return;
    metrics.leader.set({ target: port.target }, 0);
    leadership.start((leader) => {
      metrics.leader.set({ target: port.target }, leader ? 1 : 0);
      if (leader !== this.#leader) metrics.targetsHeld.inc(leader ? 1 : -1);
      if (leader && !this.#leader) this.#emit({ event: 'leader-acquired', holder: leadership.describe() });
      if (!leader && this.#leader) this.#emit({ event: 'leader-lost', holder: leadership.describe() });
      if (!leader) this.#waitForSlot?.abort(new Error('not the leader'));
      this.#leader = leader;
      if (leader) this.#queue.trigger('leader');
    });
  }

  /** Another replica leads (or the election is undecided): no reads, no writes, no run counted. */
  #standby(): boolean {
    return this.#handingOver || (this.deps.leadership !== undefined && !this.deps.leadership.isLeader());
  }

  /** Aborted on shutdown, and when leadership ends mid-run (the new leader starts over). */
  #runSignal(): { signal: AbortSignal; done: () => void } {
    const lost = this.deps.leadership?.signal;
    if (!lost) return { signal: this.#abort.signal, done: () => undefined };
    const run = new AbortController();
    const abort = (source: AbortSignal) => () => run.abort(source.reason);
    const onShutdown = abort(this.#abort.signal);
    const onLost = abort(lost);
    if (this.#abort.signal.aborted || lost.aborted) run.abort(this.#abort.signal.aborted ? this.#abort.signal.reason : lost.reason);
    this.#abort.signal.addEventListener('abort', onShutdown, { once: true });
    lost.addEventListener('abort', onLost, { once: true });
    return {
      signal: run.signal,
      done: () => {
        this.#abort.signal.removeEventListener('abort', onShutdown);
        lost.removeEventListener('abort', onLost);
      },
    };
  }

  #scheduled(): void {
    if (this.#jitterTimer) clearTimeout(this.#jitterTimer);
    this.#jitterTimer = setTimeout(() => {
      this.#jitterTimer = null;
      this.#jitter.started();
      this.#queue.trigger('schedule');
    }, this.#jitter.fire(this.#now()));
    this.#jitterTimer.unref();
  }

  async #run(reasons: ReadonlySet<TriggerReason>): Promise<void> {
    const { logger } = this.deps;
    if (this.#standby()) return logger.debug({ target: this.target, reasons: [...reasons] }, 'standby: run skipped');
    const release = await this.#slot();
    if (!release) return;
    try {
      // Waiting may have taken a while: the target may have been handed over or stopped meanwhile.
      if (this.#standby() || this.#stopping) return;
      await this.#runNow(reasons);
    } finally {
      release();
    }
  }

  /** A slot of the process's parallel runs (none to wait for without a limit); null when stopped while waiting. */
  async #slot(): Promise<(() => void) | null> {
    const slots = this.deps.slots;
    if (!slots) return () => undefined;
    const now = slots.tryTake();
    if (now) return now;
    if (this.#stopping) return null;
    const { logger } = this.deps;
    const before = this.#state;
    const why = `waiting for a run slot: ${slots.running} target(s) reconciling, at most ${slots.limit} at once (--parallel-runs), ${slots.waiting} waiting before this one`;
    this.#setState('queued', why);
    logger.info({ target: this.target, running: slots.running, waiting: slots.waiting, limit: slots.limit }, 'run waiting for a slot');
    const wait = new AbortController();
    this.#waitForSlot = wait;
    try {
      return await slots.take(wait.signal);
    } catch {
      // The run will not happen: the target is as it was before it queued.
      this.#state = before;
      return null;
    } finally {
      if (this.#waitForSlot === wait) this.#waitForSlot = null;
    }
  }

  async #runNow(reasons: ReadonlySet<TriggerReason>): Promise<void> {
    const { port } = this.deps;
    const startedAt = this.#now();
    const started = performance.now();
    const requestsBefore = port.stats.requests;
    this.#retryAt = null;
    this.#emit({ event: 'run-started', mode: this.opts.mode, trigger: [...reasons] });
    this.#setState(this.opts.mode === 'apply' ? 'applying' : 'planning', `run started (${[...reasons].join(', ')})`);
    const { signal, done } = this.#runSignal();
    let outcome: RunOutcome = { result: 'failure' };
    try {
      outcome = await this.#reconcile(signal);
    } catch (err) {
      outcome = this.#thrown(err);
    } finally {
      done();
      this.#finish(outcome, { startedAt, started, requests: port.stats.requests - requestsBefore, reasons });
    }
  }

  /** Load, plan (and apply); the run's events are emitted as soon as the report is in. */
  async #reconcile(signal: AbortSignal): Promise<RunOutcome> {
    const { metrics } = this.deps;
    const target = this.target;
    await this.deps.inventory.refresh();
    const { desired, diagnostics, manifests, policies } = this.deps.loadDesired();
    const invalid = hasErrors(diagnostics);
    metrics.manifestErrors.set({ target }, diagnostics.filter((d) => d.severity === 'error').length);
    this.#manifestsLoaded(diagnostics, invalid);
    if (!invalid) {
      this.#lastGood = desired;
      this.#lastGoodFiles = manifests;
      this.#lastGoodPolicies = policies ?? [];
    }
    const current = this.#lastGood;
    if (current === null) return { result: 'invalid-manifests', error: 'the manifests are invalid', code: 'manifests-invalid' };
    const ownersElsewhere = await this.deps.ownersElsewhere?.();
    const ownedBefore = new Set(
      this.deps.inventory
        .entries()
        .filter((e) => e.status === 'owned')
        .map(entryAddress),
    );
    const hold = invalid ? undefined : this.#holds(ownedBefore);
    // Invalid manifests: report drift against the last good state, write nothing (not even ownership).
    const report = await reconcile({
      mode: invalid ? 'plan' : this.opts.mode,
      port: this.deps.port,
      inventory: this.deps.inventory,
      desired: current,
      ...(this.#lastGoodFiles ? { manifests: this.#lastGoodFiles } : {}),
      ...(this.deps.sensitive ? { sensitive: this.deps.sensitive } : {}),
      selection: this.opts.selection,
      prune: this.opts.prune,
      pruneCascade: this.opts.pruneCascade ?? false,
      maxDeletes: this.opts.maxDeletes,
      ...(this.opts.adopt ? { adopt: this.opts.adopt } : {}),
      ...(this.opts.backtest ? { backtest: this.opts.backtest } : {}),
      ...(invalid ? { pruneBlockers: ['the manifests are invalid'] } : {}),
      memo: this.#memo,
      ...(ownersElsewhere && ownersElsewhere.size > 0 ? { ownersElsewhere } : {}),
      signal,
      concurrency: this.opts.concurrency,
      ...(hold ? { hold } : {}),
      ...(this.deps.policy ? { policy: (plan: Plan) => this.#policy(plan, current) } : {}),
    });
    const proposeFailure = invalid ? undefined : await this.#propose({ report, desired: current, ownersElsewhere, signal });
    this.#logBacktests(report.plan);
    this.#reachable();
    this.#lastPlan = { plan: report.plan, at: this.#now() };
    this.#owned = ownedByKind(this.deps.inventory.entries());
    this.#planWarnings(report.plan);
    // The state after this run's apply, so a healed object is not shown as drifted until the next run.
    metrics.setResources(target, resourceCounts(report.plan, report.apply));
    const events = eventsOfRun(report, { ownedBefore });
    if (proposeFailure) events.push(proposeFailure);
    if (this.#driftHistory)
      events.push(...(await recordKept(this.#driftHistory, report, this.deps.inventory, this.deps.logger)).map(suggestionEvent));
    for (const e of events) this.#emit(e);
    const failed =
      (report.apply ? report.apply.summary.failed + report.apply.summary.refused > 0 : false) ||
      report.plan.errored ||
      proposeFailure !== undefined;
    const error = failed ? (firstFailure(events) ?? 'a step failed') : undefined;
    return {
      result: invalid ? 'invalid-manifests' : failed ? 'failure' : 'success',
      report,
      ...(invalid
        ? { error: 'the manifests are invalid: running on the last good state', code: 'manifests-invalid' }
        : error
          ? { error, code: firstFailureCode(events) }
          : {}),
    };
  }

  #policy(plan: Plan, desired: readonly DesiredResource[]): PolicyFinding[] {
    return this.deps.policy?.(plan, desired, this.#lastGoodPolicies) ?? [];
  }

  /** The steps this run holds back (`drift: report | propose`, apply mode); undefined: every step is applied. */
  #holds(ownedBefore: ReadonlySet<string>): ((step: PlanStep) => boolean) | undefined {
    if (this.opts.mode !== 'apply') return undefined;
    if (this.opts.drift === 'report') return (step) => isServiceDrift(step, ownedBefore);
    const writeBack = this.deps.writeBack;
    if (this.opts.drift !== 'propose' || !writeBack) return undefined;
    // Past proposalMaxAge the proposal is given up: this run reverts, and the request is closed after it.
    if (writeBack.expired()) return undefined;
    return writeBack.holds(ownedBefore);
  }

  /**
   * `drift: propose`: what the run held goes to the target's proposal (opened, updated, or closed
   * when nothing is held). The first run always looks, so a request left open before a restart is
   * found. A failure is returned as the run's failed event: the apply stands, the run fails.
   */
  async #propose(run: {
    report: RunReport;
    desired: DesiredResource[];
    ownersElsewhere: OwnersElsewhere | undefined;
    signal: AbortSignal;
  }): Promise<EventBody | undefined> {
    const writeBack = this.deps.writeBack;
    if (this.opts.mode !== 'apply' || this.opts.drift !== 'propose' || !writeBack) return undefined;
    const held = run.report.held ?? [];
    if (held.length === 0 && writeBack.proposal === null && this.#proposalLooked && !writeBack.looksForNew) return undefined;
    const before = writeBack.proposal;
    const expired = held.length === 0 && writeBack.expired();
    try {
      const proposal = await writeBack.propose({
        target: this.target,
        port: this.deps.port,
        inventory: this.deps.inventory,
        desired: run.desired,
        manifests: this.#lastGoodFiles,
        adopt: this.opts.adopt ?? 'by-name',
        ownersElsewhere: run.ownersElsewhere,
        plan: run.report.plan,
        held,
        signal: run.signal,
      });
      this.#proposalLooked = true;
      const news = proposal.status === 'conflicted' ? before?.status !== 'conflicted' : !['unchanged', 'none'].includes(proposal.status);
      if (news)
        this.#emit({
          event: 'proposal',
          outcome: proposal.status as ProposalOutcome,
          branch: proposal.branch,
          ...(proposal.url ? { url: proposal.url } : {}),
          objects: proposal.objects,
          conflicts: writeBack.proposal?.conflicts ?? 0,
          ...(expired && proposal.status === 'closed' ? { expired: true } : {}),
        });
      return undefined;
    } catch (err) {
      return { event: 'failed', code: err instanceof ObsyncError ? err.code : 'ERROR', message: `write-back: ${errorMessage(err)}` };
    }
  }

  /** A run that threw before its report: the service unreachable (a state change), or another failure. */
  #thrown(err: unknown): RunOutcome {
    const body = failureOfRun(err);
    if (body.event === 'failed' || this.#unreachableSince === null) this.#emit(body);
    if (body.event === 'target-unreachable') this.#unreachableSince ??= this.#now();
    return { result: 'failure', error: errorMessage(err), code: body.code };
  }

  #reachable(): void {
    if (this.#unreachableSince === null) return;
    this.#emit({ event: 'target-recovered', downSince: this.#unreachableSince.toISOString() });
    this.#unreachableSince = null;
  }

  /** manifests-invalid when they become invalid (or the errors change), manifests-recovered when valid again. */
  #manifestsLoaded(diagnostics: readonly Diagnostic[], invalid: boolean): void {
    const errors = diagnostics.filter((d) => d.severity === 'error').length;
    const signature = manifestsSignature(diagnostics);
    const was = this.#manifests;
    if (invalid && (was.valid || !was.loaded || was.signature !== signature)) this.#emit(manifestsInvalid(diagnostics));
    if (!invalid && was.loaded && !was.valid) this.#emit({ event: 'manifests-recovered' });
    this.#manifests = { loaded: true, valid: !invalid, errors, signature };
  }

  #finish(outcome: RunOutcome, run: { startedAt: Date; started: number; requests: number; reasons: ReadonlySet<TriggerReason> }): void {
    const { metrics } = this.deps;
    const target = this.target;
    const durationMs = Math.round(performance.now() - run.started);
    const result = outcome.result;
    const metricResult: RunResult = result === 'invalid-manifests' ? 'invalid_manifests' : result;
    metrics.reconcileTotal.inc({ target, result: metricResult });
    metrics.reconcileDuration.observe({ target, result: metricResult }, durationMs / 1000);
    const counts = outcome.report ? runCounts(outcome.report) : { create: 0, update: 0, delete: 0, unchanged: 0, adopted: 0, failed: 0 };
    this.#lastRun = {
      startedAt: run.startedAt.toISOString(),
      finishedAt: this.#now().toISOString(),
      result,
      durationMs,
      trigger: [...run.reasons],
      counts,
      requests: run.requests,
      planned: outcome.report !== undefined,
      ...(outcome.error ? { error: outcome.error } : {}),
    };
    if (result === 'success') this.#succeeded(outcome);
    else this.#failed(outcome, result);
    this.#emit({
      event: 'run-finished',
      mode: this.opts.mode,
      result,
      durationMs,
      counts,
      requests: run.requests,
      planned: outcome.report !== undefined,
      ...(outcome.report?.planTaken ? { planTaken: true } : {}),
      ...(outcome.error ? { error: outcome.error } : {}),
    });
  }

  #succeeded(outcome: RunOutcome): void {
    this.#failures = 0;
    this.#failing = null;
    this.#lastSuccess = this.#now().getTime();
    this.deps.metrics.lastSuccess.set({ target: this.target }, Math.floor(this.#lastSuccess / 1000));
    const pending = outcome.report && this.opts.mode === 'plan' ? outcome.report.plan.steps.filter((s) => s.action !== 'noop').length : 0;
    const held = outcome.report?.held?.length ?? 0;
    if (pending > 0) this.#setState('drifted', `${pending} object(s) differ from the manifests (plan mode: not applied)`);
    else if (held > 0) this.#setState('drifted', this.#heldReason(held));
    else this.#setState('in-sync', this.opts.mode === 'plan' ? 'the service matches the manifests' : 'every object is as declared');
  }

  #heldReason(held: number): string {
    const proposal = this.deps.writeBack?.proposal;
    if (this.opts.drift !== 'propose') return `${held} object(s) changed on the service: reported, not put back (drift: report)`;
    const where = proposal?.url ?? (proposal ? `branch ${proposal.branch}` : 'no proposal yet');
    return `${held} object(s) changed on the service: proposed to Git (${where}), not put back (drift: propose)`;
  }

  #failed(outcome: RunOutcome, result: LastRun['result']): void {
    const reason = outcome.error ?? 'the run failed';
    const code = outcome.code ?? 'ERROR';
    this.#failing = this.#failing
      ? { ...this.#failing, reason, code, runs: this.#failing.runs + 1 }
      : { since: this.#now(), reason, code, runs: 1 };
    if (result === 'failure') this.#scheduleRetry();
  }

  /** Exponential back-off after a failed run, capped by the schedule interval (the schedule retries anyway). */
  #scheduleRetry(): void {
    if (this.#stopping) return;
    this.#failures += 1;
    const delay = Math.min(2_000 * 2 ** (this.#failures - 1), this.#intervalMs, 300_000);
    if (this.#retryTimer) clearTimeout(this.#retryTimer);
    this.#retryAt = new Date(this.#now().getTime() + delay);
    this.#retryTimer = setTimeout(() => this.#queue.trigger('retry'), delay);
    this.#retryTimer.unref();
  }

  /** Plan warnings are not events (nothing was refused or failed): a log line each. */
  #planWarnings(plan: Plan): void {
    for (const d of plan.diagnostics)
      if (d.severity === 'warning')
        this.deps.logger.warn(
          { target: this.target, address: d.address, file: d.file, line: d.line, path: d.path, code: d.code, detail: d.message },
          'plan warning',
        );
  }

  /** What the plan predicts of a change: an alert's backtest (when configured), what else it touches; one log line each. */
  #logBacktests(plan: Plan): void {
    for (const step of plan.steps)
      if (step.backtest || step.impact)
        this.deps.logger.info(
          {
            target: this.target,
            address: step.address,
            action: step.action,
            ...(step.backtest ? { backtest: step.backtest } : {}),
            ...(step.impact ? { impact: step.impact } : {}),
          },
          'predicted',
        );
  }
}

/** Interval between two fires of a cron expression (for readiness staleness); 5 min when unknown. */
export function scheduleIntervalMs(expression: string): number {
  try {
    const task = cron.createTask(expression, () => undefined, { timezone: 'UTC' });
    const [a, b] = task.getNextRuns(2);
    void task.destroy();
    if (a && b) return b.getTime() - a.getTime();
  } catch {
    // validated by the command before we get here
  }
  return 300_000;
}

/** The code of the run's first failure, as firstFailure words it: a failed step's code, or `refused:<guard>`. */
function firstFailureCode(events: readonly EventBody[]): string {
  for (const e of events) {
    if (e.event === 'failed') return e.code;
    if (e.event === 'refused' && e.guard !== 'prune') return `refused:${e.guard}`;
  }
  return 'ERROR';
}
