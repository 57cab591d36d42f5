/**
 * Ctrl-C during `apply`. Before any change (planning, the prompt): stop at once, nothing was
 * applied. While applying, the first Ctrl-C is a graceful stop: it says so, no new step starts,
 * the steps under way finish (their requests are never cut off mid-write), and the command
 * prints what was done and what was skipped, releases the inventory lock and exits 130. A second
 * Ctrl-C abandons the steps under way and exits at once; the journal keeps their pending creates,
 * so the next run resolves them.
 */
import type { Address } from '../core/plan.js';
import { StopRequested } from '../core/stop.js';
import type { CliIO } from './io.js';
import { closeProgress } from './progress.js';

export const INTERRUPTED_EXIT = 130;

/** Thrown when Ctrl-C arrives before the first change. */
export class InterruptedBeforeApply extends Error {
  constructor() {
    super('interrupted before any change was applied');
  }
}

export class ApplyInterrupts {
  readonly #controller = new AbortController();
  /** Cancels the reads of planning outright: nothing has been written yet. */
  readonly #planning = new AbortController();
  /** Steps under way, by target and address. */
  readonly #inFlight = new Set<string>();
  readonly #unsubscribe: () => void;
  #applying = false;
  #presses = 0;
  #beforeApply: (() => void) | null = null;

  constructor(private readonly io: CliIO) {
    this.#unsubscribe = io.onInterrupt?.(() => this.#pressed()) ?? (() => undefined);
  }

  /** The run's signal: aborted (gracefully) by the first Ctrl-C while applying. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** The planning's signal: aborted by Ctrl-C before the apply, cutting its requests short. */
  get planningSignal(): AbortSignal {
    return this.#planning.signal;
  }

  /** Whether a stop was asked while applying. */
  get stopped(): boolean {
    return this.#applying && this.#presses > 0;
  }

  /** Runs `work` (planning, the prompt) so that Ctrl-C ends it with InterruptedBeforeApply. */
  async beforeApply<T>(work: Promise<T>): Promise<T> {
    if (this.#presses > 0) throw new InterruptedBeforeApply();
    let cancel: () => void = () => undefined;
    const interrupted = new Promise<never>((_resolve, reject) => {
      cancel = () => reject(new InterruptedBeforeApply());
    });
    this.#beforeApply = cancel;
    try {
      return await Promise.race([work, interrupted]);
    } finally {
      this.#beforeApply = null;
    }
  }

  /** From here on, Ctrl-C stops gracefully (a Ctrl-C that came before still means: apply nothing). */
  applying(): void {
    if (this.#presses > 0) throw new InterruptedBeforeApply();
    this.#applying = true;
  }

  /** A step of one target among several (the same address may be under way on two targets). */
  started(target: string, address: Address): void {
    this.#inFlight.add(`${target}\u0000${address}`);
  }

  done(target: string, address: Address): void {
    this.#inFlight.delete(`${target}\u0000${address}`);
  }

  dispose(): void {
    this.#unsubscribe();
  }

  #pressed(): void {
    this.#presses += 1;
    if (!this.#applying) {
      this.#planning.abort(new InterruptedBeforeApply());
      if (this.#beforeApply) this.#beforeApply();
      else if (this.#presses > 1) this.#exit('Interrupted: nothing was applied.');
      return;
    }
    const n = this.#inFlight.size;
    if (this.#presses === 1) {
      this.io.stderr.write(
        n > 0
          ? `\nStopping: waiting for ${n} in-flight request(s) to finish (press Ctrl-C again to abandon them)…\n`
          : '\nStopping: no request in flight; no new change will start…\n',
      );
      this.#controller.abort(new StopRequested());
      return;
    }
    this.#exit(`Abandoned ${n} in-flight request(s): they may or may not have been applied; the next run resolves them.`);
  }

  #exit(message: string): void {
    closeProgress(this.io);
    this.io.stderr.write(`\n${message}\n`);
    this.io.exitNow?.(INTERRUPTED_EXIT);
  }
}
