/**
 * The gate every service write passes (DESIGN §4, trust invariant 3). A write — POST, PUT,
 * PATCH or DELETE (but not a POST that only reads: a chart query), a kind's extra calls, a
 * hosted wake-up, a key creation — is sent only after `check()` passed, immediately before it
 * leaves (after any wait for the rate limit or a retry). Under a run the fence is fed by the
 * writer lease: it passes only while this process holds the lease it read the inventory under,
 * within the lease's local deadline on the monotonic clock.
 */
import { InvariantError, ReadOnlyError } from './errors.js';

/** The write a fence is asked about, for its error. */
export interface WriteRequest {
  method: string;
  path: string;
}

export interface WriteFence {
  /** Returns when a write may be sent now; throws (a LeaseLostError under a lease) when it may not. */
  check(write?: WriteRequest): void;
}

/** No lease to hold: commands that are not a run and write by design (keys) or never write (query). */
export const UNFENCED: WriteFence = Object.freeze({ check: () => undefined });

/**
 * The fence of every command that only reads the service (plan, export, import, a plan-mode
 * daemon): it refuses every write, a hosted wake-up included. What counts as a read is decided
 * in one place (src/remote/read-only.ts): GET, and the POSTs listed there.
 */
export const READ_ONLY: WriteFence = Object.freeze({
  check(write?: WriteRequest): void {
    throw new ReadOnlyError(write ? `${write.method} ${write.path}` : 'a write');
  },
});

/**
 * The fence of a service port opened before its run's lease is known (a command connects first,
 * then opens the inventory): closed until bound, so a forgotten binding refuses writes rather
 * than letting them through.
 */
export class FenceSlot implements WriteFence {
  #fence: WriteFence | null = null;

  bind(fence: WriteFence): void {
    this.#fence = fence;
  }

  check(write?: WriteRequest): void {
    if (!this.#fence) throw new InvariantError('a service write before the run chose its write fence');
    this.#fence.check(write);
  }
}
