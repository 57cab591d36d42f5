/**
 * `obsync run`, one target: reconciled on triggers (start-up, its own jittered cron, file
 * changes routed by the host), one run at a time, its own back-off after a failure, its own
 * readiness; what it does is told as events (src/events), and what it knows is its status
 * (`status()`, for /api/status and the page). Invalid manifests keep the last good desired state
 * (no apply, no prune) until fixed; a failing API fails the run, not the daemon. The host
 * (./host.ts) runs one of these per target with one HTTP server and one watcher set.
 *
 * This file holds the lifecycle, the leadership and hand-over, and the run loop; a run's work is
 * ./target-run.ts, its schedule ./run-schedule.ts, its health ./target-health.ts.
 */
import { errorMessage } from '../core/errors.js';
import type { Plan } from '../core/plan.js';
import { runCounts } from '../events/derive.js';
import type { LastRun, TargetStatus } from '../events/status-model.js';
import type { EventBody } from '../events/vocabulary.js';
import type { TargetReadiness } from './health.js';
import type { RunResult } from './metrics.js';
import type { DaemonDeps, DaemonOptions } from './daemon-deps.js';
import { runSignal } from './leadership-role.js';
import { RunQueue, type TriggerReason } from './queue.js';
import { RunSchedule } from './run-schedule.js';
import { TargetHealth, type HealthView } from './target-health.js';
import { TargetRun, type RunOutcome } from './target-run.js';
import { tracedRun } from './traced-run.js';
import { targetStatus } from './target-status.js';

export class Daemon {
  readonly #queue: RunQueue;
  readonly #schedule: RunSchedule;
  readonly #health: TargetHealth;
  readonly #run: TargetRun;
  #stopping = false;
  #leader = false;
  #handingOver = false;
  #abort = new AbortController();
  /** Cancels the wait of a run for a slot (stop, hand-over, leadership lost): that run does not start. */
  #waitForSlot: AbortController | null = null;
  /** Why runs were skipped in standby: the first run as leader carries them (a start-up run waits for the election). */
  #skipped = new Set<TriggerReason>();

  constructor(
    private readonly deps: DaemonDeps,
    private readonly opts: DaemonOptions,
  ) {
    const now = () => this.#now();
    this.#queue = new RunQueue((reasons) => this.#runWhenLeading(reasons));
    this.#schedule = new RunSchedule(opts.schedule, opts.jitterMs, (reason) => this.#queue.trigger(reason), now);
    this.#health = new TargetHealth(now);
    this.#run = new TargetRun(deps, opts, (body) => this.#emit(body), now);
  }

  get target(): string {
    return this.deps.port.target;
  }

  get watchPaths(): readonly string[] {
    return this.deps.watchPaths;
  }

  start(): void {
    const { logger } = this.deps;
    this.#schedule.start(`obsync-reconcile-${this.target}`);
    logger.info({ target: this.target, mode: this.opts.mode, schedule: this.opts.schedule }, 'target started');
    this.#startLeadership();
    this.#queue.trigger('startup');
  }

  /** Ready: see TargetHealth.readiness. */
  readiness(): TargetReadiness {
    const manifests = { good: this.#run.lastGood !== null, loaded: this.#run.manifests.loaded };
    return this.#health.readiness({ ...this.#view(), manifests, intervalMs: this.#schedule.intervalMs });
  }

  /** The target as /api/status and the page show it: in-memory state only, never a request. */
  status(recentEvents: TargetStatus['recentEvents']): TargetStatus {
    const standbyOrStopping = this.#stopping || this.#standby();
    const view = { ...this.#view(), readiness: this.readiness(), nextRun: standbyOrStopping ? null : this.#schedule.nextRun() };
    return targetStatus(this.deps, this.opts, { health: this.#health, run: this.#run, view }, recentEvents);
  }

  /** The plan of the last run that planned, and when (the target's page renders it). */
  lastPlan(): { plan: Plan; at: Date } | null {
    return this.#run.lastPlan;
  }

  /** An SVG of the last plan's pictures, by its file name. */
  picture(file: string): string | undefined {
    return this.#run.pictures.svg(file);
  }

  /** Stops triggers, lets the current run finish (aborting it at the deadline) and closes everything. */
  async stop(): Promise<void> {
    if (this.#stopping) return;
    this.#stopping = true;
    const { logger } = this.deps;
    logger.info({ target: this.deps.port.target }, 'target stopping');
    this.#schedule.stopRetry();
    this.#waitForSlot?.abort(new Error('shutting down'));
    await this.#schedule.stopSchedule();
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

  #view(): HealthView {
    return { stopping: this.#stopping, leadership: this.deps.leadership, retryAt: this.#schedule.retryAt };
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

  async #runWhenLeading(reasons: ReadonlySet<TriggerReason>): Promise<void> {
    const { logger } = this.deps;
    if (this.#standby()) {
      for (const reason of reasons) this.#skipped.add(reason);
      return logger.debug({ target: this.target, reasons: [...reasons] }, 'standby: run skipped');
    }
    const release = await this.#slot();
    if (!release) return;
    try {
      // Waiting may have taken a while: the target may have been handed over or stopped meanwhile.
      if (this.#standby() || this.#stopping) return;
      const all = new Set([...this.#skipped, ...reasons]);
      this.#skipped.clear();
      await this.#runNow(all);
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
    const before = this.#health.state;
    const why =
      `waiting for a run slot: ${slots.running} target(s) reconciling, at most ${slots.limit} at once (--parallel-runs), ` +
      `${slots.waiting} waiting before this one`;
    this.#health.setState('queued', why);
    logger.info({ target: this.target, running: slots.running, waiting: slots.waiting, limit: slots.limit }, 'run waiting for a slot');
    const wait = new AbortController();
    this.#waitForSlot = wait;
    try {
      return await slots.take(wait.signal);
    } catch {
      // The run will not happen: the target is as it was before it queued.
      this.#health.state = before;
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
    this.#schedule.runStarted();
    this.#emit({ event: 'run-started', mode: this.opts.mode, trigger: [...reasons] });
    this.#health.setState(this.opts.mode === 'apply' ? 'applying' : 'planning', `run started (${[...reasons].join(', ')})`);
    const { signal, done } = runSignal(this.#abort.signal, this.deps.leadership?.signal);
    let outcome: RunOutcome = { result: 'failure' };
    try {
      const { port } = this.deps;
      const labels = { target: port.target, variant: port.variant, mode: this.opts.mode, triggers: reasons };
      outcome = await tracedRun(this.deps.telemetry, labels, () => this.#run.run(signal));
    } catch (err) {
      outcome = this.#run.thrown(err);
    } finally {
      done();
      this.#finish(outcome, { startedAt, started, requests: port.stats.requests - requestsBefore, reasons });
    }
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
    this.#health.lastRun = {
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
    this.#schedule.succeeded();
    this.deps.metrics.lastSuccess.set({ target: this.target }, Math.floor(this.#health.succeeded() / 1000));
    const pending = outcome.report && this.opts.mode === 'plan' ? outcome.report.plan.steps.filter((s) => s.action !== 'noop').length : 0;
    const held = outcome.report?.held?.length ?? 0;
    if (pending > 0) this.#health.setState('drifted', `${pending} object(s) differ from the manifests (plan mode: not applied)`);
    else if (held > 0) this.#health.setState('drifted', this.#run.proposal.heldReason(held));
    else this.#health.setState('in-sync', this.opts.mode === 'plan' ? 'the service matches the manifests' : 'every object is as declared');
  }

  #failed(outcome: RunOutcome, result: LastRun['result']): void {
    this.#health.failed(outcome.error ?? 'the run failed', outcome.code ?? 'ERROR');
    if (result === 'failure' && !this.#stopping) this.#schedule.retry();
  }
}
