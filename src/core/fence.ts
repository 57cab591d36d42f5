/**
 * The gate every service write passes (DESIGN §4, trust invariant 3). A write — POST, PUT,
 * PATCH or DELETE (but not a POST that only reads: a chart query), a kind's extra calls, a
 * hosted wake-up, a key creation — is sent only after `check()` passed, immediately before it
 * leaves (after any wait for the rate limit or a retry). Under a run the fence is fed by the
 * writer lease: it passes only while this process holds the lease it read the inventory under,
 * within the lease's local deadline on the monotonic clock.
 */
import { InvariantError } from './errors.js';

export interface WriteFence {
  /** Returns when a write may be sent now; throws (a LeaseLostError under a lease) when it may not. */
  check(): void;
}

/** No lease to hold: commands that are not a run (keys, query) and read-only runs (plan; a hosted wake-up). */
export const UNFENCED: WriteFence = Object.freeze({ check: () => undefined });

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

  check(): void {
    if (!this.#fence) throw new InvariantError('a service write before the run chose its write fence');
    this.#fence.check();
  }
}
