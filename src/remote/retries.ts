/**
 * The retries of a request: any request is sent again after a 429 (it was not executed), after the
 * server's wait or our own; idempotent requests are retried on 5xx and connection errors with
 * full-jitter back-off; a non-idempotent write whose outcome is unknown becomes an
 * AmbiguousWriteError, never a blind retry.
 */
import type { RequestStats } from '../core/ports.js';
import type { Logger } from '../log/logger.js';
import { DeadlineExceeded, defaultSleep, type Pacer, serverWait } from './pacing.js';
import { deadlineError, RetryableNetworkError, waitTooLongError } from './request-errors.js';
import { isIdempotent, type RequestInit, type Response, type WaitOptions } from './transport-types.js';

const MAX_429_RETRIES = 8;
/**
 * Nothing listens there, or the name does not exist. Before the host has ever answered, that is a
 * wrong baseUrl or a service that is down: retrying (and pacing the retries) only delays the error.
 * Once it has answered, the same failure is a restart, and is retried like any other.
 */
const FAIL_FAST = new Set(['ECONNREFUSED', 'ENOTFOUND', 'PROXY_ECONNREFUSED', 'PROXY_ENOTFOUND']);

/** What the retries need of the transport: its target, bounds and counters, and one attempt. */
export interface RetryContext {
  host: string;
  origin: string;
  /** The target's retries (a request may say its own). */
  retries: number;
  maxWaitMs: number;
  deadlineMs: number;
  stats: RequestStats;
  pacer: Pacer;
  logger: Logger | undefined;
  onRetry: WaitOptions['onRetry'];
  /** Whether the host has answered at least once (see FAIL_FAST). */
  answered(): boolean;
  once(init: RequestInit, deadline: number, attempt: number): Promise<Response>;
}

export async function withRetries(ctx: RetryContext, init: RequestInit): Promise<Response> {
  const idempotent = isIdempotent(init);
  const deadline = Date.now() + ctx.deadlineMs;
  const retries = init.retries ?? ctx.retries;
  let attempt = 0;
  let throttled = 0;
  for (;;) {
    try {
      const res = await ctx.once(init, deadline, attempt + throttled + 1);
      if (res.status === 429 && throttled < MAX_429_RETRIES) {
        throttled += 1;
        ctx.stats.throttled += 1;
        throttle(ctx, init, res, throttled);
        continue;
      }
      if (res.status >= 500 && idempotent && attempt < retries) {
        attempt += 1;
        await backoff(ctx, init, { attempt, retries, deadline }, `HTTP ${res.status}`);
        continue;
      }
      return res;
    } catch (err) {
      if (err instanceof RetryableNetworkError && FAIL_FAST.has(err.failure.code) && !ctx.answered())
        throw err.toApiError(idempotent, ctx.host, ctx.origin);
      if (err instanceof RetryableNetworkError && idempotent && attempt < retries) {
        attempt += 1;
        await backoff(ctx, init, { attempt, retries, deadline }, `no response (${err.failure.code})`);
        continue;
      }
      if (err instanceof RetryableNetworkError) throw err.toApiError(idempotent, ctx.host, ctx.origin);
      if (err instanceof DeadlineExceeded) throw deadlineError(init, ctx.host, { ms: err.waitMs, reason: err.reason }, ctx.deadlineMs);
      throw err;
    }
  }
}

/**
 * A 429: the server's wait (capped: a longer one fails the request with a clear error rather
 * than hanging a run for a day), or our own back-off when it names none.
 */
function throttle(ctx: RetryContext, init: RequestInit, res: Response, throttled: number): void {
  const asked = serverWait(res.headers, Date.now());
  if (asked && asked.ms > ctx.maxWaitMs) throw waitTooLongError(init, ctx.host, asked, ctx.maxWaitMs);
  // The wait itself happens in the pacer, which refuses to wait past the request's deadline.
  const wait = asked?.ms ?? Math.min(1_000 * 2 ** throttled, ctx.maxWaitMs);
  ctx.pacer.pause(wait, asked?.header ?? '429 without Retry-After');
  ctx.logger?.debug({ method: init.method, path: init.path, waitMs: wait }, 'rate limited');
}

async function backoff(
  ctx: RetryContext,
  init: RequestInit,
  at: { attempt: number; retries: number; deadline: number },
  cause: string,
): Promise<void> {
  ctx.stats.retries += 1;
  const cap = Math.min(10_000, 250 * 2 ** at.attempt);
  const wait = Math.floor(Math.random() * cap);
  if (Date.now() + wait > at.deadline)
    throw deadlineError(init, ctx.host, { ms: wait, reason: { kind: 'server', header: 'retry back-off' } }, ctx.deadlineMs);
  ctx.onRetry?.({
    method: init.method,
    path: init.path,
    host: ctx.host,
    attempt: at.attempt + 1,
    attempts: at.retries + 1,
    cause,
    waitMs: wait,
  });
  await defaultSleep(wait, init.signal);
}
