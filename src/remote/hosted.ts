/**
 * The hosted variant (hosted-api §1-4): `/v1/organizations/{org}/services/{svc}/{observability}/...`,
 * `.../{pipes}/...`, `/v1/organizations/{org}/keys`; HTTP Basic; `{status, requestId, result}`
 * envelopes.
 */
import { ApiError } from '../core/errors.js';
import type { CollectionPort, KeyCreateRequest, KeysPort } from '../core/ports.js';
import { wireApiKey, wireKeyCreated, type JsonObject } from '../core/wire.js';
import type { Logger } from '../log/logger.js';
import type { Api, Envelope } from './api.js';
import { serviceWaker } from './hosted-wake.js';
import { apiPath, below } from './paths.js';
import type { RequestInit, Response } from './transport.js';

/** What locates a hosted service (a target, or the in-process sandbox). */
export interface HostedLocation {
  organizationId: string;
  serviceId: string;
  /** Path segments under `/services/{serviceId}/`; real deployments spell them differently. */
  paths: { observability: string; pipes: string };
}

/**
 * The hosted envelope. A 404 whose body is not JSON is the gateway's "Cannot GET" page for a
 * path it does not serve (a wrong path segment or baseUrl), never a deleted object
 * (terraform-provider clickstack client, errRouteNotFound): its error names the setting to check.
 */
export function hostedEnvelope(paths: HostedLocation['paths']): Envelope {
  return {
    unwrap: (body) => (typeof body === 'object' && body !== null && 'result' in body ? body.result : body),
    listKey: 'result',
    total: () => undefined,
    describe(res: Response) {
      const body = res.body as { error?: unknown; message?: unknown; requestId?: unknown } | undefined;
      const message =
        typeof body?.error === 'string' ? body.error : typeof body?.message === 'string' ? body.message : res.text.slice(0, 300);
      return { message, ...(typeof body?.requestId === 'string' ? { requestId: body.requestId } : {}) };
    },
    unrouted: (init, res) => (typeof res.body === 'object' && res.body !== null ? undefined : unroutedError(init, res, paths)),
  };
}

function unroutedError(init: RequestInit, res: Response, paths: HostedLocation['paths']): ApiError {
  const segments = init.path.split('/');
  const setting = segments.includes(paths.pipes) ? 'pipes' : segments.includes(paths.observability) ? 'observability' : undefined;
  const real = setting === 'pipes' ? 'clickpipes' : 'clickstack';
  const hint = setting
    ? `check the target's paths.${setting} (now '${paths[setting]}'; ClickHouse Cloud serves '${real}') and its baseUrl (the API origin, e.g. https://api.clickhouse.cloud, without /v1)`
    : "check the target's baseUrl (the API origin, e.g. https://api.clickhouse.cloud, without /v1)";
  return new ApiError({
    method: init.method,
    path: init.path,
    status: 404,
    retryable: false,
    bodyExcerpt: res.text,
    code: 'API_ROUTE',
    message: `${init.method} ${init.path}: the service has no such route (an HTTP 404 page, not an API answer)${setting ? `; paths.${setting} is probably wrong` : ''}`,
    hint,
  });
}

function orgPath(at: HostedLocation): string {
  return apiPath('v1', 'organizations', at.organizationId);
}

function servicePath(at: HostedLocation): string {
  return below(orgPath(at), 'services', at.serviceId);
}

export function hostedRoots(at: HostedLocation): Record<'observability' | 'pipes', string> {
  const service = servicePath(at);
  return { observability: below(service, at.paths.observability), pipes: below(service, at.paths.pipes) };
}

/**
 * ClickPipes answer 424 while the service is not running: every call of a collection rooted in
 * the pipes API wakes an idle service first, as the Terraform provider does (hosted-wake.ts).
 * One waker per port, so concurrent calls share one wake-up.
 */
export function pipesAwake(
  api: Api,
  at: HostedLocation,
  target: string,
  logger: Logger | undefined,
): <T extends { id: string }>(port: CollectionPort<T>) => CollectionPort<T> {
  const waker = serviceWaker(api, { servicePath: servicePath(at), target, logger });
  return (port) => ({
    list: (o) => waker.run(() => port.list(o), o?.signal),
    get: (id, o) => waker.run(() => port.get(id, o), o?.signal),
    create: (body, o) => waker.run(() => port.create(body, o), o?.signal),
    update: (id, body, o) => waker.run(() => port.update(id, body, o), o?.signal),
    delete: (id, o) => waker.run(() => port.delete(id, o), o?.signal),
    call: (name, id, body, o) => waker.run(() => port.call(name, id, body, o), o?.signal),
    waitUntil: (id, done, o) => waker.run(() => port.waitUntil(id, done, o), o?.signal),
  });
}

export function hostedCapabilities(api: Api, at: HostedLocation): { keys: KeysPort } {
  const keys = below(orgPath(at), 'keys');
  return {
    keys: {
      list: (o) => api.list(keys, wireApiKey, o),
      create: (req: KeyCreateRequest, o) => api.call({ method: 'POST', path: keys, body: keyBody(req), signal: o?.signal }, wireKeyCreated),
      update: (id, req, o) =>
        api.call({ method: 'PATCH', path: below(keys, id), body: { ...req }, idempotent: true, signal: o?.signal }, wireApiKey),
      delete: (id, o) => api.remove(below(keys, id), o),
    },
  };
}

function keyBody(req: KeyCreateRequest): JsonObject {
  return {
    name: req.name,
    ...(req.assignedRoleIds && req.assignedRoleIds.length > 0 ? { assignedRoleIds: req.assignedRoleIds } : {}),
    ...(req.roles && req.roles.length > 0 ? { roles: req.roles } : {}),
    ...(req.state ? { state: req.state } : {}),
    ...(req.expireAt !== undefined ? { expireAt: req.expireAt } : {}),
    ...(req.ipAccessList
      ? { ipAccessList: req.ipAccessList.map((e) => ({ source: e.source, ...(e.description ? { description: e.description } : {}) })) }
      : {}),
  };
}
