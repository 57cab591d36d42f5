/**
 * The hosted variant (hosted-api §1-4): `/v1/organizations/{org}/services/{svc}/{observability}/...`,
 * `.../{pipes}/...`, `/v1/organizations/{org}/keys`; HTTP Basic; `{status, requestId, result}`
 * envelopes.
 */
import { ApiError, OwnKeyError } from '../core/errors.js';
import type { CallOptions, CollectionPort, KeyCreateRequest, KeysPort } from '../core/ports.js';
import { wireApiKey, wireKeyCreated, type JsonObject, type WireApiKey } from '../core/wire.js';
import type { Logger } from '../log/logger.js';
import type { Api } from './api.js';
import type { Envelope } from './envelope.js';
import { expectingIdle, serviceWaker } from './hosted-wake.js';
import { apiPath, below } from './paths.js';
import type { RequestInit, Response } from './transport-types.js';

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
    ? `check the target's paths.${setting} (now '${paths[setting]}'; ClickHouse Cloud serves '${real}') and ` +
      `its baseUrl (the API origin, e.g. https://api.clickhouse.cloud, without /v1)`
    : "check the target's baseUrl (the API origin, e.g. https://api.clickhouse.cloud, without /v1)";
  return new ApiError({
    method: init.method,
    path: init.path,
    status: 404,
    retryable: false,
    bodyExcerpt: res.text,
    code: 'API_ROUTE',
    message:
      `${init.method} ${init.path}: the service has no such route (an HTTP 404 page, not an API ` +
      `answer)${setting ? `; paths.${setting} is probably wrong` : ''}`,
    hint,
  });
}

function orgPath(at: HostedLocation): string {
  return apiPath('v1', 'organizations', at.organizationId);
}

function servicePath(at: HostedLocation): string {
  return below(orgPath(at), 'services', at.serviceId);
}

export function hostedRoots(at: HostedLocation): Record<'observability' | 'pipes' | 'service', string> {
  const service = servicePath(at);
  return { observability: below(service, at.paths.observability), pipes: below(service, at.paths.pipes), service };
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
    list: (o) => waker.run(() => port.list(expectingIdle(o)), o?.signal),
    get: (id, o) => waker.run(() => port.get(id, expectingIdle(o)), o?.signal),
    create: (body, o) => waker.run(() => port.create(body, expectingIdle(o)), o?.signal),
    update: (id, body, o) => waker.run(() => port.update(id, body, expectingIdle(o)), o?.signal),
    delete: (id, o) => waker.run(() => port.delete(id, expectingIdle(o)), o?.signal),
    call: (name, id, body, o) => waker.run(() => port.call(name, id, body, expectingIdle(o)), o?.signal),
    waitUntil: (id, done, o) => waker.run(() => port.waitUntil(id, done, expectingIdle(o)), o?.signal),
  });
}

export function hostedCapabilities(api: Api, at: HostedLocation, ownKeyId: string): { keys: KeysPort } {
  const keys = below(orgPath(at), 'keys');
  /** Throws when the key is (or may be) the one this port authenticates with; read by id, so no caller can skip it. */
  const refuseOwn = async (id: string, verb: string, o?: CallOptions) => {
    const key = await api.find(below(keys, id), wireApiKey, o);
    if (key) refuseOwnKey(key, ownKeyId, verb);
  };
  return {
    keys: {
      list: (o) => api.list(keys, wireApiKey, o),
      create: (req: KeyCreateRequest, o) => api.call({ method: 'POST', path: keys, body: keyBody(req), signal: o?.signal }, wireKeyCreated),
      async update(id, req, o) {
        if (req.state === 'disabled') await refuseOwn(id, 'disable', o);
        return api.call({ method: 'PATCH', path: below(keys, id), body: { ...req }, idempotent: true, signal: o?.signal }, wireApiKey);
      },
      async delete(id, o) {
        await refuseOwn(id, 'delete', o);
        await api.remove(below(keys, id), o);
      },
    },
  };
}

/**
 * obsync never cuts off its own access (issue 50): a key whose `keySuffix` (the last characters of
 * its authentication key id, hosted-api §4) ends the key id this target authenticates with is
 * that key as far as the API lets anyone tell, and a key without a suffix cannot be told apart:
 * both are refused, naming the way out.
 */
export function refuseOwnKey(key: WireApiKey, ownKeyId: string, verb: string): void {
  const suffix = key.keySuffix;
  const named = `'${key.name}' (id ${key.id}${suffix ? `, key id ending ${suffix}` : ''})`;
  if (suffix === undefined || suffix === '')
    throw new OwnKeyError(
      `refusing to ${verb} key ${named}: the service does not say which key id it has, so obsync cannot ` +
        `tell it from the key this target authenticates with; nothing was sent`,
    );
  if (ownKeyId.endsWith(suffix))
    throw new OwnKeyError(
      `refusing to ${verb} key ${named}: it is the key this target authenticates with (its key id ends the ` +
        `same), and obsync would lock itself out; nothing was sent`,
    );
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
