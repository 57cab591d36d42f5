/**
 * What every backend's writer lease shares: renewal in the background, the local deadline that
 * fences writes, the `lost` signal that stops the holder's writes, and release. A backend says
 * how to renew and how to give the lease up; a renewal is never attempted after the lease is
 * released or lost.
 */
import { LeaseLostError } from '../core/errors.js';
import { leaseMarginMs, type LeaseTiming, type WriterLease } from './backend.js';

/** A point in time on both clocks: the monotonic one decides; the wall clock catches a frozen VM whose monotonic clock stood still. */
export interface Moment {
  mono: number;
  wall: number;
}

export function moment(): Moment {
  return { mono: performance.now(), wall: Date.now() };
}

/** Calls `tick` every `ms` until the returned function is called. */
export type Every = (tick: () => void, ms: number) => () => void;

/** A timer of the lease's own (the default): it never keeps the process alive. */
export const ownTimer: Every = (tick, ms) => {
  const timer = setInterval(tick, ms);
  timer.unref();
  return () => clearInterval(timer);
};

export abstract class RenewingLease implements WriterLease {
  readonly #controller = new AbortController();
  readonly #stopTimer: () => void;
  #released = false;
  /** Writes are allowed until these (monotonic and wall clock): the last acquisition or renewal sent + lease − margin. */
  #until: Moment;

  /**
   * `since`: when the request that took the lease was sent (its expiry is counted from no earlier).
   * `every`: what ticks the renewals (a backend may tick all its leases together to renew them in one request).
   */
  constructor(
    readonly target: string,
    readonly token: string,
    protected readonly timing: LeaseTiming,
    since: Moment,
    every: Every = ownTimer,
  ) {
    this.#until = this.#deadline(since);
    this.#stopTimer = every(() => {
      if (!this.#released && !this.lost.aborted) void this.renew();
    }, timing.renewMs);
  }

  get lost(): AbortSignal {
    return this.#controller.signal;
  }

  check(): void {
    if (this.lost.aborted) throw this.#lostError();
    const now = moment();
    if (now.mono >= this.#until.mono || now.wall >= this.#until.wall) {
      this.lose(
        `its local deadline passed ${Math.round(now.mono - this.#until.mono)} ms ago without a renewal (was this process paused, or ` +
          `its event loop blocked?)`,
      );
      throw this.#lostError();
    }
  }

  async release(): Promise<void> {
    if (this.#released) return;
    this.#released = true;
    this.#stopTimer();
    if (this.lost.aborted) return;
    this.#controller.abort(new LeaseLostError(`the lease on target '${this.target}' was released`));
    await this.giveUp();
  }

  /** Extends the lease; calls renewed() on success, lose() when another holder has it or it ran out. */
  protected abstract renew(): Promise<void>;

  /** Removes the lease where it is kept, if it is still this holder's (best effort: it expires anyway). */
  protected abstract giveUp(): Promise<void>;

  /** A renewal sent at `sentAt` succeeded: the lease runs from then. */
  protected renewed(sentAt: Moment): void {
    const next = this.#deadline(sentAt);
    if (next.mono > this.#until.mono) this.#until = next;
  }

  /**
   * Past the local deadline: this holder may no longer write, nor extend the lease where it is
   * kept — a renewal written now could overwrite a successor's (a process paused mid-renewal).
   */
  protected pastDeadline(): boolean {
    const now = moment();
    return now.mono >= this.#until.mono || now.wall >= this.#until.wall;
  }

  /** Past the whole lease since the last renewal was sent: another holder may have it by now. */
  protected expired(): boolean {
    return performance.now() >= this.#until.mono + leaseMarginMs(this.timing);
  }

  protected lose(why: string): void {
    this.#stopTimer();
    if (this.lost.aborted) return;
    this.#controller.abort(new LeaseLostError(`lost the writer lease on target '${this.target}': ${why}`));
  }

  #deadline(since: Moment): Moment {
    const valid = this.timing.leaseMs - leaseMarginMs(this.timing);
    return { mono: since.mono + valid, wall: since.wall + valid };
  }

  #lostError(): Error {
    const reason: unknown = this.lost.reason;
    return reason instanceof Error ? reason : new LeaseLostError(`lost the writer lease on target '${this.target}'`);
  }
}
