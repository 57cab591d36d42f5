/**
 * The one HTTP client of obsync (undici Pool per target): one attempt of a request here — pacing
 * slot, writer fence, deadline, the send and its answer; the retries around it are ./retries.ts,
 * the error mapping ./request-errors.ts, the body reading ./response.ts.
 */
import type { Dispatcher } from 'undici';
import type { WriteRequest } from '../core/fence.js';
import type { RequestStats } from '../core/ports.js';
import { cancelsInFlight } from '../core/stop.js';
import { fencingAtSend, recordingRefusal, withFenceAtSend } from './fence-at-send.js';
import { classifyFailure, createDispatcher } from './network.js';
import { isRead } from './read-only.js';
import { DEFAULT_DEADLINE_MS, DEFAULT_MAX_WAIT_MS, Pacer, type Slot, serverWait, type WaitNotice } from './pacing.js';
import { describeReason, NOT_SENT, RetryableNetworkError, tlsError, tooLargeError } from './request-errors.js';
import { logRequest, watchSlow } from './request-log.js';
import { requestSignal, untilClosed } from './request-signals.js';
import { readCapped, requestIdOf, ResponseTooLarge, responseOf } from './response.js';
import { type RetryContext, withRetries } from './retries.js';
import { routeTemplate } from './route-template.js';
import { ATTR } from '../telemetry/names.js';
import { ObsyncError } from '../core/errors.js';
import {
  DEFAULT_MAX_RESPONSE_BYTES,
  queryString,
  type RequestInit,
  type Response,
  type TransportOptions,
  type WaitReport,
} from './transport-types.js';

export class Transport {
  readonly stats: RequestStats = { requests: 0, writes: 0, retries: 0, throttled: 0 };
  /** host[:port] of the base URL, named in errors (never its credentials or query). */
  readonly host: string;
  readonly #dispatcher: Dispatcher;
  readonly #origin: string;
  readonly #prefix: string;
  readonly #pacer: Pacer;
  readonly #maxWaitMs: number;
  readonly #maxResponseBytes: number;
  readonly #retries: RetryContext;
  /** Aborted by close(): requests still waiting (a pacing slot, a back-off) end at once and say nothing more. */
  readonly #closing = new AbortController();
  /** Whether the host has answered at least once (see retries.ts FAIL_FAST). */
  #answered = false;
  /** A traced request's attempts and time waited for a pacing slot (the rate limit), by the init its attempts share. */
  readonly #tallies = new WeakMap<RequestInit, Tally>();

  constructor(private readonly opts: TransportOptions) {
    const url = new URL(opts.baseUrl);
    this.host = url.host;
    this.#origin = url.origin;
    // No interceptor may keep a response's body chunks (undici's cache interceptor does): the body
    // reader frees each chunk's memory once it has copied it (body-bytes.ts).
    this.#dispatcher = fencingAtSend(createDispatcher(url.origin, opts.concurrency, opts.proxy));
    this.#prefix = url.pathname.replace(/\/+$/, '');
    this.#maxWaitMs = opts.waits?.maxWaitMs ?? DEFAULT_MAX_WAIT_MS;
    this.#maxResponseBytes = opts.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    const onWait = opts.waits?.onWait;
    this.#pacer = new Pacer(opts.pacing, undefined, undefined, onWait ? (notice) => onWait(this.#waitReport(notice)) : undefined);
    this.#retries = {
      host: this.host,
      origin: this.#origin,
      retries: opts.retries,
      maxWaitMs: this.#maxWaitMs,
      deadlineMs: opts.waits?.deadlineMs ?? DEFAULT_DEADLINE_MS,
      stats: this.stats,
      pacer: this.#pacer,
      logger: opts.logger,
      onRetry: opts.waits?.onRetry,
      answered: () => this.#answered,
      once: (init, deadline, attempt) => this.#once(init, deadline, attempt),
    };
  }

  request(caller: RequestInit): Promise<Response> {
    const telemetry = this.opts.telemetry;
    if (telemetry?.enabled !== true) return this.#send(caller);
    // The route with its ids as placeholders: never the query string, a header or the body.
    const route = routeTemplate(caller.path);
    const attributes = { [ATTR.httpMethod]: caller.method, [ATTR.urlTemplate]: route, [ATTR.serverAddress]: this.host };
    return telemetry.span(`${caller.method} ${route}`, attributes, async (span) => {
      const tally: Tally = { attempts: 0, waitedMs: 0 };
      const told = () => ({ [ATTR.resendCount]: Math.max(0, tally.attempts - 1), [ATTR.rateLimitWaitMs]: Math.round(tally.waitedMs) });
      try {
        const res = await this.#send(caller, tally);
        span.setAttributes({ [ATTR.httpStatus]: res.status, ...told() });
        // OpenTelemetry's HTTP client conventions: a 4xx or 5xx fails the span, unless the caller takes it as an answer.
        if (res.status >= 400 && caller.expected?.(res) !== true) {
          span.setAttributes({ [ATTR.errorType]: String(res.status) });
          span.fail(`HTTP ${res.status}`);
        }
        return res;
      } catch (err) {
        // No answer (or none usable): the span fails with the error (telemetry records it); error.type is its stable code.
        span.setAttributes({
          ...told(),
          [ATTR.errorType]: err instanceof ObsyncError ? err.code : err instanceof Error ? err.name : 'unknown',
        });
        throw err;
      }
    });
  }

  async #send(caller: RequestInit, tally?: Tally): Promise<Response> {
    const { signal, release } = untilClosed(caller.signal, this.#closing.signal);
    const init = { ...caller, signal };
    if (tally) this.#tallies.set(init, tally);
    try {
      return await withRetries(this.#retries, init);
    } finally {
      release();
    }
  }

  async close(): Promise<void> {
    this.#closing.abort(new Error(`the connection to ${this.host} was closed`));
    await this.#dispatcher.close();
  }

  #waitReport(notice: WaitNotice): WaitReport {
    return { seconds: Math.ceil(notice.ms / 1000), host: this.host, reason: describeReason(notice.reason) };
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

  async #once(init: RequestInit, deadline: number, attempt: number): Promise<Response> {
    const tally = this.#tallies.get(init);
    const asked = tally ? performance.now() : 0;
    const slot = await this.#pacer.acquire(init.signal, deadline);
    if (tally) {
      tally.attempts += 1;
      tally.waitedMs += performance.now() - asked;
    }
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
    // An attempt never outlives the request's deadline. Made after the body, which may fail to
    // serialize: its timer must not outlive a request never sent.
    const { signal, timedOut, release } = requestSignal(init.signal, Math.max(1, Math.min(this.opts.timeoutMs, deadline - Date.now())));
    const started = performance.now();
    const slowEnded = watchSlow(this.opts.waits?.onSlow, init, this.host);
    const log = (outcome: Parameters<typeof logRequest>[3]) =>
      logRequest(this.opts.logger, { name: this.opts.name, host: this.host, prefix: this.#prefix }, { init, attempt, started }, outcome);
    let responded = false;
    // Checked again as undici writes it (see fence-at-send): what refused it then is this request's error.
    let refusedAtSend: { err: unknown } | undefined;
    const fence = write && this.opts.fence ? recordingRefusal(this.opts.fence, (err) => (refusedAtSend = { err })) : undefined;
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
      log({ status: res.statusCode, requestId: () => requestIdOf(res.headers, bytes) });
      return responseOf(res.statusCode, res.headers, bytes);
    } catch (err) {
      if (refusedAtSend) {
        // Never written: like a refusal before the send, it gives its slot back.
        this.#pacer.refund(slot);
        throw refusedAtSend.err;
      }
      if (err instanceof ResponseTooLarge) {
        log({ status: err.status, error: 'RESPONSE_TOO_LARGE' });
        throw tooLargeError(init, this.host, err);
      }
      if (!responded) this.opts.onResponse?.(init.method, 0);
      if (cancelsInFlight(init.signal)) {
        log({ status: 0, error: 'aborted' });
        throw init.signal?.reason instanceof Error ? init.signal.reason : new Error('aborted');
      }
      const failure = classifyFailure(err, timedOut());
      log({ status: 0, error: failure.code });
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

interface Tally {
  attempts: number;
  waitedMs: number;
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
