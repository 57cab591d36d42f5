/**
 * One run at a time (per target). A trigger during a run is remembered as a single follow-up,
 * whatever the number of triggers, carrying the set of reasons.
 */
export type TriggerReason = 'startup' | 'schedule' | 'watch' | 'retry' | 'manual' | 'leader';

export class RunQueue {
  #running: Promise<void> | null = null;
  #followUp: Set<TriggerReason> | null = null;
  #stopped = false;

  constructor(private readonly runner: (reasons: ReadonlySet<TriggerReason>) => Promise<void>) {}

  /** Starts a run now, or schedules one follow-up after the current run. */
  trigger(reason: TriggerReason): void {
    if (this.#stopped) return;
    if (this.#running) {
      (this.#followUp ??= new Set()).add(reason);
      return;
    }
    this.#start(new Set([reason]));
  }

  get busy(): boolean {
    return this.#running !== null;
  }

  /** No new runs; resolves when the current one (if any) has ended. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#followUp = null;
    await this.#running;
  }

  /** Resolves when the queue is idle (no run and no follow-up). */
  async idle(): Promise<void> {
    while (this.#running) await this.#running;
  }

  #start(reasons: ReadonlySet<TriggerReason>): void {
    this.#running = this.runner(reasons)
      .catch(() => undefined)
      .finally(() => {
        this.#running = null;
        const next = this.#followUp;
        this.#followUp = null;
        if (next && !this.#stopped) this.#start(next);
      });
  }
}
