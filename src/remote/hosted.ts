/**
 * The hosted variant (hosted-api §1-4): `/v1/organizations/{org}/services/{svc}/{observability}/...`,
 * `.../{pipes}/...`, `/v1/organizations/{org}/keys`; HTTP Basic; `{status, requestId, result}`
 * envelopes.
 */
import type { KeyCreateRequest, KeysPort } from '../core/ports.js';
import { wireApiKey, wireKeyCreated, type JsonObject } from '../core/wire.js';
import type { Api, Envelope } from './api.js';
import type { Response } from './transport.js';

export const hostedEnvelope: Envelope = {
  unwrap: (body) => (typeof body === 'object' && body !== null && 'result' in body ? (body).result : body),
  total: () => undefined,
  describe(res: Response) {
    const body = res.body as { error?: unknown; message?: unknown; requestId?: unknown } | undefined;
    const message = typeof body?.error === 'string' ? body.error : typeof body?.message === 'string' ? body.message : res.text.slice(0, 300);
    return { message, ...(typeof body?.requestId === 'string' ? { requestId: body.requestId } : {}) };
  },
};

/** What locates a hosted service (a target, or the in-process sandbox). */
export interface HostedLocation {
  organizationId: string;
  serviceId: string;
  /** Path segments under `/services/{serviceId}/`; real deployments spell them differently. */
  paths: { observability: string; pipes: string };
}

function enc(s: string): string {
  return encodeURIComponent(s);
}

function orgPath(at: HostedLocation): string {
  return `/v1/organizations/${enc(at.organizationId)}`;
}

export function hostedRoots(at: HostedLocation): Record<'observability' | 'pipes', string> {
  const service = `${orgPath(at)}/services/${enc(at.serviceId)}`;
  return { observability: `${service}/${at.paths.observability}`, pipes: `${service}/${at.paths.pipes}` };
}

export function hostedCapabilities(api: Api, at: HostedLocation): { keys: KeysPort } {
  const keys = `${orgPath(at)}/keys`;
  return {
    keys: {
      list: (o) => api.list(keys, wireApiKey, o),
      create: (req: KeyCreateRequest, o) => api.call({ method: 'POST', path: keys, body: keyBody(req), signal: o?.signal }, wireKeyCreated),
    },
  };
}

function keyBody(req: KeyCreateRequest): JsonObject {
  return {
    name: req.name,
    roles: req.roles,
    ...(req.state ? { state: req.state } : {}),
    ...(req.expireAt !== undefined ? { expireAt: req.expireAt } : {}),
    ...(req.ipAccessList ? { ipAccessList: req.ipAccessList.map((e) => ({ source: e.source, ...(e.description ? { description: e.description } : {}) })) } : {}),
  };
}
