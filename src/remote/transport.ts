/**
 * The one HTTP client of obsync (undici Pool per target): pacing, deadlines, retries and error
 * mapping. Idempotent requests are retried on 5xx and connection errors with full-jitter
 * back-off; any request is retried after a 429 (it was not executed); a non-idempotent write
 * whose outcome is unknown becomes an AmbiguousWriteError, never a blind retry.
 */
import { setMaxListeners } from 'node:events';
import type { Dispatcher } from 'undici';
import { AmbiguousWriteError, ApiError, requestLabel } from '../core/errors.js';
import type { WriteFence, WriteRequest } from '../core/fence.js';
import type { RequestStats } from '../core/ports.js';
import { cancelsInFlight } from '../core/stop.js';
import type { Logger } from '../log/logger.js';
import { serverFields, statusField } from '../log/fields.js';
import { BodyBytes, releaseBytes } from './body-bytes.js';
import { fencingAtSend, withFenceAtSend } from './fence-at-send.js';
import { classifyFailure, createDispatcher, type NetworkFailure, type ProxySettings } from './network.js';
import { topLevelMember, utf8Text } from './list-items.js';
import { isRead } from './read-only.js';
import {
  DeadlineExceeded,
  DEFAULT_DEADLINE_MS,
  DEFAULT_MAX_WAIT_MS,
  defaultSleep,
  Pacer,
  type Slot,
  serverWait,
  type WaitNotice,
  type WaitReason,
} from './pacing.js';

export interface TransportOptions {
  /** The target's name, in the request log. */
  name?: string;
  baseUrl: string;
  /** The Authorization header value (kept here only; never logged or put into errors). */
  authorization: string;
  concurrency: number;
  timeoutMs: number;
  retries: number;
  pacing: { limit: number; windowMs: number } | null;
  logger?: Logger;
  /** Called after every response (or failure) for metrics. */
  onResponse?: (method: string, status: number) => void;
  /** HTTP(S)_PROXY / NO_PROXY as the CLI read them; none: direct connections. */
  proxy?: ProxySettings;
  /** Bounds on waiting: server-requested waits are capped, a request's total time bounded, long waits reported. */
  waits?: WaitOptions;
  /** The largest response body read (default 32 MiB): a larger one fails the request while it streams in. */
  maxResponseBytes?: number;
  /** Checked immediately before every write is sent (every attempt): the run's writer lease. None: writes are not fenced. */
  fence?: WriteFence;
}

/** Well under the 256 Mi the shipped container may use: a parsed body takes several times its bytes. */
export const DEFAULT_MAX_RESPONSE_BYTES = 32 * 1024 * 1024;

export interface WaitOptions {
  /** The longest wait a server may ask for; a longer one fails the request (default 60 s). */
  maxWaitMs?: number;
  /** A request's total time over all attempts and waits (default 300 s). */
  deadlineMs?: number;
  /** Every wait over 2 s, once (overlapping waits of concurrent requests are one). */
  onWait?: (wait: WaitReport) => void;
  /** A request still without an answer after 2 s; the function it returns is called when the request ends. */
  onSlow?: (request: SlowRequest) => () => void;
  /** A request failed in a way that is retried (5xx, no response): the back-off before the next attempt. */
  onRetry?: (retry: RetryReport) => void;
}

/** A request in flight for longer than SLOW_REQUEST_MS. */
export interface SlowRequest {
  method: string;
  path: string;
  host: string;
  /** When it was sent (epoch ms): a progress line counts the seconds from here. */
  startedAt: number;
}

/** An attempt that failed and is tried again after `waitMs`. */
export interface RetryReport {
  method: string;
  path: string;
  host: string;
  /** The attempt about to be made (2 = the first retry) and how many there are at most. */
  attempt: number;
  attempts: number;
  /** Why the last attempt failed: `HTTP 503`, `no response (ECONNRESET)`. */
  cause: string;
  waitMs: number;
}

/** A request without an answer after this long is shown on a terminal's progress line. */
export const SLOW_REQUEST_MS = 2_000;

/** A long wait, for a progress line or a log: how long, for which host, and why. */
export interface WaitReport {
  seconds: number;
  host: string;
  reason: string;
}

export interface RequestInit {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Path below the base URL, starting with `/`. */
  path: string;
  query?: Record<string, string | number>;
  body?: unknown;
  /** PATCH of settings/scaling/state is idempotent; a POST never is. */
  idempotent?: boolean;
  /** Retries after a 5xx or a lost connection, for this request (default: the target's). */
  retries?: number | undefined;
  /** A GET's `If-None-Match`: the ETag of the answer the caller still holds (a 304 then means it is current). */
  ifNoneMatch?: string | undefined;
  signal?: AbortSignal | undefined;
}

export interface Response {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The body parsed as JSON (undefined when it is not), on first use. */
  body: unknown;
  /** The body decoded as UTF-8, on first use. */
  text: string;
  /** The body as it came: a list is read from these (list-items.ts), never from `text`. */
  bytes: Uint8Array;
  /**
   * Frees the body's bytes now, once what was wanted of them has been taken: the body is
   * unusable after (its getters throw). See `releaseBytes`.
   */
  release?(): void;
}

const MAX_429_RETRIES = 8;
const NOT_SENT = new Set(['ECONNREFUSED', 'UND_ERR_CONNECT_TIMEOUT', 'ENOTFOUND', 'EAI_AGAIN']);
/**
 * Nothing listens there, or the name does not exist. Before the host has ever answered, that is a
 * wrong baseUrl or a service that is down: retrying (and pacing the retries) only delays the error.
 * Once it has answered, the same failure is a restart, and is retried like any other.
 */
const FAIL_FAST = new Set(['ECONNREFUSED', 'ENOTFOUND', 'PROXY_ECONNREFUSED', 'PROXY_ENOTFOUND']);

export class Transport {
  readonly stats: RequestStats = { requests: 0, writes: 0, retries: 0, throttled: 0 };
  /** host[:port] of the base URL, named in errors (never its credentials or query). */
  readonly host: string;
  readonly #dispatcher: Dispatcher;
  readonly #origin: string;
  readonly #prefix: string;
  readonly #pacer: Pacer;
  readonly #maxWaitMs: number;
  readonly #deadlineMs: number;
  readonly #maxResponseBytes: number;
  /** Aborted by close(): requests still waiting (a pacing slot, a back-off) end at once and say nothing more. */
  readonly #closing = new AbortController();
  /** Whether the host has answered at least once (see FAIL_FAST). */
  #answered = false;

  constructor(private readonly opts: TransportOptions) {
    const url = new URL(opts.baseUrl);
    this.host = url.host;
    this.#origin = url.origin;
    // No interceptor may keep a response's body chunks (undici's cache interceptor does): the body
    // reader frees each chunk's memory once it has copied it (body-bytes.ts).
    this.#dispatcher = fencingAtSend(createDispatcher(url.origin, opts.concurrency, opts.proxy));
    this.#prefix = url.pathname.replace(/\/+$/, '');
    this.#maxWaitMs = opts.waits?.maxWaitMs ?? DEFAULT_MAX_WAIT_MS;
    this.#deadlineMs = opts.waits?.deadlineMs ?? DEFAULT_DEADLINE_MS;
    this.#maxResponseBytes = opts.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    const onWait = opts.waits?.onWait;
    this.#pacer = new Pacer(opts.pacing, undefined, undefined, onWait ? (notice) => onWait(this.#waitReport(notice)) : undefined);
  }

  async request(caller: RequestInit): Promise<Response> {
    const { signal, release } = untilClosed(caller.signal, this.#closing.signal);
    try {
      return await this.#attempts({ ...caller, signal });
    } finally {
      release();
    }
  }

  async #attempts(init: RequestInit): Promise<Response> {
    const idempotent = isIdempotent(init);
    const deadline = Date.now() + this.#deadlineMs;
    const retries = init.retries ?? this.opts.retries;
    let attempt = 0;
    let throttled = 0;
    for (;;) {
      try {
        const res = await this.#once(init, deadline, attempt + throttled + 1);
        if (res.status === 429 && throttled < MAX_429_RETRIES) {
          throttled += 1;
          this.stats.throttled += 1;
          this.#throttle(init, res, throttled);
          continue;
        }
        if (res.status >= 500 && idempotent && attempt < retries) {
          attempt += 1;
          await this.#backoff(init, attempt, retries, deadline, `HTTP ${res.status}`);
          continue;
        }
        return res;
      } catch (err) {
        if (err instanceof RetryableNetworkError && FAIL_FAST.has(err.failure.code) && !this.#answered)
          throw err.toApiError(idempotent, this.host, this.#origin);
        if (err instanceof RetryableNetworkError && idempotent && attempt < retries) {
          attempt += 1;
          await this.#backoff(init, attempt, retries, deadline, `no response (${err.failure.code})`);
          continue;
        }
        if (err instanceof RetryableNetworkError) throw err.toApiError(idempotent, this.host, this.#origin);
        if (err instanceof DeadlineExceeded) throw this.#deadlineError(init, err.waitMs, err.reason);
        throw err;
      }
    }
  }

  async close(): Promise<void> {
    this.#closing.abort(new Error(`the connection to ${this.host} was closed`));
    await this.#dispatcher.close();
  }

  /**
   * A 429: the server's wait (capped: a longer one fails the request with a clear error rather
   * than hanging a run for a day), or our own back-off when it names none.
   */
  #throttle(init: RequestInit, res: Response, throttled: number): void {
    const asked = serverWait(res.headers, Date.now());
    if (asked && asked.ms > this.#maxWaitMs) {
      throw new ApiError({
        method: init.method,
        path: init.path,
        host: this.host,
        status: 429,
        retryable: true,
        code: 'WAIT_TOO_LONG',
        message: `${init.method} ${init.path}: ${this.host} answered 429 and asked to wait ${formatSeconds(asked.ms)} (${asked.header}), longer than the ${formatSeconds(this.#maxWaitMs)} obsync waits at most`,
        hint: 'try again later, or raise maxWaitSeconds on the target in obsync.yaml',
      });
    }
    // The wait itself happens in the pacer, which refuses to wait past the request's deadline.
    const wait = asked?.ms ?? Math.min(1_000 * 2 ** throttled, this.#maxWaitMs);
    this.#pacer.pause(wait, asked?.header ?? '429 without Retry-After');
    this.opts.logger?.debug({ method: init.method, path: init.path, waitMs: wait }, 'rate limited');
  }

  async #backoff(init: RequestInit, attempt: number, retries: number, deadline: number, cause: string): Promise<void> {
    this.stats.retries += 1;
    const cap = Math.min(10_000, 250 * 2 ** attempt);
    const wait = Math.floor(Math.random() * cap);
    if (Date.now() + wait > deadline) throw this.#deadlineError(init, wait, { kind: 'server', header: 'retry back-off' });
    this.opts.waits?.onRetry?.({
      method: init.method,
      path: init.path,
      host: this.host,
      attempt: attempt + 1,
      attempts: retries + 1,
      cause,
      waitMs: wait,
    });
    await defaultSleep(wait, init.signal);
  }

  /** Reports the request once it has waited SLOW_REQUEST_MS for its answer; returns what ends the report. */
  #watchSlow(init: RequestInit): () => void {
    const onSlow = this.opts.waits?.onSlow;
    if (!onSlow) return () => {};
    const startedAt = Date.now();
    let ended: (() => void) | undefined;
    const timer = setTimeout(() => (ended = onSlow({ method: init.method, path: init.path, host: this.host, startedAt })), SLOW_REQUEST_MS);
    timer.unref();
    return () => {
      clearTimeout(timer);
      ended?.();
    };
  }

  #deadlineError(init: RequestInit, waitMs: number, reason: WaitReason): ApiError {
    return new ApiError({
      method: init.method,
      path: init.path,
      host: this.host,
      status: 0,
      retryable: true,
      code: 'DEADLINE',
      message: `${init.method} ${init.path}: gave up — a further wait of ${formatSeconds(waitMs)} (${describeReason(reason)}) would pass the ${formatSeconds(this.#deadlineMs)} a request may take at most`,
      hint: `the service at ${this.host} is throttling or failing; try again later, or raise deadlineSeconds on the target in obsync.yaml`,
    });
  }

  /**
   * A body past maxResponseMiB. Not retried: the same request gets the same answer. A write's
   * outcome is then unknown (it was received), so it is resolved like a lost response.
   */
  #tooLarge(init: RequestInit, err: ResponseTooLarge): ApiError {
    const mib = formatMiB(err.cap);
    const size = err.announced === undefined ? `more than ${mib}` : `${formatMiB(err.announced)} (Content-Length)`;
    const facts = {
      method: init.method,
      path: init.path,
      host: this.host,
      status: err.status,
      retryable: false,
      code: 'RESPONSE_TOO_LARGE',
      hint: `if the service really holds that much, raise maxResponseMiB on the target in obsync.yaml (mind the memory limit of the container: a parsed body takes several times its size); otherwise check the target baseUrl`,
      cause: err,
    };
    const what = `${requestLabel(facts)}: the response is ${size}, larger than the ${mib} obsync reads (maxResponseMiB); reading stopped`;
    const idempotent = isIdempotent(init);
    if (!idempotent) return new AmbiguousWriteError({ ...facts, message: `${what}; the write was received, its outcome is unknown` });
    return new ApiError({ ...facts, message: what });
  }

  #waitReport(notice: WaitNotice): WaitReport {
    return { seconds: Math.ceil(notice.ms / 1000), host: this.host, reason: describeReason(notice.reason) };
  }

  /**
   * The request log (OBSYNC_LOG_LEVEL=debug): one line per attempt with method, path (no query),
   * status, duration, attempt and the server's request id; never a header or a body.
   */
  #logRequest(
    init: RequestInit,
    attempt: number,
    started: number,
    outcome: { status: number; requestId?: () => string | undefined; error?: string },
  ): void {
    const logger = this.opts.logger;
    if (!logger?.isLevelEnabled('debug')) return;
    // Found only for this line: in a list's body it means scanning the whole body.
    const requestId = outcome.requestId?.();
    // OpenTelemetry's HTTP client conventions (src/log/fields.ts); no query string (docs/daemon-visibility.md).
    const path = init.path.replace(/\?.*$/s, '');
    logger.debug(
      {
        ...(this.opts.name === undefined ? {} : { target: this.opts.name }),
        'http.request.method': init.method,
        ...serverFields(this.host),
        'url.path': this.#prefix + path,
        ...statusField(outcome.status),
        ...(attempt > 1 ? { 'http.request.resend_count': attempt - 1 } : {}),
        ...(outcome.error === undefined ? {} : { 'error.type': outcome.error }),
        durationMs: Math.round(performance.now() - started),
        ...(requestId === undefined ? {} : { requestId }),
      },
      'request',
    );
  }

  /** The writer lease's check; a refused write was never sent, so its pacing slot is given back. */
  #checkFence(slot: Slot, write: WriteRequest): void {
    try {
      this.opts.fence?.check(write);
    } catch (err) {
      this.#pacer.refund(slot);
      throw err;
    }
  }

  #recordingRefusal(fence: WriteFence, refused: (err: unknown) => void): WriteFence {
    return {
      check: (write) => {
        try {
          fence.check(write);
        } catch (err) {
          refused(err);
          throw err;
        }
      },
    };
  }

  async #once(init: RequestInit, deadline: number, attempt: number): Promise<Response> {
    const slot = await this.#pacer.acquire(init.signal, deadline);
    // What is a read is decided in one place (read-only.ts): every other request passes the fence.
    const write = !isRead(init);
    // After every wait (rate limit, back-off): a process paused past its lease sends nothing on resuming.
    // A POST that only reads (a backtest's chart query) is no write: a plan's reads need no lease.
    if (write) this.#checkFence(slot, { method: init.method, path: init.path });
    this.stats.requests += 1;
    if (write) this.stats.writes += 1;
    const path = this.#prefix + init.path + queryString(init.query);
    const headers: Record<string, string> = { authorization: this.opts.authorization, accept: 'application/json', 'user-agent': 'obsync' };
    if (init.ifNoneMatch !== undefined) headers['if-none-match'] = init.ifNoneMatch;
    let body: string | undefined;
    if (init.body !== undefined) {
      headers['content-type'] = 'application/json; charset=utf-8';
      body = serialized(init.body, () => this.#pacer.refund(slot));
    }
    // An attempt never outlives the request's deadline. Made after the body, which may fail to serialize: its timer must not outlive a request never sent.
    const { signal, timedOut, release } = requestSignal(init.signal, Math.max(1, Math.min(this.opts.timeoutMs, deadline - Date.now())));
    const started = performance.now();
    const slowEnded = this.#watchSlow(init);
    let responded = false;
    // Checked again as undici writes it (see fence-at-send): what refused it then is this request's error.
    let refusedAtSend: { err: unknown } | undefined;
    const fence = write && this.opts.fence ? this.#recordingRefusal(this.opts.fence, (err) => (refusedAtSend = { err })) : undefined;
    try {
      const options = { origin: this.#origin, path, method: init.method, headers, body, signal };
      const res = await this.#dispatcher.request(withFenceAtSend(options, fence));
      responded = true;
      this.#answered = true;
      // Its arrival is behind it now: the slot is held a window from here.
      this.#pacer.settle(slot);
      this.opts.onResponse?.(init.method, res.statusCode);
      this.#learnLimits(res.headers);
      const bytes = await readCapped(res, this.#maxResponseBytes);
      this.#logRequest(init, attempt, started, { status: res.statusCode, requestId: () => requestIdOf(res.headers, bytes) });
      return responseOf(res.statusCode, res.headers, bytes);
    } catch (err) {
      if (refusedAtSend) {
        // Never written: like a refusal before the send, it gives its slot back.
        this.#pacer.refund(slot);
        throw refusedAtSend.err;
      }
      if (err instanceof ResponseTooLarge) {
        this.#logRequest(init, attempt, started, { status: err.status, error: 'RESPONSE_TOO_LARGE' });
        throw this.#tooLarge(init, err);
      }
      if (!responded) this.opts.onResponse?.(init.method, 0);
      if (cancelsInFlight(init.signal)) {
        this.#logRequest(init, attempt, started, { status: 0, error: 'aborted' });
        throw init.signal?.reason instanceof Error ? init.signal.reason : new Error('aborted');
      }
      const failure = classifyFailure(err, timedOut());
      this.#logRequest(init, attempt, started, { status: 0, error: failure.code });
      // It never reached the server: the slot is not spent (a refused target must not wait out the rate limit).
      if (!responded && (failure.kind !== 'network' || NOT_SENT.has(failure.code))) this.#pacer.refund(slot);
      if (failure.kind === 'tls-certificate' || failure.kind === 'tls-handshake')
        throw tlsError(init, this.#origin, this.host, failure, err);
      throw new RetryableNetworkError(init.method, init.path, failure, err);
    } finally {
      // Answered or failed (a refunded slot is gone already): the request can arrive no later than now.
      this.#pacer.settle(slot);
      slowEnded();
      release();
    }
  }

  /**
   * RateLimit-Remaining: 0 while the client's own count still has room means someone else spends
   * this key's window (another replica, another tool): pause until its reset instead of
   * collecting a 429. When the own count is full too, the pacing waits already, and more
   * precisely than the header's whole seconds allow.
   */
  #learnLimits(headers: Record<string, string | string[] | undefined>): void {
    const remaining = Number(headers['ratelimit-remaining']);
    if (headers['ratelimit-remaining'] !== undefined && remaining === 0 && !this.#pacer.atLimit()) {
      const reset = serverWait({ 'ratelimit-reset': headers['ratelimit-reset'] }, Date.now());
      if (reset !== null) this.#pacer.pause(Math.min(reset.ms, this.#maxWaitMs), reset.header);
    }
  }
}

/**
 * The caller's signal, also aborted when the transport closes. A graceful stop of the caller is
 * not passed on (what is under way finishes, and a later close still cancels it); any other abort
 * of the caller, and the transport's close, cancel everything.
 */
function untilClosed(parent: AbortSignal | undefined, closing: AbortSignal): { signal: AbortSignal; release: () => void } {
  const controller = new AbortController();
  const fromParent = () => {
    if (cancelsInFlight(parent)) controller.abort(parent?.reason);
  };
  const fromClose = () => controller.abort(closing.reason);
  // Every request under way listens here until it ends (the listener is removed then): many at
  // once is by design (a plan's backtest queries wait in the pacer together), not a leak.
  for (const s of [parent, closing]) if (s) setMaxListeners(0, s);
  if (closing.aborted) fromClose();
  else if (parent?.aborted) fromParent();
  parent?.addEventListener('abort', fromParent, { once: true });
  closing.addEventListener('abort', fromClose, { once: true });
  return {
    signal: controller.signal,
    release: () => {
      parent?.removeEventListener('abort', fromParent);
      closing.removeEventListener('abort', fromClose);
    },
  };
}

/** A response body past the cap: reading stopped there. */
class ResponseTooLarge extends Error {
  constructor(
    readonly status: number,
    readonly cap: number,
    /** The Content-Length that announced it, when that is how it was known. */
    readonly announced: number | undefined,
  ) {
    super(`response larger than ${cap} bytes`);
  }
}

/**
 * The body's bytes, read while it streams and abandoned the moment it passes `cap` bytes (or when
 * Content-Length already says it will): a huge answer never sits in memory whole. Not decoded
 * here: a list's unchanged items are recognised by their bytes and never become text (api.ts),
 * so a large list is not held as its bytes, its text and its parsed items at once.
 */
async function readCapped(res: Dispatcher.ResponseData, cap: number): Promise<Buffer> {
  const header = res.headers['content-length'];
  const announced = Number(Array.isArray(header) ? header[0] : header);
  if (header !== undefined && Number.isFinite(announced) && announced > cap) {
    res.body.destroy();
    throw new ResponseTooLarge(res.statusCode, cap, announced);
  }
  const body = new BodyBytes(header !== undefined && Number.isSafeInteger(announced) && announced >= 0 ? announced : undefined);
  for await (const chunk of res.body as AsyncIterable<Buffer>) {
    if (body.size + chunk.length > cap) {
      res.body.destroy();
      throw new ResponseTooLarge(res.statusCode, cap, undefined);
    }
    body.push(chunk);
  }
  return body.bytes();
}

/**
 * One request's signal: the caller's abort or the deadline. Not `AbortSignal.any`: on Node 20 every
 * signal it derives from a long-lived parent (the daemon's) stays reachable, a leak per request.
 */
function requestSignal(
  parent: AbortSignal | undefined,
  timeoutMs: number,
): { signal: AbortSignal; timedOut: () => boolean; release: () => void } {
  const controller = new AbortController();
  let expired = false;
  const timer = setTimeout(() => {
    expired = true;
    controller.abort(new Error(`no response within ${timeoutMs} ms`));
  }, timeoutMs);
  // A graceful stop lets a request already on its way finish; any other abort cancels it.
  const onAbort = () => {
    if (cancelsInFlight(parent)) controller.abort(parent?.reason);
  };
  if (parent?.aborted) onAbort();
  else parent?.addEventListener('abort', onAbort, { once: true });
  return {
    signal: controller.signal,
    timedOut: () => expired,
    release: () => {
      clearTimeout(timer);
      parent?.removeEventListener('abort', onAbort);
    },
  };
}

class RetryableNetworkError extends Error {
  constructor(
    readonly method: string,
    readonly path: string,
    readonly failure: NetworkFailure,
    cause: unknown,
  ) {
    super(`${method} ${path}: ${failure.code}`, { cause });
  }

  toApiError(idempotent: boolean, host: string, origin: string): ApiError {
    const { code, kind, detail } = this.failure;
    const init = { method: this.method, path: this.path, host, status: 0, retryable: true, bodyExcerpt: code, cause: this.cause };
    if (kind === 'proxy') {
      return new ApiError({
        ...init,
        code: 'PROXY',
        message: `${requestLabel(init)} failed: ${detail}; the request was not sent`,
        hint: 'check HTTPS_PROXY / HTTP_PROXY (and the proxy credentials in them) and that the proxy runs and allows CONNECT to this host, or list the service in NO_PROXY; the service itself was not reached',
      });
    }
    if (code === 'ECONNREFUSED') {
      return new ApiError({
        ...init,
        code: 'CONNECTION_REFUSED',
        message: `${requestLabel(init)} failed: connection refused — nothing listens at ${origin}; the request was not sent`,
        hint: 'check the target baseUrl (host and port) and that the service is running',
      });
    }
    if (code === 'ENOTFOUND') {
      return new ApiError({
        ...init,
        code: 'HOST_NOT_FOUND',
        message: `${requestLabel(init)} failed: the host name of ${origin} does not resolve (ENOTFOUND); the request was not sent`,
        hint: 'check the host name in the target baseUrl (and DNS on this machine)',
      });
    }
    if (!idempotent && !NOT_SENT.has(code)) return new AmbiguousWriteError(init);
    return new ApiError({
      ...init,
      message: `${requestLabel(init)} failed: no response (${code})`,
      hint: 'check that the service is reachable at the target baseUrl',
    });
  }
}

/** A certificate or handshake failure: nothing was sent, and the same request would fail the same way. */
function tlsError(init: RequestInit, origin: string, host: string, failure: NetworkFailure, cause: unknown): ApiError {
  const certificate = failure.kind === 'tls-certificate';
  return new ApiError({
    method: init.method,
    path: init.path,
    host,
    status: 0,
    retryable: false,
    bodyExcerpt: failure.code,
    code: certificate ? 'TLS_CERTIFICATE' : 'TLS_HANDSHAKE',
    message: certificate
      ? `${init.method} ${init.path}: TLS certificate of ${origin} not trusted (${failure.code}: ${failure.detail}); the request was not sent`
      : `${init.method} ${init.path}: TLS handshake with ${origin} failed (${failure.code}); the request was not sent`,
    hint: certificate
      ? 'if the service (or a TLS-inspecting proxy) uses a private or corporate CA, set NODE_EXTRA_CA_CERTS to a PEM file holding that CA certificate (read when obsync starts)'
      : 'check the target baseUrl: https:// to a port that speaks plain HTTP fails this way',
    cause,
  });
}

/** GET, PUT and DELETE are; a POST never is; a PATCH when the caller says so. */
function isIdempotent(init: RequestInit): boolean {
  return init.idempotent ?? (init.method === 'GET' || init.method === 'PUT' || init.method === 'DELETE');
}

function formatMiB(bytes: number): string {
  const mib = bytes / (1024 * 1024);
  return `${Number.isInteger(mib) ? mib : mib.toFixed(1)} MiB`;
}

function formatSeconds(ms: number): string {
  return `${Math.ceil(ms / 1000)} s`;
}

function describeReason(reason: WaitReason): string {
  if (reason.kind === 'server') return `the server asked: ${reason.header}`;
  return `rate limit of ${reason.limit} requests per ${reason.windowMs / 1000} s`;
}

/** `?name=value&...` of a request's query, or '' without one. */
export function queryString(query: Record<string, string | number> | undefined): string {
  if (!query) return '';
  const params = new URLSearchParams(Object.fromEntries(Object.entries(query).map(([k, v]) => [k, String(v)])));
  return `?${params.toString()}`;
}

/**
 * A response over the body's bytes, decoded and parsed on first use: a list read through an item
 * memo looks only at the bytes of the items that changed (api.ts), and decoding or parsing the
 * whole body again would cost what it saves. The in-process sandbox builds its answers here too.
 */
export function responseOf(status: number, headers: Response['headers'], bytes: Uint8Array): Response {
  let body: Uint8Array | null = bytes;
  let text: string | undefined;
  let parsed: { value: unknown } | undefined;
  const readable = (): Uint8Array => {
    if (body === null) throw new Error('internal: a response body was read after it was released');
    return body;
  };
  return {
    status,
    headers,
    get bytes() {
      return readable();
    },
    get text() {
      text ??= utf8Text(readable());
      return text;
    },
    get body() {
      parsed ??= { value: parseJson((text ??= utf8Text(readable()))) };
      return parsed.value;
    },
    release() {
      if (body !== null) releaseBytes(body);
      body = null;
      text = undefined;
      parsed = undefined;
    },
  };
}

/** Headers servers name their request id with; the hosted API puts it in the body's envelope. */
const REQUEST_ID_HEADERS = ['x-request-id', 'request-id', 'x-amzn-requestid', 'x-correlation-id'];

/** From the headers, else the body's top-level `requestId` (found without parsing the rest of the body). */
function requestIdOf(headers: Record<string, string | string[] | undefined>, bytes: Uint8Array): string | undefined {
  for (const name of REQUEST_ID_HEADERS) {
    const value = headers[name];
    const first = Array.isArray(value) ? value[0] : value;
    if (first) return first.slice(0, 200);
  }
  const inBody = topLevelMember(bytes, 'requestId');
  return typeof inBody === 'string' ? inBody.slice(0, 200) : undefined;
}

function parseJson(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The request body as JSON; one that cannot be serialized was never sent, and gives its pacing slot back. */
function serialized(body: unknown, giveBack: () => void): string {
  try {
    return JSON.stringify(body);
  } catch (err) {
    giveBack();
    throw err;
  }
}
