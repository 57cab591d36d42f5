/**
 * Port of hyperdx `packages/api/src/routers/external-api/__tests__/savedSearches-crud.int.test.ts`
 * (b52a6fa8). The connection, source and the other team's saved searches the real tests insert
 * with the models are created through the API; alerts on a saved search too.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { fixtures, newObjectId, usePeer } from './support.js';

const BASE_URL = '/api/v2/saved-searches';
const peer = usePeer();
const authRequest = (method: 'get' | 'post' | 'put' | 'delete', url: string) => peer().authRequest(method, url);

let sourceId: string;
beforeEach(async () => {
  const f = fixtures(peer().agent);
  const connection = await f.connection();
  sourceId = (await f.logSource(connection.id, { name: 'Logs', defaultTableSelectExpression: 'Timestamp, Body' })).id;
});

const savedSearchBody = () => ({
  name: 'Production Errors',
  sourceId,
  select: 'Timestamp, Body',
  where: 'SeverityText:ERROR',
  whereLanguage: 'lucene' as const,
  orderBy: 'Timestamp DESC',
  tags: ['prod'],
});

const createOtherTeamSavedSearch = async () => {
  const other = fixtures(peer().otherTeam);
  const connection = await other.connection();
  const source = await other.logSource(connection.id);
  return other.savedSearch(source.id, { name: 'Other Team Search', where: '' });
};

const teamId = () => (peer().sandbox.selfHostedState().state as { teamId: string }).teamId;

describe('savedSearches-crud.int.test.ts > External API v2 Saved Searches CRUD', () => {
  describe('auth', () => {
    it('should require authentication on list', async () => {
      await peer().anonymous.get(BASE_URL).expect(401);
    });
  });

  describe('POST /api/v2/saved-searches', () => {
    it('should create a saved search and return the external shape', async () => {
      const response = await authRequest('post', BASE_URL).send(savedSearchBody()).expect(200);

      expect(response.body.data).toMatchObject({
        id: expect.any(String),
        name: 'Production Errors',
        sourceId,
        select: 'Timestamp, Body',
        where: 'SeverityText:ERROR',
        whereLanguage: 'lucene',
        orderBy: 'Timestamp DESC',
        tags: ['prod'],
        teamId: teamId(),
      });
      expect(response.body.data).not.toHaveProperty('source');
    });

    it('should reject a sourceId that does not belong to the team', async () => {
      const response = await authRequest('post', BASE_URL)
        .send({ ...savedSearchBody(), sourceId: newObjectId() })
        .expect(400);
      expect(response.body.message).toMatch(/existing source/i);
    });

    it('should reject a real source owned by another team (cross-team)', async () => {
      const other = fixtures(peer().otherTeam);
      const otherTeamSource = await other.logSource((await other.connection()).id, { name: 'Other Team Logs' });
      const response = await authRequest('post', BASE_URL)
        .send({ ...savedSearchBody(), sourceId: otherTeamSource.id })
        .expect(400);
      expect(response.body.message).toMatch(/existing source/i);
    });

    it('should reject a malformed sourceId', async () => {
      await authRequest('post', BASE_URL)
        .send({ ...savedSearchBody(), sourceId: 'not-an-id' })
        .expect(400);
    });

    it('should reject a missing name', async () => {
      const { name: _name, ...rest } = savedSearchBody();
      await authRequest('post', BASE_URL).send(rest).expect(400);
    });

    it('should reject more than 50 tags', async () => {
      await authRequest('post', BASE_URL)
        .send({ ...savedSearchBody(), tags: Array.from({ length: 51 }, (_, i) => `tag-${i}`) })
        .expect(400);
    });

    it('should reject a tag longer than 32 characters', async () => {
      await authRequest('post', BASE_URL)
        .send({ ...savedSearchBody(), tags: ['x'.repeat(33)] })
        .expect(400);
    });

    it('should reject a name longer than 1024 characters', async () => {
      await authRequest('post', BASE_URL)
        .send({ ...savedSearchBody(), name: 'x'.repeat(1025) })
        .expect(400);
    });

    it('should accept the sidebar-renderable IN / NOT IN / BETWEEN forms', async () => {
      const filters = [
        { type: 'sql', condition: "ServiceName IN ('checkout', 'payments')" },
        { type: 'sql', condition: "SeverityText NOT IN ('debug', 'trace')" },
        { type: 'sql', condition: 'Duration BETWEEN 100 AND 5000' },
        { condition: "StatusCode IN ('500')" },
      ];
      const response = await authRequest('post', BASE_URL)
        .send({ ...savedSearchBody(), filters })
        .expect(200);

      expect(response.body.data.filters).toEqual([
        { type: 'sql', condition: "ServiceName IN ('checkout', 'payments')" },
        { type: 'sql', condition: "SeverityText NOT IN ('debug', 'trace')" },
        { type: 'sql', condition: 'Duration BETWEEN 100 AND 5000' },
        { type: 'sql', condition: "StatusCode IN ('500')" },
      ]);
    });

    it('should reject non-sql filter shapes that would not render in the sidebar', async () => {
      await authRequest('post', BASE_URL)
        .send({ ...savedSearchBody(), filters: [{ type: 'lucene', condition: 'SeverityText:ERROR' }] })
        .expect(400);

      await authRequest('post', BASE_URL)
        .send({ ...savedSearchBody(), filters: [{ type: 'sql_ast', operator: '=', left: 'ServiceName', right: "'x'" }] })
        .expect(400);
    });

    it('should reject a sql condition that is not a sidebar-renderable predicate', async () => {
      await authRequest('post', BASE_URL)
        .send({ ...savedSearchBody(), filters: [{ type: 'sql', condition: "ServiceName = 'checkout'" }] })
        .expect(400);
    });

    it('should reject a compound condition that only partially renders', async () => {
      await authRequest('post', BASE_URL)
        .send({ ...savedSearchBody(), filters: [{ type: 'sql', condition: "ServiceName IN ('checkout') AND foo = 1" }] })
        .expect(400);

      await authRequest('post', BASE_URL)
        .send({ ...savedSearchBody(), filters: [{ type: 'sql', condition: "ServiceName IN ('a') AND SeverityText IN ('error')" }] })
        .expect(400);
    });

    it('should reject a BETWEEN with non-numeric bounds', async () => {
      await authRequest('post', BASE_URL)
        .send({ ...savedSearchBody(), filters: [{ type: 'sql', condition: "Timestamp BETWEEN '2024-01-01' AND '2024-02-01'" }] })
        .expect(400);
    });

    it('should reject more than 100 filters', async () => {
      await authRequest('post', BASE_URL)
        .send({
          ...savedSearchBody(),
          filters: Array.from({ length: 101 }, () => ({ type: 'sql', condition: "ServiceName IN ('checkout')" })),
        })
        .expect(400);
    });

    it('should reject a filter expression that exceeds the length cap', async () => {
      await authRequest('post', BASE_URL)
        .send({ ...savedSearchBody(), filters: [{ type: 'sql', condition: 'x'.repeat(8 * 1024 + 1) }] })
        .expect(400);
    });

    it.each([
      ['select', 4 * 1024],
      ['where', 8 * 1024],
      ['orderBy', 1024],
    ])('should reject %s longer than its cap', async (field, cap) => {
      await authRequest('post', BASE_URL)
        .send({ ...savedSearchBody(), [field]: 'x'.repeat(cap + 1) })
        .expect(400);
    });
  });

  describe('GET /api/v2/saved-searches', () => {
    it('should list only the team saved searches', async () => {
      await authRequest('post', BASE_URL).send(savedSearchBody()).expect(200);
      await createOtherTeamSavedSearch();

      const response = await authRequest('get', BASE_URL).expect(200);
      expect(response.body.data).toHaveLength(1);
      expect(response.body.data[0].name).toBe('Production Errors');
    });

    it('should cap the number of results with the limit param', async () => {
      await authRequest('post', BASE_URL)
        .send({ ...savedSearchBody(), name: 'First' })
        .expect(200);
      await authRequest('post', BASE_URL)
        .send({ ...savedSearchBody(), name: 'Second' })
        .expect(200);

      const response = await authRequest('get', `${BASE_URL}?limit=1`).expect(200);
      expect(response.body.data).toHaveLength(1);
    });

    it('should reject an out-of-range or non-integer limit or offset', async () => {
      await authRequest('get', `${BASE_URL}?limit=0`).expect(400);
      await authRequest('get', `${BASE_URL}?limit=5000`).expect(400);
      await authRequest('get', `${BASE_URL}?offset=-1`).expect(400);
      await authRequest('get', `${BASE_URL}?limit=abc`).expect(400);
      await authRequest('get', `${BASE_URL}?limit=1.5`).expect(400);
    });

    it('should paginate with limit and offset and report the total', async () => {
      await authRequest('post', BASE_URL)
        .send({ ...savedSearchBody(), name: 'First' })
        .expect(200);
      await authRequest('post', BASE_URL)
        .send({ ...savedSearchBody(), name: 'Second' })
        .expect(200);
      await authRequest('post', BASE_URL)
        .send({ ...savedSearchBody(), name: 'Third' })
        .expect(200);

      const page1 = await authRequest('get', `${BASE_URL}?limit=2&offset=0`).expect(200);
      expect(page1.body.data).toHaveLength(2);
      expect(page1.body.meta).toEqual({ total: 3, limit: 2, offset: 0 });
      expect(page1.headers['x-total-count']).toBe('3');

      const page2 = await authRequest('get', `${BASE_URL}?limit=2&offset=2`).expect(200);
      expect(page2.body.data).toHaveLength(1);
      expect(page2.body.meta).toEqual({ total: 3, limit: 2, offset: 2 });

      const pagedIds = [...page1.body.data, ...page2.body.data].map((s: { id: string }) => s.id);
      expect(new Set(pagedIds).size).toBe(3);
    });

    it('should return an empty page with the correct total past the end', async () => {
      await authRequest('post', BASE_URL).send(savedSearchBody()).expect(200);

      const response = await authRequest('get', `${BASE_URL}?offset=100`).expect(200);
      expect(response.body.data).toHaveLength(0);
      expect(response.body.meta).toEqual({ total: 1, limit: 1000, offset: 100 });
    });

    it('should get a saved search by id', async () => {
      const created = await authRequest('post', BASE_URL).send(savedSearchBody()).expect(200);

      const response = await authRequest('get', `${BASE_URL}/${created.body.data.id}`).expect(200);
      expect(response.body.data.id).toBe(created.body.data.id);
    });

    it('should return 404 for another team saved search', async () => {
      const other = await createOtherTeamSavedSearch();
      await authRequest('get', `${BASE_URL}/${other.id}`).expect(404);
    });
  });

  describe('PUT /api/v2/saved-searches/:id', () => {
    it('should update a saved search', async () => {
      const created = await authRequest('post', BASE_URL).send(savedSearchBody()).expect(200);

      const response = await authRequest('put', `${BASE_URL}/${created.body.data.id}`)
        .send({ ...savedSearchBody(), name: 'Renamed', where: 'Body:timeout' })
        .expect(200);

      expect(response.body.data.name).toBe('Renamed');
      expect(response.body.data.where).toBe('Body:timeout');
    });

    it('should reset every omitted optional field to its default (uniform full-replace)', async () => {
      const created = await authRequest('post', BASE_URL)
        .send({ ...savedSearchBody(), whereLanguage: 'sql', where: 'x = 1' })
        .expect(200);
      expect(created.body.data.orderBy).toBe('Timestamp DESC');
      expect(created.body.data.tags).toEqual(['prod']);

      const response = await authRequest('put', `${BASE_URL}/${created.body.data.id}`).send({ name: 'Minimal', sourceId }).expect(200);

      expect(response.body.data.name).toBe('Minimal');
      expect(response.body.data.select).toBe('');
      expect(response.body.data.where).toBe('');
      expect(response.body.data.whereLanguage).toBe('lucene');
      expect(response.body.data.orderBy).toBe('');
      expect(response.body.data.tags).toEqual([]);
      expect(response.body.data.filters).toEqual([]);
    });

    it('should return 404 for another team saved search', async () => {
      const other = await createOtherTeamSavedSearch();
      await authRequest('put', `${BASE_URL}/${other.id}`).send(savedSearchBody()).expect(404);
    });

    it('should reject a sourceId that does not belong to the team', async () => {
      const created = await authRequest('post', BASE_URL).send(savedSearchBody()).expect(200);

      const response = await authRequest('put', `${BASE_URL}/${created.body.data.id}`)
        .send({ ...savedSearchBody(), sourceId: newObjectId() })
        .expect(400);
      expect(response.body.message).toMatch(/existing source/i);
    });
  });

  describe('DELETE /api/v2/saved-searches/:id', () => {
    it('should delete a saved search', async () => {
      const created = await authRequest('post', BASE_URL).send(savedSearchBody()).expect(200);

      await authRequest('delete', `${BASE_URL}/${created.body.data.id}`).expect(200);

      expect(peer().stored('savedSearches', created.body.data.id)).toBeUndefined();
    });

    it('should return 404 for another team saved search', async () => {
      const other = await createOtherTeamSavedSearch();
      await authRequest('delete', `${BASE_URL}/${other.id}`).expect(404);
      await peer().otherTeam.get(`${BASE_URL}/${other.id}`).expect(200);
    });

    it('should delete alerts attached to the saved search', async () => {
      const created = await authRequest('post', BASE_URL).send(savedSearchBody()).expect(200);
      const savedSearchId = created.body.data.id;
      const webhook = await fixtures(peer().agent).webhook();
      const alert = await authRequest('post', '/api/v2/alerts')
        .send({
          source: 'saved_search',
          savedSearchId,
          threshold: 1,
          interval: '5m',
          thresholdType: 'above',
          channel: { type: 'webhook', webhookId: webhook.id },
        })
        .expect(200);

      await authRequest('delete', `${BASE_URL}/${savedSearchId}`).expect(200);

      expect(peer().stored('savedSearches', savedSearchId)).toBeUndefined();
      await authRequest('get', `/api/v2/alerts/${alert.body.data.id}`).expect(404);
    });
  });
});
