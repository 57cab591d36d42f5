/**
 * Issue 49 item 6: scripts/vendor-drift.js on small fixtures (a vendor router tree, a sandbox
 * route table and domain, two OpenAPI documents), read through in-memory readers: the routes and
 * body fields each side has and the other does not, through imports, spreads, `.extend`, `.and`,
 * `.or`, schema maps and helper functions, as the compiler API reads them.
 */
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

interface Diff {
  onlyNewer: string[];
  onlyOlder: string[];
  fields: { key: string; onlyNewer: string[]; onlyOlder: string[] }[];
  unreadable: { key: string; newer: string; older: string }[];
}
interface Compare {
  compare(input: { vendorRead: Reader; sandboxRead: Reader; newerDoc?: unknown; baselineDoc?: unknown }): { routers: Diff; openapi?: Diff };
  format(result: unknown, labels: { vendor: string; newer: string; baseline: string }): string;
}
type Reader = (path: string) => string | undefined;

const { compare, format } = (await import(
  pathToFileURL(join(import.meta.dirname, '../../scripts/vendor-drift/compare.js')).href
)) as Compare;
const reader =
  (files: Record<string, string>): Reader =>
  (path) =>
    files[path];

const V2 = 'packages/api/src/routers/external-api/v2';
const vendor = reader({
  [`${V2}/index.ts`]: `
    import express from 'express';
    import thingsRouter from '@/routers/external-api/v2/things';
    import searchRouter from './search';
    const router = express.Router();
    router.get('/', (req, res) => res.json({}));
    router.use('/things', auth, thingsRouter);
    router.use('/search', searchRouter);
    export default router;`,
  [`${V2}/things.ts`]: `
    import { z } from 'zod';
    import { thingSchema } from '@/utils/zod';
    const router = express.Router();
    router.get('/', list);
    router.post('/', validateRequest({ body: thingSchema }), create);
    router.put('/:id', processRequest({ params: z.object({ id: z.string() }), body: thingSchema.extend({ color: z.string() }) }), update);
    router.delete('/:id', remove);
    router.post('/:id/archive', archive);
    export default router;`,
  [`${V2}/search.ts`]: `
    const body = z.object({ sourceId: z.string(), cursor: z.string().optional() });
    const router = express.Router();
    router.post('/', validateRequest({ body }), run);
    export default router;`,
  'packages/api/src/utils/zod.ts': `
    const shared = { name: z.string() };
    export const thingSchema = z
      .object({ ...shared, size: z.number() })
      .and(z.object({ kind: z.string() }).or(z.object({ shape: z.string() })))
      .superRefine(check);`,
});

const sandbox = reader({
  'src/sandbox/http/selfhosted-routes.ts': `
    const ROUTES = [
      { method: 'GET', pattern: p('things'), handle: (c) => ({ result: c.domain.listThings() }) },
      { method: 'POST', pattern: p('things'), handle: (c) => ({ result: c.domain.createThing(c.body) }) },
      { method: 'PUT', pattern: p('things/:id'), handle: (c) => ({ result: c.domain.updateThing(param(c), c.body) }) },
      { method: 'POST', pattern: p('search'), handle: (c) => ({ result: c.domain.search(c.body), raw: true }) },
      { method: 'GET', pattern: p('legacy'), handle: (c) => ({ result: c.domain.legacy() }) },
      { method: 'GET', pattern: p('roles'), edition: 'enterprise', handle: (c) => ({ result: c.domain.listRoles() }) },
    ];`,
  'src/sandbox/http/observability-routes.ts': 'export const p = (s) => new RegExp(s);',
  'src/sandbox/domain/index.ts': `
    import * as things from './things.js';
    import { search } from './search.js';
    export const domain = (store) => ({
      createThing: (body) => things.createThing(store, body),
      updateThing: (id, body) => things.updateThing(store, id, body),
      search: (body) => search(store, body),
    });`,
  'src/sandbox/domain/things.ts': `
    const BODY = { create: z.object({ name: z.string(), size: z.number(), kind: z.string() }), update: z.object({ name: z.string() }) };
    function validate(store, body, mode) { return parseRequest(BODY[mode], body); }
    export function createThing(store, body) { const v = validate(store, body, 'create'); return JSON.parse(store.text); }
    export function updateThing(store, id, body) { return BODY.update.safeParse(body); }`,
  'src/sandbox/domain/search.ts': `
    const searchBody = z.object({ sourceId: z.string() });
    export function search(store, body) { return parseRequest(searchBody, body); }`,
});

const json = (schema: unknown) => ({ requestBody: { content: { 'application/json': { schema } } } });
const baselineDoc = {
  paths: { '/api/v2/things': { post: json({ $ref: '#/components/schemas/Thing' }), get: {} } },
  components: { schemas: { Thing: { type: 'object', properties: { name: {}, size: {} } } } },
};
const newerDoc = {
  paths: { '/api/v2/things': { post: json({ $ref: '#/components/schemas/Thing' }) }, '/api/v2/things/{id}/archive': { post: {} } },
  components: {
    schemas: {
      Base: { properties: { name: {} } },
      Thing: { allOf: [{ $ref: '#/components/schemas/Base' }, { properties: { kind: {} } }] },
    },
  },
};

describe('scripts/vendor-drift.js', () => {
  const result = compare({ vendorRead: vendor, sandboxRead: sandbox, newerDoc, baselineDoc });

  it("lists the routes the vendor's routers serve and the sandbox does not, and the reverse (enterprise routes aside)", () => {
    expect(result.routers.onlyNewer).toEqual(['DELETE /api/v2/things/{}', 'POST /api/v2/things/{}/archive']);
    expect(result.routers.onlyOlder).toEqual(['GET /api/v2/legacy']);
  });

  it('lists the body fields of each route both serve that one side accepts and the other does not', () => {
    expect(result.routers.fields).toEqual([
      { key: 'POST /api/v2/search', onlyNewer: ['cursor'], onlyOlder: [] },
      { key: 'POST /api/v2/things', onlyNewer: ['shape'], onlyOlder: [] },
      { key: 'PUT /api/v2/things/{}', onlyNewer: ['color', 'kind', 'shape', 'size'], onlyOlder: [] },
    ]);
    expect(result.routers.unreadable).toEqual([]);
  });

  it("compares the newer OpenAPI document's operations and request bodies with the baseline's", () => {
    expect(result.openapi).toEqual({
      onlyNewer: ['POST /api/v2/things/{}/archive'],
      onlyOlder: ['GET /api/v2/things'],
      fields: [{ key: 'POST /api/v2/things', onlyNewer: ['kind'], onlyOlder: ['size'] }],
      unreadable: [],
    });
  });

  it('says which bodies it could not read instead of guessing', () => {
    const opaque = reader({ 'src/sandbox/domain/search.ts': 'export function search(store, body) { return check(body); }' });
    const merged: Reader = (path) => opaque(path) ?? sandbox(path);
    const out = compare({ vendorRead: vendor, sandboxRead: merged });
    expect(out.routers.unreadable).toEqual([{ key: 'POST /api/v2/search', newer: '2 fields', older: 'unreadable' }]);
    expect(out.openapi).toBeUndefined();
    expect(format(out, { vendor: 'fixture', newer: '-', baseline: '-' })).toContain(
      'POST /api/v2/search: vendor 2 fields, sandbox unreadable',
    );
  });
});
