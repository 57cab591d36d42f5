/**
 * What every backend's writer lease shares: renewal in the background, the `lost` signal that
 * stops the holder's writes, and release. A backend says how to renew and how to give the lease
 * up; a renewal is never attempted after the lease is released or lost.
 */
import { LockError } from '../core/errors.js';
import type { WriterLease } from './backend.js';

export abstract class RenewingLease implements WriterLease {
  readonly #controller = new AbortController();
  readonly #timer: NodeJS.Timeout;
  #released = false;

  constructor(
    readonly target: string,
    readonly token: string,
    renewMs: number,
  ) {
    this.#timer = setInterval(() => {
      if (!this.#released && !this.lost.aborted) void this.renew();
    }, renewMs);
    this.#timer.unref();
  }

  get lost(): AbortSignal {
    return this.#controller.signal;
  }

  async release(): Promise<void> {
    if (this.#released) return;
    this.#released = true;
    clearInterval(this.#timer);
    if (this.lost.aborted) return;
    this.#controller.abort(new LockError(`the lease on target '${this.target}' was released`));
    await this.giveUp();
  }

  /** Extends the lease; calls lose() when another holder has it or it ran out. */
  protected abstract renew(): Promise<void>;

  /** Removes the lease where it is kept, if it is still this holder's (best effort: it expires anyway). */
  protected abstract giveUp(): Promise<void>;

  protected lose(why: string): void {
    clearInterval(this.#timer);
    this.#controller.abort(
      new LockError(
        `lost the writer lease on target '${this.target}': ${why}`,
        'another obsync may be writing this target; the next run starts over',
      ),
    );
  }
}
