/**
 * `obsync run`, one target: reconciled on triggers (start-up, its own jittered cron, file
 * changes routed by the host), one run at a time, its own back-off after a failure, its own
 * readiness; drift logged and counted. Invalid manifests keep the last good desired state (no
 * apply, no prune) until fixed; a failing API fails the run, not the daemon. The host
 * (./host.ts) runs one of these per target with one health server and one watcher set.
 */
import cron, { type ScheduledTask } from 'node-cron';
import type { Diagnostic } from '../core/diagnostics.js';
import { hasErrors } from '../core/diagnostics.js';
import { errorMessage } from '../core/errors.js';
import type { InventoryStore, TargetLeadership } from '../core/inventory.js';
import type { AdoptPolicy, Plan } from '../core/plan.js';
import type { ServicePort } from '../core/ports.js';
import type { DesiredResource } from '../core/resource.js';
import type { StepResult } from '../applier/context.js';
import { reconcile } from '../engine/reconcile.js';
import type { SensitivePaths } from '../engine/secrets.js';
import type { Selection } from '../engine/selection.js';
import type { Logger } from '../log/logger.js';
import type { TargetReadiness } from './health.js';
import { resourceCounts, type DaemonMetrics, type RunResult } from './metrics.js';
import { RunQueue, type TriggerReason } from './queue.js';

export interface DaemonDeps {
  port: ServicePort;
  inventory: InventoryStore;
  /** Defaults to the marks in the kinds' schemas. */
  sensitive?: SensitivePaths;
  /** With a shared state (apply mode): only the elected leader runs; the others stay ready as standby. */
  leadership?: TargetLeadership;
  /** Re-reads the manifests (called at each run). */
  loadDesired(): { desired: DesiredResource[]; diagnostics: Diagnostic[] };
  /** The manifest paths the target reads: a change below them triggers a run. */
  watchPaths: readonly string[];
  logger: Logger;
  metrics: DaemonMetrics;
  now?: () => Date;
}

export interface DaemonOptions {
  mode: 'apply' | 'plan';
  schedule: string;
  /** Random delay before a scheduled run, so many daemons (and targets) do not hit the API at once. */
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
}

export class Daemon {
  readonly #queue: RunQueue;
  #lastGood: DesiredResource[] | null = null;
  #manifestsValid = false;
  #lastSuccess: number | null = null;
  #lastRunEnded = false;
  #stopping = false;
  #failures = 0;
  /** Why the last run failed (readiness says it while no run has succeeded). */
  #lastError: string | null = null;
  #retryTimer: NodeJS.Timeout | null = null;
  #abort = new AbortController();
  #task: ScheduledTask | null = null;
  readonly #intervalMs: number;

  constructor(
    private readonly deps: DaemonDeps,
    private readonly opts: DaemonOptions,
  ) {
    this.#queue = new RunQueue((reasons) => this.#run(reasons));
    this.#intervalMs = scheduleIntervalMs(opts.schedule);
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

  readiness(): TargetReadiness {
    const leader = this.deps.leadership ? this.deps.leadership.isLeader() : undefined;
    const state = (ready: boolean, reason: string): TargetReadiness => ({ ready, reason, ...(leader === undefined ? {} : { leader }) });
    if (this.#stopping) return state(false, 'shutting down');
    if (this.deps.leadership?.isStandby()) return state(true, `standby: ${this.deps.leadership.describe()}`);
    if (this.#lastGood === null)
      return state(false, this.#lastRunEnded ? 'manifests not loaded: they are invalid' : 'manifests not loaded yet');
    if (!this.#lastRunEnded) return state(false, 'first run not finished');
    if (this.#lastSuccess === null)
      return state(
        false,
        this.#failures > 0 ? `no successful run yet: ${this.#lastError ?? 'the last run failed'}` : 'no successful run yet',
      );
    const age = (this.#now().getTime() - this.#lastSuccess) / 1000;
    if (age * 1000 > 3 * this.#intervalMs) return state(false, `last successful run ${Math.round(age)} s ago (more than three intervals)`);
    if (!this.#manifestsValid) return state(false, 'manifests are invalid: running on the last good state');
    return state(true, `last successful run ${Math.round(age)} s ago`);
  }

  /** Stops triggers, lets the current run finish (aborting it at the deadline) and closes everything. */
  async stop(): Promise<void> {
    if (this.#stopping) return;
    this.#stopping = true;
    const { logger } = this.deps;
    logger.info({ target: this.deps.port.target }, 'target stopping');
    if (this.#retryTimer) clearTimeout(this.#retryTimer);
    await this.#task?.destroy();
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

  #startLeadership(): void {
    const { leadership, metrics, port } = this.deps;
    if (!leadership) return;
    metrics.leader.set({ target: port.target }, 0);
    leadership.start((leader) => {
      metrics.leader.set({ target: port.target }, leader ? 1 : 0);
      if (leader) this.#queue.trigger('leader');
    });
  }

  /** Another replica leads (or the election is undecided): no reads, no writes, no run counted. */
  #standby(): boolean {
    return this.deps.leadership !== undefined && !this.deps.leadership.isLeader();
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
    const delay = Math.floor(Math.random() * this.opts.jitterMs);
    const timer = setTimeout(() => this.#queue.trigger('schedule'), delay);
    timer.unref();
  }

  async #run(reasons: ReadonlySet<TriggerReason>): Promise<void> {
    const { logger, metrics, port } = this.deps;
    const target = port.target;
    if (this.#standby()) return logger.debug({ target, reasons: [...reasons] }, 'standby: run skipped');
    const started = performance.now();
    const requestsBefore = port.stats.requests;
    const { signal, done } = this.#runSignal();
    let result: RunResult = 'success';
    try {
      await this.deps.inventory.refresh();
      const { desired, diagnostics } = this.deps.loadDesired();
      const invalid = hasErrors(diagnostics);
      metrics.manifestErrors.set({ target }, diagnostics.filter((d) => d.severity === 'error').length);
      this.#manifestsValid = !invalid;
      if (invalid) {
        result = 'invalid_manifests';
        for (const d of diagnostics)
          logger.error(
            { target, file: d.file, line: d.line, col: d.col, path: d.path, code: d.code, detail: d.message },
            'invalid manifest',
          );
      } else this.#lastGood = desired;
      const current = this.#lastGood;
      if (current === null) return;
      // Invalid manifests: report drift against the last good state, write nothing (not even ownership).
      const report = await reconcile({
        mode: invalid ? 'plan' : this.opts.mode,
        port,
        inventory: this.deps.inventory,
        desired: current,
        ...(this.deps.sensitive ? { sensitive: this.deps.sensitive } : {}),
        selection: this.opts.selection,
        prune: this.opts.prune,
        pruneCascade: this.opts.pruneCascade ?? false,
        maxDeletes: this.opts.maxDeletes,
        ...(this.opts.adopt ? { adopt: this.opts.adopt } : {}),
        ...(invalid ? { pruneBlockers: ['the manifests are invalid'] } : {}),
        signal,
        concurrency: this.opts.concurrency,
        beforeApply: (plan) => this.#report(plan),
        onStepDone: (r) => {
          this.#moved(r);
          if (r.outcome !== 'unchanged')
            logger.info(
              { target, address: r.address, action: r.action, outcome: r.outcome, id: r.id, detail: r.message, durationMs: r.durationMs },
              'step done',
            );
        },
      });
      if (report.mode === 'plan') this.#report(report.plan);
      this.#planProblems(report.plan);
      if (report.apply && report.apply.summary.failed + report.apply.summary.refused > 0) result = 'failure';
      // The state after this run's apply, so a healed object is not shown as drifted until the next run.
      metrics.setResources(target, resourceCounts(report.plan, report.apply));
      if (report.plan.errored && result === 'success') result = 'failure';
    } catch (err) {
      result = 'failure';
      this.#lastError = errorMessage(err);
      logger.error({ target, reasons: [...reasons], err: this.#lastError }, 'run failed');
    } finally {
      done();
      this.#finish(result, started, port.stats.requests - requestsBefore, reasons);
    }
  }

  #finish(result: RunResult, started: number, requests: number, reasons: ReadonlySet<TriggerReason>): void {
    const { logger, metrics, port } = this.deps;
    const seconds = (performance.now() - started) / 1000;
    metrics.reconcileTotal.inc({ target: port.target, result });
    metrics.reconcileDuration.observe({ target: port.target, result }, seconds);
    this.#lastRunEnded = true;
    if (result === 'success') {
      this.#failures = 0;
      this.#lastError = null;
      this.#lastSuccess = this.#now().getTime();
      metrics.lastSuccess.set({ target: port.target }, Math.floor(this.#lastSuccess / 1000));
    } else if (result === 'failure') this.#scheduleRetry();
    logger.info({ target: port.target, result, reasons: [...reasons], seconds: Number(seconds.toFixed(3)), requests }, 'run finished');
  }

  /** Exponential back-off after a failed run, capped by the schedule interval (the schedule retries anyway). */
  #scheduleRetry(): void {
    if (this.#stopping) return;
    this.#failures += 1;
    const delay = Math.min(2_000 * 2 ** (this.#failures - 1), this.#intervalMs, 300_000);
    if (this.#retryTimer) clearTimeout(this.#retryTimer);
    this.#retryTimer = setTimeout(() => this.#queue.trigger('retry'), delay);
    this.#retryTimer.unref();
  }

  /** Objects the plan could not plan (a refused adoption, a missing reference) and guards that refused: logged, and the reason readiness gives. */
  #planProblems(plan: Plan): void {
    const { logger, port } = this.deps;
    for (const d of plan.diagnostics) {
      const fields = { target: port.target, address: d.address, file: d.file, line: d.line, path: d.path, code: d.code, detail: d.message };
      if (d.severity === 'error') logger.error(fields, 'not planned');
      else logger.warn(fields, 'plan warning');
    }
    for (const why of plan.prune.refused) logger.warn({ target: port.target, detail: why }, 'prune refused');
    const first = plan.diagnostics.find((d) => d.severity === 'error');
    if (first) this.#lastError = `${first.address ?? first.file ?? 'an object'}: ${first.message}`;
  }

  /**
   * A rename the apply recorded (metadata.previousNames, tile previousKeys): one `moved` event per
   * object, where the daemon learns of it. The object kept its id; nothing was created or deleted.
   */
  #moved(r: StepResult): void {
    const parts = r.movedParts ?? [];
    if ((r.movedFrom === undefined && parts.length === 0) || (r.outcome !== 'applied' && r.outcome !== 'unchanged')) return;
    this.deps.logger.info(
      {
        event: 'moved',
        target: this.target,
        address: r.address,
        ...(r.movedFrom !== undefined ? { from: r.movedFrom } : {}),
        ...(parts.length > 0 ? { parts } : {}),
        id: r.id,
      },
      'object moved',
    );
  }

  /** Logs and counts the drift the plan found. */
  #report(plan: Plan): void {
    const { logger, metrics, port } = this.deps;
    for (const step of plan.steps) {
      if (step.action === 'noop') continue;
      metrics.driftTotal.inc({ target: port.target, kind: step.kind });
      logger.warn(
        {
          target: port.target,
          address: step.address,
          action: step.action,
          reason: step.reason,
          paths: step.changes.map((c) => c.path),
          ...(step.action === 'update' ? { changes: step.changes } : {}),
        },
        'drift',
      );
    }
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
