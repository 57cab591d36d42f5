/**
 * Client-side pacing: at most `limit` request starts in any `windowMs` (a sliding window, so
 * it stays under both fixed- and sliding-window server limiters), plus a pause the server can
 * impose (429 Retry-After, RateLimit-Remaining: 0). Waits are bounded by the caller's deadline
 * and every wait longer than REPORT_WAIT_MS is reported once (progress line, daemon log).
 *
 * The server counts arrivals, not starts: a slow request can arrive in the next fixed window,
 * beside a fast one started a full window after it. Holding each slot for the window plus the
 * slowest recent round trip bounds that (an arrival is never later than its response), so
 * `limit + 1` requests never arrive within one window. The hosted API sends no RateLimit
 * headers, so this is its only guard.
 */
import { cancelsInFlight } from '../core/stop.js';
import type { Pacing } from '../core/target.js';

/** The longest wait a server may impose before a request fails instead (target `maxWaitSeconds`). */
export const DEFAULT_MAX_WAIT_MS = 60_000;
/** A request's total time over all attempts and waits (target `deadlineSeconds`). */
export const DEFAULT_DEADLINE_MS = 300_000;
/** Waits longer than this are shown to the user. */
export const REPORT_WAIT_MS = 2_000;

/** Why a request waits: the server asked (and how), or the client's own rate-limit pacing. */
export type WaitReason = { kind: 'server'; header: string } | { kind: 'pacing'; limit: number; windowMs: number };

/** A wait about to start: reported when longer than REPORT_WAIT_MS. */
export interface WaitNotice {
  ms: number;
  reason: WaitReason;
}

/** The next start would be later than the request's deadline. */
export class DeadlineExceeded extends Error {
  constructor(
    readonly waitMs: number,
    readonly reason: WaitReason,
  ) {
    super(`a wait of ${Math.ceil(waitMs / 1000)} s would pass the request's deadline`);
  }
}

export class Pacer {
  readonly #starts: number[] = [];
  /** The last `limit` round trips, in ms; their maximum widens the window. */
  readonly #roundTrips: number[] = [];
  #pausedUntil = 0;
  #pauseReason: WaitReason = { kind: 'server', header: 'Retry-After' };
  /** The end of the last wait reported: overlapping waits of concurrent requests are reported once. */
  #reportedUntil = 0;
  /** Ends the waits under way early, to look again (a slot was given back). */
  readonly #wakers = new Set<() => void>();

  constructor(
    private readonly pacing: Pacing | null,
    private readonly clock: () => number = () => Date.now(),
    private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void> = defaultSleep,
    private readonly onLongWait?: (notice: WaitNotice) => void,
  ) {}

  /**
   * Waits for a slot, then records the start and returns it (for `refund`). Throws DeadlineExceeded
   * instead of waiting past `deadline`; a cancelled signal ends the wait, and no wait is begun
   * (nor announced) once it is cancelled.
   */
  async acquire(signal?: AbortSignal, deadline = Number.POSITIVE_INFINITY): Promise<number> {
    for (;;) {
      if (cancelsInFlight(signal)) throw signal?.reason instanceof Error ? signal.reason : new Error('aborted');
      const wait = this.waitMs();
      if (wait <= 0) break;
      const now = this.clock();
      const reason = this.#pausedUntil - now >= wait ? this.#pauseReason : pacingReason(this.pacing);
      if (now + wait > deadline) throw new DeadlineExceeded(wait, reason);
      this.#announce(now, wait, reason);
      await this.#sleepUnlessWoken(wait, signal);
    }
    const start = this.clock();
    this.#starts.push(start);
    return start;
  }

  /** A request that never reached the server (refused, no route, the proxy said no) gives its slot back, to a waiting request at once. */
  refund(start: number): void {
    const i = this.#starts.indexOf(start);
    if (i < 0) return;
    this.#starts.splice(i, 1);
    for (const wake of [...this.#wakers]) wake();
  }

  async #sleepUnlessWoken(ms: number, signal: AbortSignal | undefined): Promise<void> {
    const wait = new AbortController();
    const fromCaller = () => {
      if (cancelsInFlight(signal)) wait.abort(signal?.reason);
    };
    const wake = () => wait.abort(WOKEN);
    if (signal?.aborted) fromCaller();
    signal?.addEventListener('abort', fromCaller);
    this.#wakers.add(wake);
    try {
      await this.sleep(ms, wait.signal);
    } catch (err) {
      if (wait.signal.reason !== WOKEN) throw err;
    } finally {
      this.#wakers.delete(wake);
      signal?.removeEventListener('abort', fromCaller);
    }
  }

  #announce(now: number, wait: number, reason: WaitReason): void {
    if (wait <= REPORT_WAIT_MS || now + wait <= this.#reportedUntil + 1_000) return;
    this.#reportedUntil = now + wait;
    this.onLongWait?.({ ms: wait, reason });
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

  /** The server said: no more requests for `ms` (the caller has capped it). */
  pause(ms: number, header = 'Retry-After'): void {
    const until = this.clock() + ms;
    if (until <= this.#pausedUntil) return;
    this.#pausedUntil = until;
    this.#pauseReason = { kind: 'server', header };
  }
}

/** The reason a wait is cut short by `refund`: not an error, the waiter looks again. */
const WOKEN = new Error('woken: a pacing slot was given back');

function pacingReason(pacing: Pacing | null): WaitReason {
  return { kind: 'pacing', limit: pacing?.limit ?? 0, windowMs: pacing?.windowMs ?? 0 };
}

/** Sleeps `ms`; an abort cancels it, except a graceful stop (the wait belongs to a request already under way). */
export function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (cancelsInFlight(signal)) {
      reject(signal?.reason instanceof Error ? signal.reason : new Error('aborted'));
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      if (!cancelsInFlight(signal)) return;
      clearTimeout(timer);
      reject(signal?.reason instanceof Error ? signal.reason : new Error('aborted'));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** A wait the server asked for, and which header said so (for messages: `Retry-After: 86400`). */
export interface ServerWait {
  ms: number;
  header: string;
}

const WAIT_HEADERS = [
  ['retry-after', 'Retry-After'],
  ['ratelimit-reset', 'RateLimit-Reset'],
  ['x-ratelimit-reset', 'X-RateLimit-Reset'],
] as const;

/**
 * The wait asked for by Retry-After (seconds or an HTTP date), RateLimit-Reset (seconds) or
 * X-RateLimit-Reset (seconds, or an epoch time in seconds or milliseconds, as servers differ).
 */
export function serverWait(headers: Record<string, string | string[] | undefined>, now: number): ServerWait | null {
  for (const [name, shown] of WAIT_HEADERS) {
    const raw = headers[name];
    const value = (Array.isArray(raw) ? raw[0] : raw)?.trim();
    if (value === undefined || value === '') continue;
    const ms = waitOf(value, now);
    if (ms !== null) return { ms, header: `${shown}: ${value.slice(0, 40)}` };
  }
  return null;
}

function waitOf(value: string, now: number): number | null {
  if (/^\d+(\.\d+)?$/.test(value)) {
    const n = Number(value);
    if (n > 1e12) return Math.max(0, Math.ceil(n - now)); // an epoch time in milliseconds
    if (n > 1e9) return Math.max(0, Math.ceil(n * 1000 - now)); // an epoch time in seconds
    return Math.ceil(n * 1000);
  }
  // An HTTP date names a weekday and month; anything else (`-5`) is not a wait, whatever Date.parse makes of it.
  const date = /[a-z]{3}/i.test(value) ? Date.parse(value) : Number.NaN;
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

/** The wait in ms asked for by the server's headers (see serverWait). */
export function retryDelayMs(headers: Record<string, string | string[] | undefined>, now: number): number | null {
  return serverWait(headers, now)?.ms ?? null;
}
