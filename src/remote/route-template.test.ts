/**
 * `url.template` (issue 45): the route words kept, every other segment `{id}`. Tested against the
 * class: every route the sandbox serves and every path obsync's remote builds, with ids that look
 * like route words (lower-case names, `v3`, slugs) at each parameter position; and a property over
 * any path made of route words and ids, with any query string or fragment.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { RequestStats } from '../core/ports.js';
import { REGISTRY } from '../kinds/registry.js';
import { OBSERVABILITY_ROUTES } from '../sandbox/http/observability-routes.js';
import { SELF_HOSTED_ROUTES } from '../sandbox/http/selfhosted-routes.js';
import type { Requester } from './api.js';
import { servicePortOver } from './index.js';
import { apiPath, CONTROL, segment } from './paths.js';
import { responseOf } from './response.js';
import { isRouteWord, routeTemplate } from './route-template.js';

/**
 * Ids that the old shape rule kept (lower-case words, an API-version look-alike) and real ones. An id
 * spelled like a route word (`v1`, `dashboards`) is not here: from the path alone it cannot be told apart.
 */
const HOSTILE_IDS = [
  'prod',
  'my-dashboard',
  'checkout_team',
  'acme',
  'v3',
  'v10',
  'api-v1',
  'dashboards2',
  'Prod',
  'a',
  'alice@example.com',
  'name with spaces',
  '65f0c0ffee0123456789abcd',
  '3fa85f64-5717-4562-b3fc-2c963f66afa6',
];

/** A sandbox route pattern (`^/dashboards/([^/]+)$`) as a path with `id` at each parameter, and as its template. */
function fromPattern(pattern: RegExp, id: string): { path: string; template: string } {
  const route = pattern.source.replace(/^\^/, '').replace(/\$$/, '').replaceAll('\\/', '/');
  return { path: route.replaceAll('([^/]+)', segment(id)), template: route.replaceAll('([^/]+)', '{id}') };
}

/** Routes of the hosted sandbox that are matched by hand (src/sandbox/http/handlers.ts), below `/v1/organizations/:id`. */
const HOSTED_ONLY = [
  '/keys',
  '/keys/:id',
  '/roles',
  '/services/:id',
  '/services/:id/state',
  ...['clickpipes', 'pipes'].flatMap((pipes) =>
    ['', '/', '/:id', '/:id/settings', '/:id/scaling', '/:id/state', '/context'].map((r) => `/services/:id/${pipes}${r}`),
  ),
  '/services/:id/clickpipesCdcScaling',
];

describe('routeTemplate', () => {
  it('keeps the route words (any case) and replaces ids, names and a query string', () => {
    expect(routeTemplate('/api/v2/dashboards/65f0c0ffee0123456789abcd')).toBe('/api/v2/dashboards/{id}');
    expect(routeTemplate(apiPath('v1', 'organizations', 'acme', 'services', 'prod', 'clickpipes', 'my-pipe', 'state'))).toBe(
      '/v1/organizations/{id}/services/{id}/clickpipes/{id}/state',
    );
    expect(routeTemplate('/api/v2/team/defaultUserRole')).toBe('/api/v2/team/defaultUserRole');
    expect(routeTemplate('/v1/organizations/o/services/s/clickpipesCdcScaling')).toBe(
      '/v1/organizations/{id}/services/{id}/clickpipesCdcScaling',
    );
    expect(routeTemplate('/v1/organizations/o/services/s/clickpipes/')).toBe('/v1/organizations/{id}/services/{id}/clickpipes/');
    expect(routeTemplate('/api/v2/charts/series?token=abc#frag')).toBe('/api/v2/charts/series');
  });

  it('gives {id} at every parameter of every route the sandbox serves, both variants, whatever the id looks like', () => {
    for (const id of HOSTILE_IDS) {
      const org = segment(id);
      for (const route of SELF_HOSTED_ROUTES) {
        const { path, template } = fromPattern(route.pattern, id);
        expect(routeTemplate(`/api/v2${path}`), `${id} in ${route.pattern.source}`).toBe(`/api/v2${template}`);
      }
      for (const root of ['clickstack', 'observability'])
        for (const route of OBSERVABILITY_ROUTES) {
          const { path, template } = fromPattern(route.pattern, id);
          expect(routeTemplate(`/v1/organizations/${org}/services/${org}/${root}${path}`)).toBe(
            `/v1/organizations/{id}/services/{id}/${root}${template}`,
          );
        }
      for (const route of HOSTED_ONLY)
        expect(routeTemplate(`/v1/organizations/${org}${route.replaceAll(':id', org)}`), `${id} in ${route}`).toBe(
          `/v1/organizations/{id}${route.replaceAll(':id', '{id}')}`,
        );
    }
  });

  it('gives {id} at every parameter of every path obsync sends, for every kind of both variants', async () => {
    for (const id of HOSTILE_IDS) {
      const sent: string[] = [];
      const stats: RequestStats = { requests: 0, writes: 0, retries: 0, throttled: 0 };
      // Every request answered 404 (JSON, so an object is absent, not a route): obsync sends what it would, and each call ends.
      const requester: Requester = {
        stats,
        close: () => Promise.resolve(),
        request(init) {
          sent.push(init.path);
          return Promise.resolve(responseOf(404, { 'content-type': 'application/json' }, Buffer.from('{"message":"not found"}')));
        },
      };
      const hosted = { name: 't', variant: 'hosted' as const, keyId: 'k', organizationId: id, serviceId: id };
      const ports = [
        servicePortOver(requester, { ...hosted, paths: { observability: 'clickstack', pipes: 'clickpipes' } }),
        servicePortOver(requester, { name: 't', variant: 'self-hosted' }),
      ];
      for (const port of ports) {
        for (const def of REGISTRY) {
          const collection = port.collection(def.kind);
          if (!collection) continue;
          const calls = Object.keys(def.routes[port.variant]?.calls ?? {});
          const attempts = [
            collection.list(),
            collection.get(id),
            collection.create({}),
            collection.update(id, {}),
            collection.delete(id),
            ...calls.map((name) => collection.call(name, id, {})),
          ];
          await Promise.allSettled(attempts);
        }
        if (port.keys) await Promise.allSettled([port.keys.list(), port.keys.update(id, { state: 'disabled' }), port.keys.delete(id)]);
      }
      const encoded = segment(id);
      expect(sent.filter((p) => p.split('/').includes(encoded)).length, 'paths holding the id').toBeGreaterThan(20);
      for (const path of sent) {
        const expected = path
          .split('/')
          .map((s) => (s === encoded ? '{id}' : s))
          .join('/');
        expect(routeTemplate(path), path).toBe(expected);
      }
    }
  });

  it('never keeps a segment that is not a route word, and never a query string or fragment (any ids, any suffix)', () => {
    const word = fc.constantFrom(
      'api',
      'v1',
      'v2',
      'organizations',
      'services',
      'clickpipes',
      'dashboards',
      'team',
      'defaultUserRole',
      'state',
    );
    const id = fc.string({ minLength: 1 }).filter((s) => !/^\.+$/.test(s) && !CONTROL.test(s) && !isRouteWord(s));
    const part = fc.oneof(
      word.map((w) => ({ w })),
      id.map((i) => ({ i })),
    );
    fc.assert(
      fc.property(fc.array(part, { minLength: 1, maxLength: 8 }), fc.string(), fc.constantFrom('?', '#', ''), (parts, tail, mark) => {
        const path = parts.map((p) => `/${'w' in p ? p.w : segment(p.i)}`).join('') + (mark ? `${mark}${tail}` : '');
        const template = routeTemplate(path);
        expect(template).toBe(parts.map((p) => `/${'w' in p ? p.w : '{id}'}`).join(''));
        expect(template).not.toMatch(/[?#]/);
      }),
      { numRuns: 500 },
    );
  });
});
