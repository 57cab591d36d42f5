/**
 * How many targets one `obsync run` reconciles at once (`--parallel-runs`, issue 28), like Argo
 * CD's --operation-processors or Flux's --concurrent: the runs of every target share one
 * process's CPU and one pool of state connections, so hundreds of runs at once only made each
 * wait longer (its state queries timed out). Runs past the limit wait their turn, first come
 * first served; a target never holds more than one slot (its RunQueue runs one run at a time).
 */
export const DEFAULT_PARALLEL_RUNS = 8;

export class RunSlots {
  #running = 0;
  readonly #waiting: { grant: () => void; cancel: (reason: unknown) => void }[] = [];

  constructor(readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`parallel runs must be a whole number ≥ 1, not ${limit}`);
  }

  get running(): number {
    return this.#running;
  }

  get waiting(): number {
    return this.#waiting.length;
  }

  /** A slot now, when one is free (undefined otherwise): call the returned function once the run ends. */
  tryTake(): (() => void) | undefined {
    if (this.#running >= this.limit || this.#waiting.length > 0) return undefined;
    this.#running += 1;
    return this.#releaser();
  }

  /** Waits (in order of arrival) for a slot; rejects with the signal's reason when it aborts first. */
  take(signal: AbortSignal): Promise<() => void> {
    const now = this.tryTake();
    if (now) return Promise.resolve(now);
    if (signal.aborted) return Promise.reject(signal.reason as Error);
    return new Promise((resolve, reject) => {
      const waiter = {
        grant: () => {
          signal.removeEventListener('abort', onAbort);
          resolve(this.#releaser());
        },
        cancel: reject,
      };
      const onAbort = () => {
        const i = this.#waiting.indexOf(waiter);
        if (i >= 0) this.#waiting.splice(i, 1);
        reject(signal.reason as Error);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.#waiting.push(waiter);
    });
  }

  #releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.#waiting.shift();
      // The slot passes straight to the next in line: the count stays.
      if (next) next.grant();
      else this.#running -= 1;
    };
  }
}
