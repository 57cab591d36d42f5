/**
 * A ServicePort straight over the sandbox's observability domain, without HTTP. For fast
 * engine tests (property tests run hundreds of plans); end-to-end tests use the HTTP server
 * and the real client instead.
 */
import type * as z from 'zod';
import { ApiError } from '../core/errors.js';
import type { CrudPort, RequestStats, ServicePort } from '../core/ports.js';
import {
  wireAlert,
  wireDashboard,
  wireDashboardValidation,
  wireSavedSearch,
  wireSource,
  wireWebhook,
  type JsonObject,
} from '../core/wire.js';
import type { CallerVariant, DomainResult, JsonRecord, ObservabilityDomain, PageQuery } from './domain/contract.js';

export function inProcessPort(domain: ObservabilityDomain, variant: CallerVariant = 'self-hosted', target = 'in-process'): ServicePort {
  const stats: RequestStats = { requests: 0, writes: 0, retries: 0, throttled: 0 };
  const unwrap = <T>(what: string, result: DomainResult<unknown>, schema: z.ZodType<T>, write = false): T => {
    stats.requests += 1;
    if (write) stats.writes += 1;
    if (!result.ok) throw new ApiError({ method: write ? 'WRITE' : 'GET', path: what, status: result.error.status, retryable: false, bodyExcerpt: result.error.message });
    return schema.parse(result.value);
  };
  const orNull = <T>(what: string, result: DomainResult<unknown>, schema: z.ZodType<T>): T | null => (!result.ok && result.error.status === 404 ? null : unwrap(what, result, schema));
  const all = <T>(what: string, page: (q: PageQuery) => DomainResult<JsonRecord[]>, schema: z.ZodType<T>): T[] => {
    const out: T[] = [];
    for (let offset = 0; ; offset += 1000) {
      const result = page({ limit: '1000', offset: String(offset) });
      const items = unwrap(what, result, schema.array());
      out.push(...items);
      if (!result.ok || offset + 1000 >= (result.meta?.total ?? 0)) return out;
    }
  };
  const body = (b: JsonObject) => b as unknown;

  const dashboards: CrudPort<z.infer<typeof wireDashboard>> & { validate: ServicePort['dashboards']['validate'] } = {
    list: () => Promise.resolve(unwrap('dashboards', domain.listDashboards(), wireDashboard.array())),
    get: (id) => Promise.resolve(orNull(`dashboards/${id}`, domain.getDashboard(id), wireDashboard)),
    create: (b) => Promise.resolve(unwrap('dashboards', domain.createDashboard(body(b), variant), wireDashboard, true)),
    update: (id, b) => Promise.resolve(unwrap(`dashboards/${id}`, domain.updateDashboard(id, body(b), variant), wireDashboard, true)),
    delete: (id) => Promise.resolve(void orNull(`dashboards/${id}`, domain.deleteDashboard(id), wireDashboard.partial())),
    validate: (b) => Promise.resolve(unwrap('dashboards/validate', domain.validateDashboard(body(b)), wireDashboardValidation)),
  };
  return {
    target,
    variant,
    stats,
    dashboards,
    alerts: {
      list: () => Promise.resolve(all('alerts', (q) => domain.listAlerts(q), wireAlert)),
      get: (id) => Promise.resolve(orNull(`alerts/${id}`, domain.getAlert(id), wireAlert)),
      create: (b) => Promise.resolve(unwrap('alerts', domain.createAlert(body(b), variant), wireAlert, true)),
      update: (id, b) => Promise.resolve(unwrap(`alerts/${id}`, domain.updateAlert(id, body(b), variant), wireAlert, true)),
      delete: (id) => Promise.resolve(void orNull(`alerts/${id}`, domain.deleteAlert(id), wireAlert.partial())),
    },
    sources: {
      list: () => Promise.resolve(unwrap('sources', domain.listSources(), wireSource.array())),
      get: (id) => Promise.resolve(orNull(`sources/${id}`, domain.getSource(id), wireSource)),
    },
    webhooks: { list: () => Promise.resolve(all('webhooks', (q) => domain.listWebhooks(q), wireWebhook)) },
    savedSearches: { list: () => Promise.resolve(all('saved-searches', (q) => domain.listSavedSearches(q), wireSavedSearch)) },
    close: () => Promise.resolve(),
  };
}
