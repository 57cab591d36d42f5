/**
 * A ServicePort straight over the sandbox's observability domain, without sockets: the real
 * client (src/remote, every kind's routes, envelopes, error mapping) with the sandbox's own
 * request handling in place of HTTP. For fast engine tests (property tests run hundreds of
 * plans); end-to-end tests use the HTTP server instead.
 */
import type { RequestStats, ServicePort } from '../core/ports.js';
import type { Requester } from '../remote/api.js';
import { servicePortOver } from '../remote/index.js';
import { isRead } from '../remote/read-only.js';
import { responseOf } from '../remote/response.js';
import type { RequestInit, Response } from '../remote/transport-types.js';
import { SANDBOX_DEFAULTS } from './defaults.js';
import type { CallerVariant, ObservabilityDomain } from './domain/contract.js';
import { handleHosted, handleSelfHosted, type Credentials, type Domains } from './http/handlers.js';
import { FixedWindowLimiter } from './http/rate-limit.js';
import { conditionalReply } from './http/conditional.js';

const CREDENTIALS: Credentials = { ...SANDBOX_DEFAULTS };
const PATHS = { observability: 'observability', pipes: 'pipes' };

export function inProcessPort(domain: ObservabilityDomain, variant: CallerVariant = 'self-hosted', target = 'in-process'): ServicePort {
  const requester = inProcessRequester({ selfHosted: domain, hosted: domain }, variant);
  return variant === 'hosted'
    ? servicePortOver(requester, {
        name: target,
        variant,
        keyId: CREDENTIALS.keyId,
        organizationId: CREDENTIALS.organizationId,
        serviceId: CREDENTIALS.serviceId,
        paths: PATHS,
      })
    : servicePortOver(requester, { name: target, variant });
}

function inProcessRequester(domains: Domains, variant: CallerVariant): Requester {
  const stats: RequestStats = { requests: 0, writes: 0, retries: 0, throttled: 0 };
  const noLimit = new FixedWindowLimiter(null);
  const authorization =
    variant === 'hosted'
      ? `Basic ${Buffer.from(`${CREDENTIALS.keyId}:${CREDENTIALS.keySecret}`).toString('base64')}`
      : `Bearer ${CREDENTIALS.apiKey}`;
  return {
    stats,
    close: () => Promise.resolve(),
    request(init: RequestInit): Promise<Response> {
      stats.requests += 1;
      if (!isRead(init)) stats.writes += 1;
      const query: Record<string, string> = {};
      for (const [k, v] of Object.entries(init.query ?? {})) query[k] = String(v);
      // Through JSON, as over HTTP: the domain never holds the caller's objects.
      const body: unknown = init.body === undefined ? undefined : JSON.parse(JSON.stringify(init.body));
      const incoming = { method: init.method, path: init.path, query, authorization, ip: '127.0.0.1', body, invalidJson: false };
      const reply =
        variant === 'hosted'
          ? handleHosted(incoming, domains, CREDENTIALS, noLimit)
          : conditionalReply(init.method, init.ifNoneMatch, handleSelfHosted(incoming, domains, CREDENTIALS, noLimit));
      return Promise.resolve(responseOf(reply.status, reply.headers, Buffer.from(reply.body)));
    },
  };
}
