/** The sandbox's node:http server: body limits, faults, variant dispatch, request log, persistence. */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Faults } from './faults.js';
import { handleHosted, handleSelfHosted, persistables, type Credentials, type Domains, type Incoming } from './handlers.js';
import type { Persistence } from './persistence.js';
import type { FixedWindowLimiter } from './rate-limit.js';
import { conditionalReply } from './conditional.js';
import { hosted429, hostedError, json, text, write, type Reply, type Variant } from './respond.js';
import { readBoundedBody } from './body.js';

export interface LoggedRequest {
  method: string;
  path: string;
  /** Arrival time (epoch ms). */
  at: number;
  /** The query string with its `?`, or ''. */
  search: string;
  /** 0 when the connection was dropped without a response. */
  status: number;
  ms: number;
  variant: Variant | 'other';
}

export interface ServerParts {
  domains: Domains;
  credentials: Credentials;
  limiters: { selfHosted: FixedWindowLimiter; hosted: FixedWindowLimiter };
  faults: Faults;
  persistence: Persistence;
  log: LoggedRequest[];
}

const MAX_BODY = 32 * 1024 * 1024;
const PIPES_PATH = /^\/v1\/organizations\/[^/]+\/services\/[^/]+\/(pipes|clickpipes|clickpipesCdcScaling)(\/|$)/;

export function createSandboxServer(parts: ServerParts): Server {
  return createServer((req, res) => {
    handle(req, res, parts).catch((err: unknown) => {
      // A bug must not take the sandbox down: answer 500 in the variant's shape when still possible.
      const hosted = (req.url ?? '').startsWith('/v1/');
      if (res.headersSent || req.socket.destroyed) return;
      write(
        res,
        hosted ? hostedError(500, err instanceof Error ? err.message : String(err)) : json(500, { message: 'Something went wrong :(' }),
      );
    });
  });
}

async function handle(req: IncomingMessage, res: ServerResponse, parts: ServerParts): Promise<void> {
  const t0 = performance.now();
  const at = Date.now();
  const url = new URL(req.url ?? '/', 'http://sandbox');
  const method = req.method ?? 'GET';
  const variant: Variant | 'other' = url.pathname.toLowerCase().startsWith('/api/v2')
    ? 'self-hosted'
    : url.pathname.startsWith('/v1/')
      ? 'hosted'
      : 'other';
  const log = (status: number) =>
    parts.log.push({ method, at, path: url.pathname, search: url.search, status, ms: Math.round(performance.now() - t0), variant });
  const raw = (await readBoundedBody(req, MAX_BODY))?.toString('utf8') ?? null;
  if (raw === null) {
    const reply = variant === 'hosted' ? hostedError(413, 'Request body too large') : json(413, { message: 'Something went wrong :(' });
    write(res, reply);
    log(413);
    return;
  }
  if (variant === 'other') {
    write(res, text(404, 'obsync sandbox: the self-hosted API is under /api/v2, the hosted API under /v1/organizations/{org}/...\n'));
    log(404);
    return;
  }
  if (parts.faults.latencyMs > 0) await sleep(parts.faults.latencyMs);
  const fault = parts.faults.decide(PIPES_PATH.test(url.pathname));
  if (fault === 'resetBefore') {
    req.socket.destroy();
    log(0);
    return;
  }
  const early = faultReply(fault, variant);
  if (early) {
    write(res, early);
    log(early.status);
    return;
  }
  // The service idles and stays idle until a client wakes it (PATCH …/state {command: awake}).
  if (fault === 'idle424') parts.domains.service?.idle();
  const incoming = toIncoming(req, url, method, raw);
  const handled =
    variant === 'hosted'
      ? handleHosted(incoming, parts.domains, parts.credentials, parts.limiters.hosted)
      : handleSelfHosted(incoming, parts.domains, parts.credentials, parts.limiters.selfHosted);
  // A list that lies by omission (fault listOmit), before the self-hosted ETag is taken of it.
  const answered = method === 'GET' && handled.status === 200 ? { ...handled, body: parts.faults.thinList(handled.body) } : handled;
  const reply = variant === 'hosted' ? answered : conditionalReply(method, oneHeader(req, 'if-none-match'), answered);
  parts.persistence.save(persistables(parts.domains));
  if (fault === 'resetAfter') {
    // The write has committed; the client never hears about it.
    req.socket.destroy();
    log(0);
    return;
  }
  write(res, reply);
  log(reply.status);
}

function faultReply(fault: string, variant: Variant): Reply | null {
  if (fault === 'burst429') {
    return variant === 'hosted'
      ? hosted429(1)
      : text(429, 'Too many requests, please try again later.', 'text/html; charset=utf-8', {
          'retry-after': '1',
          'ratelimit-limit': '100',
          'ratelimit-remaining': '0',
          'ratelimit-reset': '1',
        });
  }
  if (fault === 'error5xx')
    return variant === 'hosted' ? hostedError(503, 'Service temporarily unavailable') : json(503, { message: 'Service Unavailable' });
  return null;
}

function toIncoming(req: IncomingMessage, url: URL, method: string, raw: string): Incoming {
  let body: unknown;
  let invalidJson = false;
  if (raw.trim() !== '') {
    try {
      body = JSON.parse(raw) as unknown;
    } catch {
      invalidJson = true;
    }
  }
  const query: Record<string, string> = {};
  for (const [k, v] of url.searchParams) query[k] = v;
  return {
    method,
    path: url.pathname,
    query,
    authorization: req.headers.authorization,
    ip: req.socket.remoteAddress ?? 'unknown',
    body,
    invalidJson,
  };
}

function oneHeader(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}
