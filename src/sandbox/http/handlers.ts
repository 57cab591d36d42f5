/**
 * Per-variant request handling after the body is read: rate limit, auth, routing to the domains.
 * Order follows the real servers: self-hosted parses JSON, then rate-limits (before auth), then
 * authenticates (selfhosted-api §1, §2); hosted authenticates with Basic keys (hosted-api §1).
 */
import { timingSafeEqual } from 'node:crypto';
import type { ObservabilityDomain, PageQuery } from '../domain/contract.js';
import type { KeysDomain, PipesDomain } from '../domain/hosted-contract.js';
import { notRunningMessage, type ServiceDomain } from '../domain/service.js';
import { matchObservability } from './observability-routes.js';
import type { Persistable } from './persistence.js';
import { SELF_HOSTED_ROUTES } from './selfhosted-routes.js';
import type { FixedWindowLimiter, LimitDecision } from './rate-limit.js';
import { cannot, hosted429, hostedError, json, resultReply, text, type Reply } from './respond.js';

export interface Credentials {
  apiKey: string;
  keyId: string;
  keySecret: string;
  organizationId: string;
  serviceId: string;
}

export interface Domains {
  selfHosted: ObservabilityDomain;
  /** Further self-hosted teams by their API key (`SandboxOptions.teams`). */
  selfHostedTeams?: ReadonlyMap<string, ObservabilityDomain> | undefined;
  hosted: ObservabilityDomain;
  pipes?: PipesDomain | undefined;
  keys?: KeysDomain | undefined;
  service?: ServiceDomain | undefined;
}

export interface Incoming {
  method: string;
  path: string;
  query: PageQuery;
  authorization: string | undefined;
  ip: string;
  /** Parsed JSON, or undefined when there was no body. */
  body: unknown;
  invalidJson: boolean;
}

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function limitHeaders(d: LimitDecision): Record<string, string> {
  return { 'ratelimit-limit': String(d.limit), 'ratelimit-remaining': String(d.remaining), 'ratelimit-reset': String(d.resetSeconds) };
}

/** Text after the first exact `Bearer ` (selfhosted-api §2). */
export function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const i = header.indexOf('Bearer ');
  return i < 0 ? undefined : header.slice(i + 'Bearer '.length);
}

/** Every store, by the name of its `--data` file. */
export function persistables(domains: Domains): Record<string, Persistable | undefined> {
  const teams = [...(domains.selfHostedTeams?.values() ?? [])].map((d, i) => [`observability-selfhosted-team-${i + 1}`, d] as const);
  return {
    'observability-selfhosted': domains.selfHosted,
    ...Object.fromEntries(teams),
    'observability-hosted': domains.hosted,
    pipes: domains.pipes,
    keys: domains.keys,
    service: domains.service,
  };
}

/** The team whose key the caller presented, if any. */
function selfHostedTeam(token: string | undefined, domains: Domains, creds: Credentials): ObservabilityDomain | undefined {
  if (token === undefined) return undefined;
  if (same(token, creds.apiKey)) return domains.selfHosted;
  for (const [key, domain] of domains.selfHostedTeams ?? []) if (same(token, key)) return domain;
  return undefined;
}

const KNOWN_PREFIXES: ReadonlySet<string> = new Set([
  'dashboards',
  'alerts',
  'sources',
  'webhooks',
  'saved-searches',
  'connections',
  'charts',
  'search',
  'team',
]);

export function handleSelfHosted(req: Incoming, domains: Domains, creds: Credentials, limiter: FixedWindowLimiter): Reply {
  if (req.invalidJson) return json(400, { message: 'Invalid JSON payload' });
  const token = bearerToken(req.authorization);
  // Express routes case-insensitively and takes a trailing slash; hex ids match in any case (Mongo casts them).
  const sub = req.path
    .slice('/api/v2'.length)
    .toLowerCase()
    .replace(/(.)\/$/, '$1');
  const team = selfHostedTeam(token, domains, creds);
  if (sub === '' || sub === '/') return team ? json(200, { version: 'v2', user: team.whoami() }) : text(401, 'Unauthorized');
  // Unknown prefixes fall through Express's v2 router: 404 page, no limit, no auth (selfhosted-api §1.0).
  const prefix = sub.split('/')[1] ?? '';
  const rbac = domains.selfHosted.edition === 'enterprise';
  if (!KNOWN_PREFIXES.has(prefix) && !(rbac && prefix === 'roles')) return cannot(req.method, req.path);
  let headers: Record<string, string> = {};
  if (limiter.enabled) {
    const decision = limiter.hit(token ?? req.ip);
    headers = limitHeaders(decision);
    if (!decision.allowed)
      return text(429, 'Too many requests, please try again later.', 'text/html; charset=utf-8', {
        ...headers,
        'retry-after': String(decision.resetSeconds),
      });
  }
  if (!team) return text(401, 'Unauthorized', undefined, headers);
  const match = matchObservability(req.method, sub, SELF_HOSTED_ROUTES);
  // Routes of ClickStack with RBAC fall through the open-source server's routers like unknown ones.
  if (!match || (match.route.edition === 'enterprise' && team.edition !== 'enterprise'))
    return withHeaders(cannot(req.method, req.path), headers);
  const outcome = match.route.handle({ domain: team, params: match.params, query: req.query, body: req.body, caller: 'self-hosted' });
  const reply = resultReply('self-hosted', outcome.result, outcome);
  reply.headers = { ...headers, ...reply.headers };
  return reply;
}

function withHeaders(reply: Reply, headers: Record<string, string>): Reply {
  reply.headers = { ...headers, ...reply.headers };
  return reply;
}

function basic(header: string | undefined): { keyId: string; secret: string } | undefined {
  const m = /^Basic (.+)$/.exec(header ?? '');
  if (!m?.[1]) return undefined;
  const decoded = Buffer.from(m[1], 'base64').toString('utf8');
  const i = decoded.indexOf(':');
  return i < 0 ? undefined : { keyId: decoded.slice(0, i), secret: decoded.slice(i + 1) };
}

const HOSTED = /^\/v1\/organizations\/([^/]+)(\/.*)?$/;
const SERVICE = /^\/services\/([^/]+)\/([^/]+)(\/.*)?$/;
const KEYS = /^\/keys(?:\/([^/]+))?$/;
const SERVICE_ITSELF = /^\/services\/([^/]+)(?:\/(state))?$/;

/** The key a hosted request authenticated as (its resource id), or the refusal to send. */
function authenticateHosted(req: Incoming, domains: Domains, creds: Credentials): { id: string } | Reply {
  const auth = basic(req.authorization);
  if (auth === undefined) return hostedError(401, 'Invalid credentials');
  if (!domains.keys)
    return same(auth.keyId, creds.keyId) && same(auth.secret, creds.keySecret) ? { id: '' } : hostedError(401, 'Invalid credentials');
  const result = domains.keys.authenticate(auth.keyId, auth.secret, req.ip);
  return result.ok ? { id: result.id } : hostedError(result.status, result.message);
}

export function handleHosted(req: Incoming, domains: Domains, creds: Credentials, limiter: FixedWindowLimiter): Reply {
  if (limiter.enabled) {
    const decision = limiter.hit(basic(req.authorization)?.keyId ?? req.ip);
    if (!decision.allowed) {
      return hosted429(decision.resetSeconds);
    }
  }
  const caller = authenticateHosted(req, domains, creds);
  if (!('id' in caller)) return caller;
  if (req.invalidJson) return hostedError(400, 'Invalid JSON payload');
  const m = HOSTED.exec(req.path);
  if (!m) return cannot(req.method, req.path);
  if (m[1] !== creds.organizationId) return hostedError(404, `Organization ${m[1] ?? ''} not found`);
  const rest = m[2] ?? '';
  const keys = KEYS.exec(rest);
  if (keys) return keysRoute(req, keys[1], caller.id, domains.keys);
  if (rest === '/roles' && req.method === 'GET' && domains.keys) return resultReply('hosted', domains.keys.roles());
  const own = SERVICE_ITSELF.exec(rest);
  if (own)
    return own[1] === creds.serviceId ? serviceRoute(req, own[2], domains.service) : hostedError(404, `Service ${own[1] ?? ''} not found`);
  const s = SERVICE.exec(rest);
  if (!s) return cannot(req.method, req.path);
  if (s[1] !== creds.serviceId) return hostedError(404, `Service ${s[1] ?? ''} not found`);
  const segment = s[2] ?? '';
  // The provider creates pipes with POST …/clickpipes/ (internal/api/clickpipe_test.go, testClickPipesPath).
  const below = segment === 'clickpipes' && s[3] === '/' ? '' : (s[3] ?? '');
  if (segment === 'observability' || segment === 'clickstack') {
    const match = matchObservability(req.method, below);
    if (!match) return cannot(req.method, req.path);
    const outcome = match.route.handle({
      domain: domains.hosted,
      params: match.params,
      query: req.query,
      body: req.body,
      caller: 'hosted',
    });
    return resultReply('hosted', outcome.result, { ...(outcome.empty ? { empty: true } : {}) });
  }
  const pipesRoute =
    (segment === 'pipes' || segment === 'clickpipes') && PIPE.test(below)
      ? pipeRoute
      : segment === 'clickpipesCdcScaling' && below === ''
        ? cdcScalingRoute
        : (segment === 'clickpipesSshKeyResources' || segment === 'pipesSshKeyResources') && SSH_KEY.test(below)
          ? sshKeyRoute
          : null;
  if (!pipesRoute) return cannot(req.method, req.path);
  domains.service?.tick();
  const blocking = domains.service?.blockingState();
  if (blocking) return hostedError(424, notRunningMessage(blocking));
  return pipesRoute(req, below, domains.pipes);
}

/** `GET /services/{id}` and `PATCH /services/{id}/state`. */
function serviceRoute(req: Incoming, sub: string | undefined, service: ServiceDomain | undefined): Reply {
  if (!service) return hostedError(501, 'the service is not available in this sandbox');
  service.tick();
  if (sub === undefined && req.method === 'GET') return resultReply('hosted', service.get());
  if (sub === 'state' && req.method === 'PATCH') return resultReply('hosted', service.setState(req.body));
  return cannot(req.method, req.path);
}

const PIPE = /^(?:\/([^/]+)(?:\/(settings|scaling|state))?)?$/;

function pipeRoute(req: Incoming, below: string, pipes: PipesDomain | undefined): Reply {
  if (!pipes) return hostedError(501, 'pipes are not available in this sandbox');
  const m = PIPE.exec(below);
  if (!m) return cannot(req.method, req.path);
  pipes.tick();
  const [, id, sub] = m;
  const call = `${req.method} ${id === undefined ? '' : ':id'}${sub ? `/${sub}` : ''}`;
  const pid = id ?? '';
  // `context` is a route of its own (2026-09-05 spec), not a pipe id: pipe ids are UUIDs.
  if (id === 'context' && sub === undefined)
    return req.method === 'GET' ? resultReply('hosted', pipes.context()) : cannot(req.method, req.path);
  switch (call) {
    case 'GET ':
      return resultReply('hosted', pipes.list());
    case 'POST ':
      return resultReply('hosted', pipes.create(req.body));
    case 'GET :id':
      return resultReply('hosted', pipes.get(pid));
    case 'DELETE :id':
      return resultReply('hosted', pipes.delete(pid), { empty: true });
    case 'PATCH :id':
      return resultReply('hosted', pipes.patch(pid, req.body));
    case 'GET :id/settings':
      return resultReply('hosted', pipes.getSettings(pid));
    case 'PUT :id/settings':
      return resultReply('hosted', pipes.putSettings(pid, req.body));
    case 'PATCH :id/scaling':
      return resultReply('hosted', pipes.patchScaling(pid, req.body));
    case 'PATCH :id/state':
      return resultReply('hosted', pipes.setState(pid, req.body));
    default:
      return cannot(req.method, req.path);
  }
}

function cdcScalingRoute(req: Incoming, _below: string, pipes: PipesDomain | undefined): Reply {
  if (!pipes) return hostedError(501, 'pipes are not available in this sandbox');
  pipes.tick();
  if (req.method === 'GET') return resultReply('hosted', pipes.getCdcScaling());
  if (req.method === 'PATCH') return resultReply('hosted', pipes.patchCdcScaling(req.body));
  return cannot(req.method, req.path);
}

const SSH_KEY = /^(?:\/([^/]+)(\/validate)?)?$/;

/** `…/clickpipesSshKeyResources[/{id}[/validate]]` (terraform-provider-clickhouse internal/api/clickpipe_ssh_key.go). */
function sshKeyRoute(req: Incoming, below: string, pipes: PipesDomain | undefined): Reply {
  if (!pipes) return hostedError(501, 'pipes are not available in this sandbox');
  const [, rawId, validate] = SSH_KEY.exec(below) ?? [];
  const id = rawId === undefined ? undefined : decodeOr(rawId);
  const keys = pipes.sshKeys;
  if (id === undefined) {
    if (req.method === 'GET') return resultReply('hosted', keys.list());
    if (req.method === 'POST') return resultReply('hosted', keys.create(req.body));
  } else if (validate !== undefined) {
    if (req.method === 'POST') return resultReply('hosted', keys.validate(id));
  } else if (req.method === 'GET') return resultReply('hosted', keys.get(id));
  else if (req.method === 'DELETE') return resultReply('hosted', keys.delete(id), { empty: true });
  return cannot(req.method, req.path);
}

/** A path segment decoded, or as sent when its escapes are malformed (the domain then answers 404). */
function decodeOr(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function keysRoute(req: Incoming, id: string | undefined, callerId: string, keys: KeysDomain | undefined): Reply {
  if (!keys) return hostedError(501, 'API keys are not available in this sandbox');
  const call = `${req.method} ${id === undefined ? '' : ':id'}`;
  const kid = id === undefined ? '' : decodeOr(id);
  switch (call) {
    case 'GET ':
      return resultReply('hosted', keys.list());
    case 'POST ':
      return resultReply('hosted', keys.create(req.body));
    case 'GET :id':
      return resultReply('hosted', keys.get(kid));
    case 'PATCH :id':
      return resultReply('hosted', keys.patch(kid, req.body));
    case 'DELETE :id':
      return resultReply('hosted', keys.delete(kid, callerId), { empty: true });
    default:
      return cannot(req.method, req.path);
  }
}
