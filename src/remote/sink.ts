/**
 * HTTP to a notification sink (a Slack or generic webhook): one POST of JSON, answered by its
 * status and the wait the sink asks for. The URL is a secret (a Slack webhook URL is its own
 * credential): it is registered with the scrubber, and no error carries it — only the network
 * code (ECONNREFUSED, TIMEOUT…). Every payload passes the scrubber as it is sent. Through the target's
 * proxy settings, like the service's requests.
 */
import type { Dispatcher } from 'undici';
import { registerSecret, scrubDeep } from '../core/scrub.js';
import { classifyFailure, createDispatcher, type ProxySettings } from './network.js';
import { serverWait } from './pacing.js';

export interface SinkResponse {
  status: number;
  /** Retry-After (or a rate-limit reset) of a 429 or 503, when the sink sent one. */
  retryAfterMs?: number;
}

/** A POST that got no response: only its code, never the URL. */
export class SinkRequestError extends Error {
  constructor(readonly code: string) {
    super(`no response from the sink (${code})`);
  }
}

export interface SinkPosterOptions {
  proxy?: ProxySettings | undefined;
  /** Per attempt (default 10 s). */
  timeoutMs?: number;
}

export function sinkPoster(url: string, opts: SinkPosterOptions = {}) {
  registerSecret(url);
  const parsed = new URL(url);
  // The path and query of a webhook URL are its secret part (the host is not).
  registerSecret(`${parsed.pathname}${parsed.search}`);
  const dispatcher: Dispatcher = createDispatcher(parsed.origin, 1, opts.proxy);
  const timeoutMs = opts.timeoutMs ?? 10_000;
  return {
    async post(body: unknown): Promise<SinkResponse> {
      const timeout = AbortSignal.timeout(timeoutMs);
      try {
        const res = await dispatcher.request({
          origin: parsed.origin,
          path: `${parsed.pathname}${parsed.search}`,
          method: 'POST',
          headers: { 'content-type': 'application/json; charset=utf-8', 'user-agent': 'obsync' },
          // The one scrubber again at the door: whatever built the payload, and secrets learnt since the event was made.
          body: JSON.stringify(scrubDeep(body)),
          signal: timeout,
        });
        // The answer's body is not read (a sink's error page may be large): only its status matters.
        await res.body.dump({ limit: 64 * 1024 });
        const wait = res.statusCode === 429 || res.statusCode === 503 ? serverWait(res.headers, Date.now()) : null;
        return { status: res.statusCode, ...(wait ? { retryAfterMs: wait.ms } : {}) };
      } catch (err) {
        throw new SinkRequestError(classifyFailure(err, timeout.aborted).code);
      }
    },
    /** Stops at once: a notification still under way is given up (shutdown). */
    close: () => dispatcher.destroy(),
  };
}
