/**
 * When a target runs besides its other triggers: its cron (each fire delayed by the jitter drawn for
 * it) and the exponential back-off retry after a failed run.
 */
import cron, { type ScheduledTask } from 'node-cron';
import type { TargetStatus } from '../events/status-model.js';
import { ScheduleJitter } from './jitter.js';
import type { TriggerReason } from './queue.js';

export class RunSchedule {
  readonly intervalMs: number;
  #task: ScheduledTask | null = null;
  /** Drawn a fire ahead, so the status tells when the next scheduled run really starts. */
  readonly #jitter: ScheduleJitter;
  #jitterTimer: NodeJS.Timeout | null = null;
  #failures = 0;
  #retryAt: Date | null = null;
  #retryTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly expression: string,
    jitterMs: number,
    private readonly trigger: (reason: TriggerReason) => void,
    private readonly now: () => Date,
  ) {
    this.intervalMs = scheduleIntervalMs(expression);
    this.#jitter = ScheduleJitter.forSchedule(jitterMs, this.intervalMs);
  }

  start(name: string): void {
    this.#task = cron.schedule(this.expression, () => this.#scheduled(), { timezone: 'UTC', name, noOverlap: true });
  }

  /** When the pending retry runs; null when none is pending. */
  get retryAt(): Date | null {
    return this.#retryAt;
  }

  /** A run started: the pending retry (if any) is the run, or is no longer needed. */
  runStarted(): void {
    this.#retryAt = null;
  }

  /** A run succeeded: the next failure waits the shortest back-off again. */
  succeeded(): void {
    this.#failures = 0;
  }

  /** Exponential back-off after a failed run, capped by the schedule interval (the schedule retries anyway). */
  retry(): void {
    this.#failures += 1;
    const delay = Math.min(2_000 * 2 ** (this.#failures - 1), this.intervalMs, 300_000);
    if (this.#retryTimer) clearTimeout(this.#retryTimer);
    this.#retryAt = new Date(this.now().getTime() + delay);
    this.#retryTimer = setTimeout(() => this.trigger('retry'), delay);
    this.#retryTimer.unref();
  }

  /** The next run as it will really start: a scheduled one after its jitter, or the retry when that comes first. */
  nextRun(): TargetStatus['nextRun'] {
    const scheduled = this.#jitter.nextStart(this.#task?.getNextRun() ?? null);
    if (this.#retryAt && (!scheduled || this.#retryAt < scheduled)) return { at: this.#retryAt.toISOString(), why: 'retry' };
    return scheduled ? { at: scheduled.toISOString(), why: 'schedule' } : null;
  }

  /** No retry and no scheduled fire any more. */
  stopRetry(): void {
    if (this.#retryTimer) clearTimeout(this.#retryTimer);
  }

  async stopSchedule(): Promise<void> {
    await this.#task?.destroy();
    if (this.#jitterTimer) clearTimeout(this.#jitterTimer);
  }

  #scheduled(): void {
    if (this.#jitterTimer) clearTimeout(this.#jitterTimer);
    this.#jitterTimer = setTimeout(() => {
      this.#jitterTimer = null;
      this.#jitter.started();
      this.trigger('schedule');
    }, this.#jitter.fire(this.now()));
    this.#jitterTimer.unref();
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
