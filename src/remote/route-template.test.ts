import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { apiPath, CONTROL } from './paths.js';
import { routeTemplate } from './route-template.js';

describe('routeTemplate', () => {
  it('keeps the routes words and replaces ids', () => {
    expect(routeTemplate('/api/v2/dashboards/65f0c0ffee0123456789abcd')).toBe('/api/v2/dashboards/{id}');
    expect(routeTemplate(apiPath('v1', 'organizations', '3fa85f64-5717-4562-b3fc-2c963f66afa6', 'services', 'svc-1', 'clickpipes'))).toBe(
      '/v1/organizations/{id}/services/{id}/clickpipes',
    );
    expect(routeTemplate('/api/v2/charts/series?token=abc')).toBe('/api/v2/charts/series');
  });

  it('never carries a segment that is not a route word, nor a query string (any id, any query)', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), fc.string(), (id, query) => {
        fc.pre(!/^\.+$/.test(id) && !CONTROL.test(id));
        const template = routeTemplate(`${apiPath('api', 'v2', 'alerts', id)}?q=${encodeURIComponent(query)}`);
        expect(template).not.toContain('?');
        const last = template.split('/').at(-1);
        expect(last === '{id}' || /^[a-z]+(?:[-_][a-z]+)*$|^v\d{1,2}$/.test(last ?? '')).toBe(true);
      }),
    );
  });
});
