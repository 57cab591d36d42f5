/**
 * A target's health as readiness and the status read it: its state (and since when), its last run,
 * its last success and its failing streak. The daemon's run loop records runs here.
 */
import type { TargetLeadership } from '../core/inventory.js';
import type { LastRun, TargetState } from '../events/status-model.js';
import type { TargetReadiness } from './health.js';
import type { ReadinessCode } from './readiness.js';
import { duration } from './tracker.js';

/** A target failing since `since`: every run since has failed. */
interface Failing {
  since: Date;
  reason: string;
  /** The failure's code (`API`, `NETWORK`, `refused`…), for the unauthenticated /readyz. */
  code: string;
  runs: number;
}

export interface TargetStateNow {
  state: TargetState;
  reason: string;
  since: Date;
}

/** What else readiness and the current state depend on: the daemon's lifecycle and the run's load. */
export interface HealthView {
  stopping: boolean;
  leadership: TargetLeadership | undefined;
  retryAt: Date | null;
}

export class TargetHealth {
  lastSuccess: number | null = null;
  lastRun: LastRun | null = null;
  failing: Failing | null = null;
  state: TargetStateNow;

  constructor(private readonly now: () => Date) {
    this.state = { state: 'starting', reason: 'the first run has not finished', since: now() };
  }

  setState(state: TargetState, reason: string): void {
    if (state !== this.state.state) this.state = { state, reason, since: this.now() };
    else this.state = { ...this.state, reason };
  }

  /** The run succeeded now (returned, in ms since the epoch): the target is no longer failing. */
  succeeded(): number {
    this.failing = null;
    this.lastSuccess = this.now().getTime();
    return this.lastSuccess;
  }

  failed(reason: string, code: string): void {
    this.failing = this.failing
      ? { ...this.failing, reason, code, runs: this.failing.runs + 1 }
      : { since: this.now(), reason, code, runs: 1 };
  }

  /**
   * Ready (DESIGN §6, README "The daemon"): its manifests loaded and valid, and its last run
   * succeeded no longer than three schedule intervals ago. A run that fails makes it not ready
   * at once (reason and since when), until a run succeeds; a standby replica is ready.
   */
  readiness(view: HealthView & { manifests: { good: boolean; loaded: boolean }; intervalMs: number }): TargetReadiness {
    const leader = view.leadership ? view.leadership.isLeader() : undefined;
    const state = (ready: boolean, code: ReadinessCode, reason: string): TargetReadiness => ({
      ready,
      code,
      reason,
      ...(leader === undefined ? {} : { leader }),
    });
    if (view.stopping) return state(false, 'shutting-down', 'shutting down');
    if (view.leadership?.isStandby()) return state(true, 'standby', `standby: ${view.leadership.describe()}`);
    if (!view.manifests.good)
      return view.manifests.loaded
        ? state(false, 'manifests-invalid', 'manifests not loaded: they are invalid')
        : state(false, 'manifests-not-loaded', 'manifests not loaded yet');
    if (this.lastRun === null) return state(false, 'first-run', 'first run not finished');
    if (this.failing) {
      const f = this.failing;
      const reason = `${this.lastSuccess === null ? 'no successful run yet: ' : ''}${this.#failingText(f, view.retryAt)}`;
      return { ...state(false, 'failing', reason), failure: { code: f.code, since: f.since, runs: f.runs } };
    }
    if (this.lastSuccess === null) return state(false, 'no-success-yet', 'no successful run yet');
    const age = (this.now().getTime() - this.lastSuccess) / 1000;
    if (age * 1000 > 3 * view.intervalMs)
      return state(false, 'stale', `last successful run ${Math.round(age)} s ago (more than three intervals)`);
    return state(true, 'ready', `last successful run ${Math.round(age)} s ago`);
  }

  /** A failing target stays failing while it retries; standby and stopping come first. */
  current(view: HealthView): TargetStateNow {
    if (view.stopping) return { state: 'stopping', reason: 'shutting down', since: this.state.since };
    if (view.leadership?.isStandby()) return { state: 'standby', reason: view.leadership.describe(), since: this.state.since };
    if (this.failing) {
      const f = this.failing;
      const retry = view.retryAt ? `; retry at ${view.retryAt.toISOString()}` : '';
      return {
        state: 'failing',
        reason: `${f.runs === 1 ? '1 failed run' : `${f.runs} failed runs`}: ${f.reason}${retry}`,
        since: f.since,
      };
    }
    return this.state;
  }

  #failingText(f: Failing, retryAt: Date | null): string {
    const runs = f.runs === 1 ? '1 failed run' : `${f.runs} failed runs`;
    const retry = retryAt ? `; retry at ${retryAt.toISOString()}` : '';
    const lasting = duration(this.now().getTime() - f.since.getTime());
    return `failing since ${f.since.toISOString()} (${lasting}, ${runs}): ${f.reason}${retry}`;
  }
}
