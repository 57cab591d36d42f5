/** The observability routes shared by both variants (selfhosted-api §1.1; hosted-api §2.1 re-envelopes them). */
import type { CallerVariant, DomainResult, ObservabilityDomain, PageQuery } from '../domain/contract.js';

export interface RouteCall {
  domain: ObservabilityDomain;
  params: string[];
  query: PageQuery;
  body: unknown;
  caller: CallerVariant;
}

export interface RouteOutcome {
  result: DomainResult<unknown>;
  /** A delete: self-hosted `{}`, hosted envelope without `result`. */
  empty?: boolean;
  /** Written as is (validate answers `{valid, errors, normalized}`). */
  raw?: boolean;
}

export interface Route {
  method: string;
  pattern: RegExp;
  /** Served only by that edition of the self-hosted server (absent: every edition). */
  edition?: 'enterprise';
  handle(call: RouteCall): RouteOutcome;
}

const ID = '([^/]+)';
export const p = (s: string) => new RegExp(`^/${s.replaceAll(':id', ID)}$`);
export const param = (c: RouteCall) => c.params[0] ?? '';

export const OBSERVABILITY_ROUTES: Route[] = [
  { method: 'GET', pattern: p('dashboards'), handle: (c) => ({ result: c.domain.listDashboards() }) },
  {
    method: 'POST',
    pattern: p('dashboards/validate'),
    handle: (c) => ({ result: c.domain.validateDashboard(c.body), raw: c.caller === 'self-hosted' }),
  },
  { method: 'GET', pattern: p('dashboards/:id'), handle: (c) => ({ result: c.domain.getDashboard(param(c)) }) },
  { method: 'POST', pattern: p('dashboards'), handle: (c) => ({ result: c.domain.createDashboard(c.body, c.caller) }) },
  { method: 'PUT', pattern: p('dashboards/:id'), handle: (c) => ({ result: c.domain.updateDashboard(param(c), c.body, c.caller) }) },
  { method: 'DELETE', pattern: p('dashboards/:id'), handle: (c) => ({ result: c.domain.deleteDashboard(param(c)), empty: true }) },
  { method: 'GET', pattern: p('alerts'), handle: (c) => ({ result: c.domain.listAlerts(c.query) }) },
  { method: 'GET', pattern: p('alerts/:id'), handle: (c) => ({ result: c.domain.getAlert(param(c)) }) },
  { method: 'POST', pattern: p('alerts'), handle: (c) => ({ result: c.domain.createAlert(c.body, c.caller) }) },
  { method: 'PUT', pattern: p('alerts/:id'), handle: (c) => ({ result: c.domain.updateAlert(param(c), c.body, c.caller) }) },
  { method: 'DELETE', pattern: p('alerts/:id'), handle: (c) => ({ result: c.domain.deleteAlert(param(c)), empty: true }) },
  { method: 'GET', pattern: p('sources'), handle: (c) => ({ result: c.domain.listSources() }) },
  { method: 'GET', pattern: p('sources/:id'), handle: (c) => ({ result: c.domain.getSource(param(c)) }) },
  { method: 'POST', pattern: p('sources'), handle: (c) => ({ result: c.domain.createSource(c.body) }) },
  { method: 'PUT', pattern: p('sources/:id'), handle: (c) => ({ result: c.domain.updateSource(param(c), c.body) }) },
  { method: 'DELETE', pattern: p('sources/:id'), handle: (c) => ({ result: c.domain.deleteSource(param(c)), empty: true }) },
  { method: 'GET', pattern: p('webhooks'), handle: (c) => ({ result: c.domain.listWebhooks(c.query) }) },
  { method: 'POST', pattern: p('webhooks'), handle: (c) => ({ result: c.domain.createWebhook(c.body) }) },
  { method: 'PUT', pattern: p('webhooks/:id'), handle: (c) => ({ result: c.domain.updateWebhook(param(c), c.body) }) },
  { method: 'DELETE', pattern: p('webhooks/:id'), handle: (c) => ({ result: c.domain.deleteWebhook(param(c)), empty: true }) },
  { method: 'GET', pattern: p('saved-searches'), handle: (c) => ({ result: c.domain.listSavedSearches(c.query) }) },
  { method: 'GET', pattern: p('saved-searches/:id'), handle: (c) => ({ result: c.domain.getSavedSearch(param(c)) }) },
  { method: 'POST', pattern: p('saved-searches'), handle: (c) => ({ result: c.domain.createSavedSearch(c.body) }) },
  { method: 'PUT', pattern: p('saved-searches/:id'), handle: (c) => ({ result: c.domain.updateSavedSearch(param(c), c.body) }) },
  { method: 'DELETE', pattern: p('saved-searches/:id'), handle: (c) => ({ result: c.domain.deleteSavedSearch(param(c)), empty: true }) },
];

/** The route for a method and path below the variant's prefix; `null` when none (404 "Cannot GET"). */
export function matchObservability(
  method: string,
  path: string,
  routes: readonly Route[] = OBSERVABILITY_ROUTES,
): { route: Route; params: string[] } | null {
  for (const route of routes) {
    if (route.method !== method) continue;
    const m = route.pattern.exec(path);
    if (m) return { route, params: m.slice(1).map(decodeSegment) };
  }
  return null;
}

/** A path parameter, decoded; a malformed escape stays as sent (the domain then answers 400/404). */
function decodeSegment(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
