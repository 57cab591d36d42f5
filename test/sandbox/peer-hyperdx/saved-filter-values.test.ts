/**
 * A dashboard's `savedFilterValues` entries addressed by variable, beside the SQL conditions
 * (hyperdx newer than b52a6fa8: api `utils/zod.ts` `externalDashboardSavedFilterValueSchema`
 * @ 011f0b3a; the arrays are those of common-utils `__tests__/dashboardFilterValues.test.ts`
 * @ 5ff7ff1b, sent through the v2 dashboards router; the Cloud spec of 2026-09-05 has the same union).
 */
import { describe, expect, it } from 'vitest';
import { usePeer } from './support.js';

const peer = usePeer();
const path = '/api/v2/dashboards';
const dashboard = (savedFilterValues: unknown[]) => ({ name: 'Variables', tiles: [], savedFilterValues });

describe('External API v2 dashboards: savedFilterValues by variable', () => {
  const send = (method: 'post' | 'put', url: string, body: unknown) => peer().authRequest(method, url).send(body);

  it('keeps a mixed array of both addressing schemes, in order, on create, read and update', async () => {
    const mixed = [
      { type: 'sql', condition: "Env IN ('prod')" },
      { type: 'variable', name: 'svc', values: ['accounting'] },
    ];
    const created = await send('post', path, dashboard(mixed)).expect(200);
    expect(created.body.data.savedFilterValues).toEqual(mixed);
    const id = created.body.data.id;
    expect((await peer().authRequest('get', `${path}/${id}`).expect(200)).body.data.savedFilterValues).toEqual(mixed);

    // A variable-only array, an empty selection included (it is a selection, not an absence).
    const variables = [
      { type: 'variable', name: 'svc', values: ['a', 'b'] },
      { type: 'variable', name: 'env', values: [] },
    ];
    await send('put', `${path}/${id}`, dashboard(variables)).expect(200);
    expect((await peer().authRequest('get', `${path}/${id}`).expect(200)).body.data.savedFilterValues).toEqual(variables);
    expect(peer().stored('dashboards', id)?.savedFilterValues).toEqual(variables);
  });

  it('fills the type of a bare condition as sql, and keeps values verbatim (quotes, empty strings, unicode)', async () => {
    const awkward = ["it's", '', '   ', 'ünïcødé 🎉', "parseDateTime64BestEffort('x', 9)"];
    const created = await send('post', path, dashboard([{ condition: 'a = 1' }, { type: 'variable', name: 'svc', values: awkward }]));
    expect(created.status).toBe(200);
    expect(created.body.data.savedFilterValues).toEqual([
      { type: 'sql', condition: 'a = 1' },
      { type: 'variable', name: 'svc', values: awkward },
    ]);
  });

  it.each([
    ['without values', { type: 'variable', name: 'svc' }],
    ['without a name', { type: 'variable', values: ['a'] }],
    ['with a condition', { type: 'variable', name: 'svc', values: ['a'], condition: 'x = 1' }],
    ['with values that are not strings', { type: 'variable', name: 'svc', values: [1] }],
    ['of an unknown type', { type: 'lucene', condition: 'ServiceName:api' }],
  ])('rejects an entry %s and saves nothing', async (_what, entry) => {
    const res = await send('post', path, dashboard([entry]));
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/savedFilterValues/);
    expect(peer().storedAll('dashboards')).toHaveLength(0);
  });
});
