/**
 * Client-side pacing: at most `limit` request starts in any `windowMs` (a sliding window, so
 * it stays under both fixed- and sliding-window server limiters), plus a pause the server can
 * impose (429 Retry-After, RateLimit-Remaining: 0).
 *
 * The server counts arrivals, not starts: a slow request can arrive in the next fixed window,
 * beside a fast one started a full window after it. Holding each slot for the window plus the
 * slowest recent round trip bounds that (an arrival is never later than its response), so
 * `limit + 1` requests never arrive within one window. The hosted API sends no RateLimit
 * headers, so this is its only guard.
 */
import type { Pacing } from '../core/target.js';

export class Pacer {
  readonly #starts: number[] = [];
  /** The last `limit` round trips, in ms; their maximum widens the window. */
  readonly #roundTrips: number[] = [];
  #pausedUntil = 0;

  constructor(
    private readonly pacing: Pacing | null,
    private readonly clock: () => number = () => Date.now(),
    private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void> = defaultSleep,
  ) {}

  /** Waits for a slot, then records the start. */
  async acquire(signal?: AbortSignal): Promise<void> {
    for (;;) {
      const wait = this.waitMs();
      if (wait <= 0) break;
      await this.sleep(wait, signal);
    }
    this.#starts.push(this.clock());
  }

  /** How long the next request must wait now (0 = go). */
  waitMs(): number {
    const now = this.clock();
    let wait = Math.max(0, this.#pausedUntil - now);
    if (this.pacing) {
      const held = this.#dropExpired(now);
      if (this.#starts.length >= this.pacing.limit) wait = Math.max(wait, (this.#starts[0] ?? now) + held - now + 1);
    }
    return wait;
  }

  /** Whether the client's own count already fills the window (then the pacing itself waits). */
  atLimit(): boolean {
    if (!this.pacing) return false;
    this.#dropExpired(this.clock());
    return this.#starts.length >= this.pacing.limit;
  }

  /** Forgets starts that no longer hold a slot; returns how long a slot is held. */
  #dropExpired(now: number): number {
    const held = (this.pacing?.windowMs ?? 0) + this.marginMs();
    while (this.#starts.length > 0 && (this.#starts[0] ?? 0) <= now - held) this.#starts.shift();
    return held;
  }

  /** A response came back `ms` after its request started. */
  observe(ms: number): void {
    if (!this.pacing) return;
    this.#roundTrips.push(ms);
    if (this.#roundTrips.length > this.pacing.limit) this.#roundTrips.shift();
  }

  /** How long past the window a slot stays held: the slowest recent round trip, at most half a window. */
  marginMs(): number {
    if (!this.pacing || this.#roundTrips.length === 0) return 0;
    return Math.min(Math.ceil(Math.max(...this.#roundTrips)), this.pacing.windowMs / 2);
  }

  /** The server said: no more requests for `ms`. */
  pause(ms: number): void {
    this.#pausedUntil = Math.max(this.#pausedUntil, this.clock() + ms);
  }
}

export function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason instanceof Error ? signal.reason : new Error('aborted'));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Seconds (or an HTTP date) from Retry-After / RateLimit-Reset / X-RateLimit-Reset, in ms. */
export function retryDelayMs(headers: Record<string, string | string[] | undefined>, now: number): number | null {
  for (const name of ['retry-after', 'ratelimit-reset', 'x-ratelimit-reset']) {
    const raw = headers[name];
    const value = Array.isArray(raw) ? raw[0] : raw;
    if (value === undefined) continue;
    const seconds = Number(value);
    if (Number.isFinite(seconds) && seconds >= 0) return Math.ceil(seconds * 1000);
    const date = Date.parse(value);
    if (!Number.isNaN(date)) return Math.max(0, date - now);
  }
  return null;
}
