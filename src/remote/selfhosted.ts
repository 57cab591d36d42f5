/** The self-hosted variant: `{baseUrl}/api/v2/...`, Bearer key, `{data}` bodies (selfhosted-api §1-4). */
import * as z from 'zod';
import type { CallOptions, ChartsPort, CrudPort, DashboardsPort, SeriesQuery } from '../core/ports.js';
import {
  wireAlert,
  wireDashboard,
  wireDashboardValidation,
  wireSavedSearch,
  wireSeriesRow,
  wireSource,
  wireWebhook,
  type JsonObject,
  type WireAlert,
} from '../core/wire.js';
import type { Api} from './api.js';
import { type Envelope } from './api.js';
import type { Response } from './transport.js';

export const selfHostedEnvelope: Envelope = {
  unwrap: (body) => (typeof body === 'object' && body !== null && 'data' in body ? (body).data : body),
  total(res: Response) {
    const header = res.headers['x-total-count'];
    const fromHeader = Number(Array.isArray(header) ? header[0] : header);
    if (Number.isFinite(fromHeader) && header !== undefined) return fromHeader;
    const meta = (res.body as { meta?: { total?: unknown } } | undefined)?.meta;
    return typeof meta?.total === 'number' ? meta.total : undefined;
  },
  describe(res: Response) {
    const body = res.body as { message?: unknown; error?: unknown } | undefined;
    const message = typeof body?.message === 'string' ? body.message : typeof body?.error === 'string' ? body.error : res.text.slice(0, 300);
    return { message };
  },
};

const ROOT = '/api/v2';

function crud<T extends { id: string }>(api: Api, path: string, schema: z.ZodType<T>, paginated: boolean): CrudPort<T> {
  return {
    list: (o?: CallOptions) => (paginated ? api.listAll(`${ROOT}/${path}`, schema, o) : api.list(`${ROOT}/${path}`, schema, o)),
    get: (id: string, o?: CallOptions) => api.find(`${ROOT}/${path}/${encodeURIComponent(id)}`, schema, o),
    create: (body: JsonObject, o?: CallOptions) => api.call({ method: 'POST', path: `${ROOT}/${path}`, body, signal: o?.signal }, schema),
    update: (id: string, body: JsonObject, o?: CallOptions) => api.call({ method: 'PUT', path: `${ROOT}/${path}/${encodeURIComponent(id)}`, body, signal: o?.signal }, schema),
    delete: (id: string, o?: CallOptions) => api.remove(`${ROOT}/${path}/${encodeURIComponent(id)}`, o),
  };
}

export function selfHostedPorts(api: Api) {
  const dashboards: DashboardsPort = {
    ...crud(api, 'dashboards', wireDashboard, false),
    validate: (body, o) => api.call({ method: 'POST', path: `${ROOT}/dashboards/validate`, body, signal: o?.signal }, wireDashboardValidation),
  };
  const alerts: CrudPort<WireAlert> = crud(api, 'alerts', wireAlert, true);
  const charts: ChartsPort = {
    series: (query: SeriesQuery, o?: CallOptions) => api.call({ method: 'POST', path: `${ROOT}/charts/series`, body: query, idempotent: true, signal: o?.signal }, z.array(wireSeriesRow)),
  };
  return {
    dashboards,
    alerts,
    sources: {
      list: (o?: CallOptions) => api.list(`${ROOT}/sources`, wireSource, o),
      get: (id: string, o?: CallOptions) => api.find(`${ROOT}/sources/${encodeURIComponent(id)}`, wireSource, o),
    },
    webhooks: { list: (o?: CallOptions) => api.listAll(`${ROOT}/webhooks`, wireWebhook, o) },
    savedSearches: { list: (o?: CallOptions) => api.listAll(`${ROOT}/saved-searches`, wireSavedSearch, o) },
    charts,
  };
}
