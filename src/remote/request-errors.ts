/**
 * How a failed request reads as an error: what the network said (refused, unknown host, proxy,
 * TLS, no response), a wait or a body past its bound, and a write whose outcome is unknown. Each
 * error names the request and says what to do.
 */
import { AmbiguousWriteError, ApiError, requestLabel } from '../core/errors.js';
import type { NetworkFailure } from './network.js';
import type { WaitReason } from './pacing.js';
import type { ResponseTooLarge } from './response.js';
import { isIdempotent, type RequestInit } from './transport-types.js';

/** Connection failures that mean the request was never sent. */
export const NOT_SENT = new Set(['ECONNREFUSED', 'UND_ERR_CONNECT_TIMEOUT', 'ENOTFOUND', 'EAI_AGAIN']);

export class RetryableNetworkError extends Error {
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
        hint:
          'check HTTPS_PROXY / HTTP_PROXY (and the proxy credentials in them) and that the proxy runs and allows CONNECT to this host, ' +
          'or list the service in NO_PROXY; the service itself was not reached',
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
export function tlsError(init: RequestInit, origin: string, host: string, failure: NetworkFailure, cause: unknown): ApiError {
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
      ? `${init.method} ${init.path}: TLS certificate of ${origin} not trusted (${failure.code}: ` +
        `${failure.detail}); the request was not sent`
      : `${init.method} ${init.path}: TLS handshake with ${origin} failed (${failure.code}); the request was not sent`,
    hint: certificate
      ? 'if the service (or a TLS-inspecting proxy) uses a private or corporate CA, ' +
        'set NODE_EXTRA_CA_CERTS to a PEM file holding that CA certificate (read when obsync starts)'
      : 'check the target baseUrl: https:// to a port that speaks plain HTTP fails this way',
    cause,
  });
}

/** A 429 whose wait is longer than obsync waits at most: failed rather than hanging a run for a day. */
export function waitTooLongError(init: RequestInit, host: string, asked: { ms: number; header: string }, maxWaitMs: number): ApiError {
  return new ApiError({
    method: init.method,
    path: init.path,
    host,
    status: 429,
    retryable: true,
    code: 'WAIT_TOO_LONG',
    message:
      `${init.method} ${init.path}: ${host} answered 429 and asked to wait ${formatSeconds(asked.ms)} (${asked.header}), ` +
      `longer than the ${formatSeconds(maxWaitMs)} obsync waits at most`,
    hint: 'try again later, or raise maxWaitSeconds on the target in obsync.yaml',
  });
}

/** A further wait would pass the request's deadline. */
export function deadlineError(init: RequestInit, host: string, wait: { ms: number; reason: WaitReason }, deadlineMs: number): ApiError {
  return new ApiError({
    method: init.method,
    path: init.path,
    host,
    status: 0,
    retryable: true,
    code: 'DEADLINE',
    message:
      `${init.method} ${init.path}: gave up — a further wait of ${formatSeconds(wait.ms)} (${describeReason(wait.reason)}) ` +
      `would pass the ${formatSeconds(deadlineMs)} a request may take at most`,
    hint: `the service at ${host} is throttling or failing; try again later, or raise deadlineSeconds on the target in obsync.yaml`,
  });
}

/**
 * A body past maxResponseMiB. Not retried: the same request gets the same answer. A write's
 * outcome is then unknown (it was received), so it is resolved like a lost response.
 */
export function tooLargeError(init: RequestInit, host: string, err: ResponseTooLarge): ApiError {
  const mib = formatMiB(err.cap);
  const size = err.announced === undefined ? `more than ${mib}` : `${formatMiB(err.announced)} (Content-Length)`;
  const facts = {
    method: init.method,
    path: init.path,
    host,
    status: err.status,
    retryable: false,
    code: 'RESPONSE_TOO_LARGE',
    hint:
      'if the service really holds that much, raise maxResponseMiB on the target in obsync.yaml ' +
      '(mind the memory limit of the container: a parsed body takes several times its size); otherwise check the target baseUrl',
    cause: err,
  };
  const what = `${requestLabel(facts)}: the response is ${size}, larger than the ${mib} obsync reads (maxResponseMiB); reading stopped`;
  const idempotent = isIdempotent(init);
  if (!idempotent) return new AmbiguousWriteError({ ...facts, message: `${what}; the write was received, its outcome is unknown` });
  return new ApiError({ ...facts, message: what });
}

export function describeReason(reason: WaitReason): string {
  if (reason.kind === 'server') return `the server asked: ${reason.header}`;
  return `rate limit of ${reason.limit} requests per ${reason.windowMs / 1000} s`;
}

function formatMiB(bytes: number): string {
  const mib = bytes / (1024 * 1024);
  return `${Number.isInteger(mib) ? mib : mib.toFixed(1)} MiB`;
}

function formatSeconds(ms: number): string {
  return `${Math.ceil(ms / 1000)} s`;
}
