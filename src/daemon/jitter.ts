/**
 * The jitter of scheduled runs (so many daemons and targets do not hit the API at once), drawn one
 * fire ahead: the status can then tell when the next scheduled run really starts — the cron's next
 * fire plus the jitter that fire will wait — and not only when the cron fires.
 */
export class ScheduleJitter {
  #next: number;
  #pending: Date | null = null;

  constructor(
    private readonly maxMs: number,
    private readonly random: () => number = Math.random,
  ) {
    this.#next = this.#draw();
  }

  /**
   * At most `jitterMs`, and at most half the schedule's interval: a fire's run then starts before
   * the next fire (a 2 s schedule with 10 s of jitter would otherwise put each fire's run behind the next).
   */
  static forSchedule(jitterMs: number, intervalMs: number, random: () => number = Math.random): ScheduleJitter {
    return new ScheduleJitter(Math.max(0, Math.min(jitterMs, Math.floor(intervalMs / 2))), random);
  }

  /** The cron fired at `now`: how long its run waits (the jitter promised for it); the next one is drawn. */
  fire(now: Date): number {
    const delay = this.#next;
    this.#next = this.#draw();
    this.#pending = new Date(now.getTime() + delay);
    return delay;
  }

  /** The run a fire was waiting for has been triggered. */
  started(): void {
    this.#pending = null;
  }

  /** When the next scheduled run starts: the one waiting out its jitter, else the cron's next fire plus its jitter. */
  nextStart(nextFire: Date | null): Date | null {
    return this.#pending ?? (nextFire ? new Date(nextFire.getTime() + this.#next) : null);
  }

  #draw(): number {
    return Math.floor(this.random() * this.maxMs);
  }
}
