/**
 * HTTP to a notification sink (a Slack or generic webhook, an Alertmanager): one POST of JSON,
 * answered by its status and the wait the sink asks for. The URL is a secret (a Slack webhook URL
 * is its own credential): it is registered with the scrubber, and no error carries it — only the
 * network code (ECONNREFUSED, TIMEOUT…). So are the custom headers' values and the signing
 * secret (each a `Secret`: never printed). With a signing secret every attempt is signed in the
 * Standard Webhooks form (./webhook-signature.ts). Every payload passes the scrubber as it is sent.
 * Through the target's proxy settings, like the service's requests.
 */
import type { Dispatcher } from 'undici';
import { assignOwn, setOwn } from '../core/json.js';
import { registerSecret, scrubDeep } from '../core/scrub.js';
import { Secret } from '../core/secret.js';
import type { SinkMessage } from '../notify/notifier.js';
import { classifyFailure, createDispatcher, type ProxySettings } from './network.js';
import { serverWait } from './pacing.js';
import { SIGNING_SECRET_PREFIX, signatureHeaders, signingKey } from './webhook-signature.js';

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
  /** Added to the URL's path (an Alertmanager's base URL + `api/v2/alerts`). */
  path?: string | undefined;
  /** Sent with every POST; the values are secrets. */
  headers?: Readonly<Record<string, string>> | undefined;
  /** `whsec_…`: every POST is signed (Standard Webhooks). */
  signingSecret?: string | undefined;
  now?: () => number;
}

export function sinkPoster(url: string, opts: SinkPosterOptions = {}) {
  registerSecret(url);
  const parsed = new URL(url);
  // The path and query of a webhook URL are its secret part (the host is not).
  registerSecret(`${parsed.pathname}${parsed.search}`);
  const path = opts.path ? `${parsed.pathname.replace(/\/+$/, '')}/${opts.path}${parsed.search}` : `${parsed.pathname}${parsed.search}`;
  const custom = Object.entries(opts.headers ?? {}).map(([name, value]) => [name, new Secret(value)] as const);
  const signing = opts.signingSecret === undefined ? undefined : secretKey(opts.signingSecret);
  const dispatcher: Dispatcher = createDispatcher(parsed.origin, 1, opts.proxy);
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const now = opts.now ?? Date.now;
  return {
    async post(message: SinkMessage): Promise<SinkResponse> {
      const timeout = AbortSignal.timeout(timeoutMs);
      // The one scrubber again at the door (whatever built the payload, and secrets learnt since the event was made), before signing.
      const body = JSON.stringify(scrubDeep(message.body));
      const headers: Record<string, string> = { 'content-type': message.contentType, 'user-agent': 'obsync' };
      for (const [name, value] of custom) setOwn(headers, name.toLowerCase(), value.reveal());
      if (signing) assignOwn(headers, signatureHeaders(signing.reveal(), message.id, Math.floor(now() / 1000), body));
      try {
        const res = await dispatcher.request({ origin: parsed.origin, path, method: 'POST', headers, body, signal: timeout });
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

/** The signing key, held so that only signing reveals it; the secret and its base64 part are both masked wherever they appear. */
function secretKey(secret: string): { reveal: () => Buffer } {
  const held = new Secret(secret);
  if (secret.startsWith(SIGNING_SECRET_PREFIX)) registerSecret(secret.slice(SIGNING_SECRET_PREFIX.length));
  return { reveal: () => signingKey(held.reveal()) };
}
