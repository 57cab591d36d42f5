/** The transport's contract: its options, a request and its response, and what it reports while it waits. */
import type { Telemetry } from '../telemetry/api.js';
import type { WriteFence } from '../core/fence.js';
import type { Logger } from '../log/logger.js';
import type { ProxySettings } from './network.js';

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
  /**
   * Checked immediately before every write is sent (every attempt): the run's writer lease. None:
   * writes are not fenced.
   */
  fence?: WriteFence;
  /** obsync's telemetry: a client span per request (route template, status, retries, rate-limit wait). Absent or off: none. */
  telemetry?: Telemetry;
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
  /** An error answer the caller takes as a result (a 404 that means absent): its span is not marked failed. */
  expected?: ((res: Response) => boolean) | undefined;
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

/** GET, PUT and DELETE are; a POST never is; a PATCH when the caller says so. */
export function isIdempotent(init: RequestInit): boolean {
  return init.idempotent ?? (init.method === 'GET' || init.method === 'PUT' || init.method === 'DELETE');
}

/** `?name=value&...` of a request's query, or '' without one. */
export function queryString(query: Record<string, string | number> | undefined): string {
  if (!query) return '';
  const params = new URLSearchParams(Object.fromEntries(Object.entries(query).map(([k, v]) => [k, String(v)])));
  return `?${params.toString()}`;
}
