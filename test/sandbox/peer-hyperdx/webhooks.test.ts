/**
 * Port of hyperdx `packages/api/src/routers/external-api/__tests__/webhooks.int.test.ts`
 * (b52a6fa8). Webhooks the real tests insert with `Webhook.create` are created with POST (the
 * API needs a `url`, so the ports give one); the other team's through its own key; reads of
 * `Webhook.findById(...).lean()` read the sandbox's stored row (with its write-only fields).
 */
import { describe, expect, it } from 'vitest';
import { fixtures, newObjectId, usePeer } from './support.js';

const WEBHOOKS_BASE_URL = '/api/v2/webhooks';

const MOCK_SLACK_WEBHOOK = {
  name: 'Test Slack Webhook',
  service: 'slack',
  url: 'https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX',
  description: 'Test webhook for Slack',
};

const MOCK_INCIDENT_IO_WEBHOOK = {
  name: 'Test IncidentIO Webhook',
  service: 'incidentio',
  url: 'https://api.incident.io/v2/alert_events/http/ZZZZZZZZ?token=XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX',
  description: 'Test webhook for incident.io',
};

const MOCK_GENERIC_WEBHOOK = {
  name: 'Test Generic Webhook',
  service: 'generic',
  url: 'https://example.com/webhook',
  description: 'Test generic webhook',
  headers: { 'X-Custom-Header': 'Header Value', Authorization: 'Bearer token' },
  body: '{"text": "{{title}} | {{body}} | {{link}}"}',
};

const peer = usePeer();
const authRequest = (method: 'get' | 'post' | 'put' | 'delete', url: string) => peer().authRequest(method, url);
const create = async (body: Record<string, unknown>) =>
  (await authRequest('post', WEBHOOKS_BASE_URL).send(body).expect(200)).body.data as { id: string };
const createOtherTeam = async (body: Record<string, unknown>) =>
  (await peer().otherTeam.post(WEBHOOKS_BASE_URL).send(body).expect(200)).body.data as { id: string };
const stored = (id: string) => peer().stored('webhooks', id);

describe('webhooks.int.test.ts > External API v2 Webhooks', () => {
  describe('GET /api/v2/webhooks', () => {
    it('should return an empty list when no webhooks exist', async () => {
      const response = await authRequest('get', WEBHOOKS_BASE_URL).expect(200);

      expect(response.headers['content-type']).toMatch(/application\/json/);
      expect(response.body).toEqual({ data: [], meta: { total: 0, limit: 1000, offset: 0 } });
    });

    it('should paginate with limit and offset and report the total', async () => {
      for (let i = 0; i < 3; i++) {
        await create({ name: `Webhook ${i}`, service: 'slack', url: MOCK_SLACK_WEBHOOK.url });
      }

      const page1 = await authRequest('get', `${WEBHOOKS_BASE_URL}?limit=2&offset=0`).expect(200);
      expect(page1.body.data).toHaveLength(2);
      expect(page1.body.meta).toEqual({ total: 3, limit: 2, offset: 0 });

      const page2 = await authRequest('get', `${WEBHOOKS_BASE_URL}?limit=2&offset=2`).expect(200);
      expect(page2.body.data).toHaveLength(1);
      expect(page2.body.meta).toEqual({ total: 3, limit: 2, offset: 2 });

      const pagedIds = [...page1.body.data, ...page2.body.data].map((w: { id: string }) => w.id);
      expect(new Set(pagedIds).size).toBe(3);
    });

    it('should return an empty page with the correct total past the end', async () => {
      await create({ name: 'Only Webhook', service: 'slack', url: MOCK_SLACK_WEBHOOK.url });

      const response = await authRequest('get', `${WEBHOOKS_BASE_URL}?offset=100`).expect(200);
      expect(response.body.data).toHaveLength(0);
      expect(response.body.meta).toEqual({ total: 1, limit: 1000, offset: 100 });
    });

    it('should reject an out-of-range or non-integer limit or offset', async () => {
      await authRequest('get', `${WEBHOOKS_BASE_URL}?limit=0`).expect(400);
      await authRequest('get', `${WEBHOOKS_BASE_URL}?limit=5000`).expect(400);
      await authRequest('get', `${WEBHOOKS_BASE_URL}?offset=-1`).expect(400);
      await authRequest('get', `${WEBHOOKS_BASE_URL}?limit=abc`).expect(400);
      await authRequest('get', `${WEBHOOKS_BASE_URL}?limit=1.5`).expect(400);
    });

    it('should list a Slack webhook with only Slack-allowed fields', async () => {
      await create(MOCK_SLACK_WEBHOOK);

      const response = await authRequest('get', WEBHOOKS_BASE_URL).expect(200);

      expect(response.body.data).toHaveLength(1);
      expect(response.body.data[0]).toMatchObject({
        id: expect.any(String),
        name: MOCK_SLACK_WEBHOOK.name,
        service: 'slack',
        url: MOCK_SLACK_WEBHOOK.url,
        description: MOCK_SLACK_WEBHOOK.description,
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      });
      expect(response.body.data[0]).not.toHaveProperty('headers');
      expect(response.body.data[0]).not.toHaveProperty('body');
    });

    it('should list an IncidentIO webhook with only IncidentIO-allowed fields', async () => {
      await create(MOCK_INCIDENT_IO_WEBHOOK);

      const response = await authRequest('get', WEBHOOKS_BASE_URL).expect(200);

      expect(response.body.data).toHaveLength(1);
      expect(response.body.data[0]).toMatchObject({
        id: expect.any(String),
        name: MOCK_INCIDENT_IO_WEBHOOK.name,
        service: 'incidentio',
        url: MOCK_INCIDENT_IO_WEBHOOK.url,
        description: MOCK_INCIDENT_IO_WEBHOOK.description,
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      });
      expect(response.body.data[0]).not.toHaveProperty('headers');
      expect(response.body.data[0]).not.toHaveProperty('body');
    });

    it('should strip headers and body stored on an IncidentIO webhook', async () => {
      await create({ ...MOCK_INCIDENT_IO_WEBHOOK, headers: { 'X-Secret': 'secret' }, body: '{"title": "{{title}}"}' });

      const response = await authRequest('get', WEBHOOKS_BASE_URL).expect(200);

      expect(response.body.data[0]).not.toHaveProperty('headers');
      expect(response.body.data[0]).not.toHaveProperty('body');
    });

    it('should list a Generic webhook with body but no headers', async () => {
      await create(MOCK_GENERIC_WEBHOOK);

      const response = await authRequest('get', WEBHOOKS_BASE_URL).expect(200);

      expect(response.body.data).toHaveLength(1);
      expect(response.body.data[0]).toMatchObject({
        id: expect.any(String),
        name: MOCK_GENERIC_WEBHOOK.name,
        service: 'generic',
        url: MOCK_GENERIC_WEBHOOK.url,
        description: MOCK_GENERIC_WEBHOOK.description,
        body: MOCK_GENERIC_WEBHOOK.body,
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      });
      expect(response.body.data[0]).not.toHaveProperty('headers');
    });

    it('should return multiple webhooks of different service types', async () => {
      await create(MOCK_SLACK_WEBHOOK);
      await create(MOCK_INCIDENT_IO_WEBHOOK);
      await create(MOCK_GENERIC_WEBHOOK);

      const response = await authRequest('get', WEBHOOKS_BASE_URL).expect(200);

      expect(response.body.data).toHaveLength(3);
      const names = response.body.data.map((w: { name: string }) => w.name);
      expect(names).toContain(MOCK_SLACK_WEBHOOK.name);
      expect(names).toContain(MOCK_INCIDENT_IO_WEBHOOK.name);
      expect(names).toContain(MOCK_GENERIC_WEBHOOK.name);
    });

    it('should not return webhooks belonging to another team', async () => {
      await create(MOCK_SLACK_WEBHOOK);
      await createOtherTeam({ ...MOCK_SLACK_WEBHOOK, name: 'Other Team Webhook' });

      const response = await authRequest('get', WEBHOOKS_BASE_URL).expect(200);

      expect(response.body.data).toHaveLength(1);
      expect(response.body.data[0].name).toBe(MOCK_SLACK_WEBHOOK.name);
    });

    it('should work with a minimal Generic webhook (no optional fields)', async () => {
      // The real row has no url either; the API requires one, so only the optional fields are omitted here.
      await create({ name: 'Minimal Generic Webhook', service: 'generic', url: 'https://example.com/minimal' });

      const response = await authRequest('get', WEBHOOKS_BASE_URL).expect(200);

      expect(response.body.data).toHaveLength(1);
      expect(response.body.data[0]).toMatchObject({
        id: expect.any(String),
        name: 'Minimal Generic Webhook',
        service: 'generic',
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      });
      expect(response.body.data[0]).not.toHaveProperty('description');
      expect(response.body.data[0]).not.toHaveProperty('headers');
      expect(response.body.data[0]).not.toHaveProperty('body');
    });

    it('should require authentication', async () => {
      await peer().anonymous.get(WEBHOOKS_BASE_URL).expect(401);
    });
  });

  describe('POST /api/v2/webhooks', () => {
    it('should require authentication', async () => {
      await peer().anonymous.post(WEBHOOKS_BASE_URL).send(MOCK_SLACK_WEBHOOK).expect(401);
    });

    it('should create a Slack webhook and never return sensitive fields', async () => {
      const response = await authRequest('post', WEBHOOKS_BASE_URL).send(MOCK_GENERIC_WEBHOOK).expect(200);

      expect(response.body.data).toMatchObject({
        id: expect.any(String),
        name: MOCK_GENERIC_WEBHOOK.name,
        service: 'generic',
        url: MOCK_GENERIC_WEBHOOK.url,
        body: MOCK_GENERIC_WEBHOOK.body,
      });
      expect(response.body.data).not.toHaveProperty('headers');
      expect(response.body.data).not.toHaveProperty('queryParams');

      expect(stored(response.body.data.id)?.headers).toBeDefined();
    });

    it('should reject a duplicate service + name', async () => {
      await authRequest('post', WEBHOOKS_BASE_URL).send(MOCK_SLACK_WEBHOOK).expect(200);

      const response = await authRequest('post', WEBHOOKS_BASE_URL).send(MOCK_SLACK_WEBHOOK).expect(400);
      expect(response.body.message).toMatch(/already exists/i);
    });

    it('should reject an invalid url', async () => {
      await authRequest('post', WEBHOOKS_BASE_URL)
        .send({ ...MOCK_SLACK_WEBHOOK, url: 'not-a-url' })
        .expect(400);
    });

    it('should reject a private webhook URL without persisting it', async () => {
      const response = await authRequest('post', WEBHOOKS_BASE_URL)
        .send({ ...MOCK_GENERIC_WEBHOOK, url: 'http://10.0.0.1/webhook' })
        .expect(400);

      expect(response.body.message).toContain('private or reserved address');
      expect(peer().storedAll('webhooks')).toHaveLength(0);
    });

    it.each(['headers', 'queryParams', 'body'])('should reject %s on a slack webhook (unsupported by the service)', async (field) => {
      const payload =
        field === 'body' ? { ...MOCK_SLACK_WEBHOOK, body: '{"text": "hi"}' } : { ...MOCK_SLACK_WEBHOOK, [field]: { 'X-Custom': 'value' } };

      const response = await authRequest('post', WEBHOOKS_BASE_URL).send(payload).expect(400);
      expect(JSON.stringify(response.body)).toMatch(/not supported/i);
    });

    it('should reject header values with control characters', async () => {
      await authRequest('post', WEBHOOKS_BASE_URL)
        .send({ ...MOCK_GENERIC_WEBHOOK, headers: { 'X-Bad': 'line1\nline2' } })
        .expect(400);
    });

    it('should reject query param values with control characters', async () => {
      await authRequest('post', WEBHOOKS_BASE_URL)
        .send({ ...MOCK_GENERIC_WEBHOOK, queryParams: { token: 'line1\r\nX-Injected: evil' } })
        .expect(400);
    });

    it('should reject query param names with control characters', async () => {
      await authRequest('post', WEBHOOKS_BASE_URL)
        .send({ ...MOCK_GENERIC_WEBHOOK, queryParams: { 'bad\nkey': 'value' } })
        .expect(400);
    });

    it('should reject a header name with characters outside the HTTP token charset', async () => {
      await authRequest('post', WEBHOOKS_BASE_URL)
        .send({ ...MOCK_GENERIC_WEBHOOK, headers: { 'X-Bad@Name': 'value' } })
        .expect(400);
    });

    it('should reject a header name containing a colon', async () => {
      await authRequest('post', WEBHOOKS_BASE_URL)
        .send({ ...MOCK_GENERIC_WEBHOOK, headers: { 'X-Bad:Name': 'value' } })
        .expect(400);
    });

    it('should reject a header name that starts with a digit', async () => {
      await authRequest('post', WEBHOOKS_BASE_URL)
        .send({ ...MOCK_GENERIC_WEBHOOK, headers: { '1-Header': 'value' } })
        .expect(400);
    });

    it('should reject an empty header name', async () => {
      await authRequest('post', WEBHOOKS_BASE_URL)
        .send({ ...MOCK_GENERIC_WEBHOOK, headers: { '': 'value' } })
        .expect(400);
    });

    describe('field size caps', () => {
      it('should reject an over-long name', async () => {
        await authRequest('post', WEBHOOKS_BASE_URL)
          .send({ ...MOCK_GENERIC_WEBHOOK, name: 'x'.repeat(1025) })
          .expect(400);
      });

      it('should reject an over-long url', async () => {
        await authRequest('post', WEBHOOKS_BASE_URL)
          .send({ ...MOCK_GENERIC_WEBHOOK, url: `https://example.com/${'a'.repeat(2049)}` })
          .expect(400);
      });

      it('should reject an over-long description', async () => {
        await authRequest('post', WEBHOOKS_BASE_URL)
          .send({ ...MOCK_GENERIC_WEBHOOK, description: 'x'.repeat(2049) })
          .expect(400);
      });

      it('should reject an over-long body', async () => {
        await authRequest('post', WEBHOOKS_BASE_URL)
          .send({ ...MOCK_GENERIC_WEBHOOK, body: 'x'.repeat(16 * 1024 + 1) })
          .expect(400);
      });

      it('should reject an over-long header value', async () => {
        await authRequest('post', WEBHOOKS_BASE_URL)
          .send({ ...MOCK_GENERIC_WEBHOOK, headers: { 'X-Big': 'x'.repeat(4097) } })
          .expect(400);
      });

      it('should reject an over-long query param value', async () => {
        await authRequest('post', WEBHOOKS_BASE_URL)
          .send({ ...MOCK_GENERIC_WEBHOOK, queryParams: { token: 'x'.repeat(4097) } })
          .expect(400);
      });

      it('should reject more than 100 headers', async () => {
        const headers: Record<string, string> = {};
        for (let i = 0; i < 101; i++) headers[`X-H-${i}`] = 'v';
        await authRequest('post', WEBHOOKS_BASE_URL)
          .send({ ...MOCK_GENERIC_WEBHOOK, headers })
          .expect(400);
      });

      it('should reject more than 100 query params', async () => {
        const queryParams: Record<string, string> = {};
        for (let i = 0; i < 101; i++) queryParams[`p${i}`] = 'v';
        await authRequest('post', WEBHOOKS_BASE_URL)
          .send({ ...MOCK_GENERIC_WEBHOOK, queryParams })
          .expect(400);
      });
    });
  });

  describe('PUT /api/v2/webhooks/:id', () => {
    it('should reject a private webhook URL without updating it', async () => {
      const created = await create(MOCK_GENERIC_WEBHOOK);

      const response = await authRequest('put', `${WEBHOOKS_BASE_URL}/${created.id}`)
        .send({ ...MOCK_GENERIC_WEBHOOK, url: 'http://[fd00::1]/webhook' })
        .expect(400);

      expect(response.body.message).toContain('private or reserved address');
      expect(stored(created.id)?.url).toBe(MOCK_GENERIC_WEBHOOK.url);
    });

    it('should replace readable fields but preserve omitted write-only fields when the destination is unchanged', async () => {
      const created = await create(MOCK_GENERIC_WEBHOOK);

      const response = await authRequest('put', `${WEBHOOKS_BASE_URL}/${created.id}`)
        .send({ name: 'Renamed Generic', service: 'generic', url: MOCK_GENERIC_WEBHOOK.url })
        .expect(200);

      expect(response.body.data.name).toBe('Renamed Generic');
      expect(response.body.data.url).toBe(MOCK_GENERIC_WEBHOOK.url);
      expect(response.body.data).not.toHaveProperty('headers');
      expect(response.body.data).not.toHaveProperty('queryParams');

      const row = stored(created.id);
      expect(row?.headers).toEqual(MOCK_GENERIC_WEBHOOK.headers);
      expect(row?.body).toBeUndefined();
      expect(row?.description).toBeUndefined();
    });

    it('should preserve omitted queryParams when the destination is unchanged', async () => {
      const created = await create({ ...MOCK_GENERIC_WEBHOOK, queryParams: { token: 'secret-token' } });

      await authRequest('put', `${WEBHOOKS_BASE_URL}/${created.id}`)
        .send({ name: 'Renamed Generic', service: 'generic', url: MOCK_GENERIC_WEBHOOK.url })
        .expect(200);

      expect(stored(created.id)?.queryParams).toEqual({ token: 'secret-token' });
    });

    it('should NOT forward stored write-only secrets when the url changes', async () => {
      const created = await create({
        ...MOCK_GENERIC_WEBHOOK,
        headers: { Authorization: 'Bearer super-secret' },
        queryParams: { token: 'secret-token' },
      });

      await authRequest('put', `${WEBHOOKS_BASE_URL}/${created.id}`)
        .send({ name: MOCK_GENERIC_WEBHOOK.name, service: 'generic', url: 'https://attacker.example.com/steal' })
        .expect(200);

      const row = stored(created.id);
      expect(row?.headers).toBeUndefined();
      expect(row?.queryParams).toBeUndefined();
      expect(row?.url).toBe('https://attacker.example.com/steal');
    });

    it('should clear stored write-only secrets when the service changes', async () => {
      const created = await create({ ...MOCK_GENERIC_WEBHOOK, headers: { Authorization: 'Bearer super-secret' } });

      await authRequest('put', `${WEBHOOKS_BASE_URL}/${created.id}`)
        .send({ name: MOCK_GENERIC_WEBHOOK.name, service: 'slack', url: MOCK_SLACK_WEBHOOK.url })
        .expect(200);

      expect(stored(created.id)?.headers).toBeUndefined();
    });

    it('should keep re-supplied write-only fields when the url changes', async () => {
      const created = await create({ ...MOCK_GENERIC_WEBHOOK, headers: { Authorization: 'Bearer old-secret' } });

      await authRequest('put', `${WEBHOOKS_BASE_URL}/${created.id}`)
        .send({
          name: MOCK_GENERIC_WEBHOOK.name,
          service: 'generic',
          url: 'https://example.com/new-but-trusted',
          headers: { Authorization: 'Bearer new-secret' },
        })
        .expect(200);

      expect(stored(created.id)?.headers).toEqual({ Authorization: 'Bearer new-secret' });
    });

    it('should clear write-only fields when an explicit empty object is sent', async () => {
      const created = await create(MOCK_GENERIC_WEBHOOK);

      await authRequest('put', `${WEBHOOKS_BASE_URL}/${created.id}`)
        .send({ name: MOCK_GENERIC_WEBHOOK.name, service: 'generic', url: MOCK_GENERIC_WEBHOOK.url, headers: {} })
        .expect(200);

      expect(stored(created.id)?.headers).toBeUndefined();
    });

    it('should reject renaming a webhook onto an existing service + name', async () => {
      await create(MOCK_SLACK_WEBHOOK);
      const created = await create({ ...MOCK_SLACK_WEBHOOK, name: 'Another Slack Webhook' });

      const response = await authRequest('put', `${WEBHOOKS_BASE_URL}/${created.id}`)
        .send({ ...MOCK_SLACK_WEBHOOK })
        .expect(400);
      expect(response.body.message).toMatch(/already exists/i);
    });

    it('should return 404 for a webhook belonging to another team', async () => {
      const created = await createOtherTeam(MOCK_SLACK_WEBHOOK);

      await authRequest('put', `${WEBHOOKS_BASE_URL}/${created.id}`).send(MOCK_SLACK_WEBHOOK).expect(404);
    });

    it('should return 404 for a non-existent webhook', async () => {
      await authRequest('put', `${WEBHOOKS_BASE_URL}/${newObjectId()}`).send(MOCK_SLACK_WEBHOOK).expect(404);
    });
  });

  describe('DELETE /api/v2/webhooks/:id', () => {
    it('should delete a webhook', async () => {
      const created = await create(MOCK_SLACK_WEBHOOK);

      await authRequest('delete', `${WEBHOOKS_BASE_URL}/${created.id}`).expect(200);

      expect(stored(created.id)).toBeUndefined();
    });

    it('should return 404 for a webhook belonging to another team', async () => {
      const created = await createOtherTeam(MOCK_SLACK_WEBHOOK);

      await authRequest('delete', `${WEBHOOKS_BASE_URL}/${created.id}`).expect(404);

      const list = await peer().otherTeam.get(WEBHOOKS_BASE_URL).expect(200);
      expect(list.body.data.map((w: { id: string }) => w.id)).toContain(created.id);
    });

    it('should return 409 (not orphan alerts) when an alert still references the webhook', async () => {
      const created = await create(MOCK_SLACK_WEBHOOK);
      // The real test inserts the alert (on a made-up saved search) with the model; here it is created through the API.
      const f = fixtures(peer().agent);
      const connection = await f.connection();
      const source = await f.logSource(connection.id);
      const savedSearch = await f.savedSearch(source.id);
      await authRequest('post', '/api/v2/alerts')
        .send({
          source: 'saved_search',
          savedSearchId: savedSearch.id,
          threshold: 1,
          interval: '5m',
          thresholdType: 'above',
          channel: { type: 'webhook', webhookId: created.id },
        })
        .expect(200);

      const response = await authRequest('delete', `${WEBHOOKS_BASE_URL}/${created.id}`).expect(409);
      expect(response.body.message).toMatch(/still reference/i);

      expect(stored(created.id)).not.toBeUndefined();
    });
  });
});
