/** What a request tells while and after it runs: a progress report when it is slow, and its line in the request log. */
import type { Logger } from '../log/logger.js';
import { serverFields, statusField } from '../log/fields.js';
import { type RequestInit, SLOW_REQUEST_MS, type WaitOptions } from './transport-types.js';

/** Reports the request once it has waited SLOW_REQUEST_MS for its answer; returns what ends the report. */
export function watchSlow(onSlow: WaitOptions['onSlow'], init: RequestInit, host: string): () => void {
  if (!onSlow) return () => {};
  const startedAt = Date.now();
  let ended: (() => void) | undefined;
  const timer = setTimeout(() => (ended = onSlow({ method: init.method, path: init.path, host, startedAt })), SLOW_REQUEST_MS);
  timer.unref();
  return () => {
    clearTimeout(timer);
    ended?.();
  };
}

/**
 * The request log (OBSYNC_LOG_LEVEL=debug): one line per attempt with method, path (no query),
 * status, duration, attempt and the server's request id; never a header or a body.
 */
export function logRequest(
  logger: Logger | undefined,
  where: { name: string | undefined; host: string; prefix: string },
  request: { init: RequestInit; attempt: number; started: number },
  outcome: { status: number; requestId?: () => string | undefined; error?: string },
): void {
  if (!logger?.isLevelEnabled('debug')) return;
  const { init, attempt, started } = request;
  // Found only for this line: in a list's body it means scanning the whole body.
  const requestId = outcome.requestId?.();
  // OpenTelemetry's HTTP client conventions (src/log/fields.ts); no query string (docs/daemon-visibility.md).
  const path = init.path.replace(/\?.*$/s, '');
  logger.debug(
    {
      ...(where.name === undefined ? {} : { target: where.name }),
      'http.request.method': init.method,
      ...serverFields(where.host),
      'url.path': where.prefix + path,
      ...statusField(outcome.status),
      ...(attempt > 1 ? { 'http.request.resend_count': attempt - 1 } : {}),
      ...(outcome.error === undefined ? {} : { 'error.type': outcome.error }),
      durationMs: Math.round(performance.now() - started),
      ...(requestId === undefined ? {} : { requestId }),
    },
    'request',
  );
}
