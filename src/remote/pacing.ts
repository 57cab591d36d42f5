/**
 * Client-side pacing: at most `limit` requests hold a slot at once, plus a pause the server can
 * impose (429 Retry-After, RateLimit-Remaining: 0). Waits are bounded by the caller's deadline
 * and every wait longer than REPORT_WAIT_MS is reported once (progress line, daemon log).
 *
 * The server counts arrivals, and an arrival is never earlier than the slot was given nor later
 * than the answer (or failure) came back. So a slot is held from its start until a window after
 * its answer (`settle`), plus a small safety margin for the server's timers and clock: whatever
 * the alignment of the server's fixed (or sliding) window, `limit + 1` requests never arrive
 * within one window, however long a request waited between its slot and the wire (a busy event
 * loop) or on the wire. The hosted API sends no RateLimit headers, so this is its only guard.
 */
import { cancelsInFlight } from '../core/stop.js';
import { countWait } from './waits.js';
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

/** A request's claim on the window: from its start until a window after its answer. */
export interface Slot {
  readonly start: number;
  /** When its answer (or failure) came back; null while the request is under way. */
  end: number | null;
}

/** How long past the window a settled slot stays held: the server's timers and clock may run a little late. */
export function safetyMarginMs(windowMs: number): number {
  return Math.min(1_000, Math.ceil(windowMs / 200));
}

export class Pacer {
  /** The slots held, in the order they were given. */
  readonly #slots: Slot[] = [];
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
   * Waits for a slot, then takes it and returns it (for `settle` once answered, or `refund`).
   * Throws DeadlineExceeded instead of waiting past `deadline`; a cancelled signal ends the wait,
   * and no wait is begun (nor announced) once it is cancelled.
   */
  async acquire(signal?: AbortSignal, deadline = Number.POSITIVE_INFINITY): Promise<Slot> {
    const began = this.clock();
    for (;;) {
      if (cancelsInFlight(signal)) throw signal?.reason instanceof Error ? signal.reason : new Error('aborted');
      const slot = this.tryAcquire();
      if (slot) {
        // The work this request is for (an apply's step) says how much of its time was this wait.
        countWait(this.clock() - began);
        return slot;
      }
      const wait = this.waitMs();
      const now = this.clock();
      const reason = this.#pausedUntil - now >= wait ? this.#pauseReason : pacingReason(this.pacing);
      if (now + wait > deadline) throw new DeadlineExceeded(wait, reason);
      this.#announce(now, wait, reason);
      await this.#sleepUnlessWoken(wait, signal);
    }
  }

  /** Takes a slot now if one is free (no wait), else null. */
  tryAcquire(): Slot | null {
    if (this.waitMs() > 0) return null;
    const slot: Slot = { start: this.clock(), end: null };
    if (this.pacing) this.#slots.push(slot);
    return slot;
  }

  /** The request's answer (or failure) came back: its arrival, if any, is behind it; the slot is held a window from now. */
  settle(slot: Slot): void {
    if (slot.end === null) slot.end = this.clock();
  }

  /** A request that never reached the server (refused, no route, the proxy said no) gives its slot back, to a waiting request at once. */
  refund(slot: Slot): void {
    const i = this.#slots.indexOf(slot);
    if (i < 0) return;
    this.#slots.splice(i, 1);
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

  /**
   * How long the next request must wait now (0 = go). While every held slot is under way, the
   * earliest any can free is a full hold from now (the wait is then looked at again).
   */
  waitMs(): number {
    const now = this.clock();
    let wait = Math.max(0, this.#pausedUntil - now);
    if (this.pacing && this.#held(now) >= this.pacing.limit) {
      const hold = this.#holdMs();
      const free = Math.min(...this.#slots.map((s) => (s.end ?? now) + hold));
      wait = Math.max(wait, free - now + 1);
    }
    return wait;
  }

  /** Whether the client's own count already fills the window (then the pacing itself waits). */
  atLimit(): boolean {
    return this.pacing !== null && this.#held(this.clock()) >= this.pacing.limit;
  }

  /** Forgets the slots a window (and the margin) past their answer; returns how many are held. */
  #held(now: number): number {
    const hold = this.#holdMs();
    for (let i = this.#slots.length - 1; i >= 0; i--) {
      const end = this.#slots[i]?.end ?? null;
      if (end !== null && end + hold <= now) this.#slots.splice(i, 1);
    }
    return this.#slots.length;
  }

  #holdMs(): number {
    const windowMs = this.pacing?.windowMs ?? 0;
    return windowMs + safetyMarginMs(windowMs);
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
