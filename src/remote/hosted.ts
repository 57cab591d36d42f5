/**
 * The hosted variant (hosted-api §1-4): `/v1/organizations/{org}/services/{svc}/{observability}/...`,
 * `.../{pipes}/...`, `/v1/organizations/{org}/keys`; HTTP Basic; `{status, requestId, result}`
 * envelopes; updates by PUT.
 */
import type * as z from 'zod';
import type { CallOptions, CrudPort, DashboardsPort, KeyCreateRequest, KeysPort, PipesPort, PipeStateCommand } from '../core/ports.js';
import {
  wireAlert,
  wireApiKey,
  wireDashboard,
  wireDashboardValidation,
  wireKeyCreated,
  wirePipe,
  wirePipeSettings,
  wireSavedSearch,
  wireSource,
  wireWebhook,
  type JsonObject,
  type WirePipe,
} from '../core/wire.js';
import { ApiError } from '../core/errors.js';
import type { HostedTarget } from '../core/target.js';
import type { Api, Envelope } from './api.js';
import type { Logger } from '../log/logger.js';
import { serviceWaker } from './hosted-wake.js';
import { defaultSleep } from './pacing.js';
import type { RequestInit, Response } from './transport.js';

/**
 * The hosted envelope. A 404 whose body is not JSON is the gateway's "Cannot GET" page for a
 * path it does not serve (a wrong path segment or baseUrl), never a deleted object
 * (terraform-provider clickstack client, errRouteNotFound): its error names the setting to check.
 */
export function hostedEnvelope(paths: HostedTarget['paths']): Envelope {
  return {
    unwrap: (body) => (typeof body === 'object' && body !== null && 'result' in body ? body.result : body),
    total: () => undefined,
    describe(res: Response) {
      const body = res.body as { error?: unknown; message?: unknown; requestId?: unknown } | undefined;
      const message = typeof body?.error === 'string' ? body.error : typeof body?.message === 'string' ? body.message : res.text.slice(0, 300);
      return { message, ...(typeof body?.requestId === 'string' ? { requestId: body.requestId } : {}) };
    },
    unrouted: (init, res) => (typeof res.body === 'object' && res.body !== null ? undefined : unroutedError(init, res, paths)),
  };
}

function unroutedError(init: RequestInit, res: Response, paths: HostedTarget['paths']): ApiError {
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

const TRANSITIONAL = new Set(['Provisioning', 'Stopping', 'Pausing', 'Modifying', 'Resync', 'Setup', 'Unknown']);

function enc(s: string): string {
  return encodeURIComponent(s);
}

function crud<T extends { id: string }>(api: Api, base: string, schema: z.ZodType<T>, paginated: boolean): CrudPort<T> {
  return {
    list: (o?: CallOptions) => (paginated ? api.listAll(base, schema, o) : api.list(base, schema, o)),
    get: (id, o) => api.find(`${base}/${enc(id)}`, schema, o),
    create: (body: JsonObject, o?: CallOptions) => api.call({ method: 'POST', path: base, body, signal: o?.signal }, schema),
    update: (id, body, o) => api.call({ method: 'PUT', path: `${base}/${enc(id)}`, body, signal: o?.signal }, schema),
    delete: (id, o) => api.remove(`${base}/${enc(id)}`, o),
  };
}

export function hostedPorts(api: Api, target: HostedTarget, logger?: Logger) {
  const org = `/v1/organizations/${enc(target.organizationId)}`;
  const service = `${org}/services/${enc(target.serviceId)}`;
  const obs = `${service}/${target.paths.observability}`;
  const pipesBase = `${service}/${target.paths.pipes}`;
  const dashboards: DashboardsPort = {
    ...crud(api, `${obs}/dashboards`, wireDashboard, false),
    validate: (body, o) => api.call({ method: 'POST', path: `${obs}/dashboards/validate`, body, signal: o?.signal }, wireDashboardValidation),
  };
  // Every ClickPipes call wakes an idle service first (hosted-wake.ts).
  const waker = serviceWaker(api, { servicePath: service, target: target.name, logger });
  const awake = <T>(o: CallOptions | undefined, call: () => Promise<T>) => waker.run(call, o?.signal);
  const pipes: PipesPort = {
    list: (o) => awake(o, () => api.list(pipesBase, wirePipe, o)),
    get: (id, o) => awake(o, () => api.find(`${pipesBase}/${enc(id)}`, wirePipe, o)),
    patch: (id, body, o) => awake(o, () => api.call({ method: 'PATCH', path: `${pipesBase}/${enc(id)}`, body, signal: o?.signal }, wirePipe)),
    getSettings: (id, o) => awake(o, () => api.call({ method: 'GET', path: `${pipesBase}/${enc(id)}/settings`, signal: o?.signal }, wirePipeSettings)),
    putSettings: (id, settings, o) => awake(o, () => api.call({ method: 'PUT', path: `${pipesBase}/${enc(id)}/settings`, body: settings, signal: o?.signal }, wirePipeSettings)),
    patchScaling: (id, scaling, o) => awake(o, () => api.call({ method: 'PATCH', path: `${pipesBase}/${enc(id)}/scaling`, body: scaling, idempotent: true, signal: o?.signal }, wirePipe)),
    setState: (id, command: PipeStateCommand, o) => awake(o, () => api.call({ method: 'PATCH', path: `${pipesBase}/${enc(id)}/state`, body: { command }, idempotent: true, signal: o?.signal }, wirePipe)),
    waitUntilSettled: (id, o) => awake(o, () => waitUntilSettled(api, `${pipesBase}/${enc(id)}`, o)),
  };
  const keys: KeysPort = {
    list: (o) => api.list(`${org}/keys`, wireApiKey, o),
    create: (req: KeyCreateRequest, o) => api.call({ method: 'POST', path: `${org}/keys`, body: keyBody(req), signal: o?.signal }, wireKeyCreated),
  };
  return {
    dashboards,
    alerts: crud(api, `${obs}/alerts`, wireAlert, true),
    sources: { list: (o?: CallOptions) => api.list(`${obs}/sources`, wireSource, o), get: (id: string, o?: CallOptions) => api.find(`${obs}/sources/${enc(id)}`, wireSource, o) },
    webhooks: { list: (o?: CallOptions) => api.listAll(`${obs}/webhooks`, wireWebhook, o) },
    savedSearches: { list: (o?: CallOptions) => api.listAll(`${obs}/saved-searches`, wireSavedSearch, o) },
    pipes,
    keys,
  };
}

function keyBody(req: KeyCreateRequest): JsonObject {
  return {
    name: req.name,
    ...(req.assignedRoleIds && req.assignedRoleIds.length > 0 ? { assignedRoleIds: req.assignedRoleIds } : {}),
    ...(req.roles && req.roles.length > 0 ? { roles: req.roles } : {}),
    ...(req.state ? { state: req.state } : {}),
    ...(req.expireAt !== undefined ? { expireAt: req.expireAt } : {}),
    ...(req.ipAccessList ? { ipAccessList: req.ipAccessList.map((e) => ({ source: e.source, ...(e.description ? { description: e.description } : {}) })) } : {}),
  };
}

/** Polls with back-off (0.5 s, ×1.5) until the pipe leaves its transitional states or the timeout passes (hosted-api §3.9). */
async function waitUntilSettled(api: Api, path: string, opts?: CallOptions & { timeoutMs?: number }): Promise<WirePipe> {
  const deadline = Date.now() + (opts?.timeoutMs ?? 120_000);
  let delay = 250;
  for (;;) {
    const pipe = await api.call({ method: 'GET', path, signal: opts?.signal }, wirePipe);
    if (!TRANSITIONAL.has(pipe.state) || Date.now() + delay > deadline) return pipe;
    await defaultSleep(delay, opts?.signal);
    delay = Math.min(delay * 1.5, 10_000);
  }
}

