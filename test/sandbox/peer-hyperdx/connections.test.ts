/**
 * Port of hyperdx `packages/api/src/routers/external-api/__tests__/connections.int.test.ts`
 * (b52a6fa8). Rows the real tests insert with `Connection.create` are created with POST; the
 * other team's rows through the other team's key; `Connection.findById(...).select('+password')`
 * reads the sandbox's stored row.
 */
import { describe, expect, it } from 'vitest';
import { newObjectId, usePeer } from './support.js';

const CONNECTIONS_BASE_URL = '/api/v2/connections';

const MOCK_CONNECTION = {
  name: 'Test Connection',
  host: 'https://clickhouse.example.com:8443',
  username: 'default',
  password: 'test-password',
};

const peer = usePeer();

const createConnection = async (body: Record<string, unknown> = MOCK_CONNECTION) =>
  (await peer().authRequest('post', CONNECTIONS_BASE_URL).send(body).expect(200)).body.data as { id: string };
const createOtherTeamConnection = async (body: Record<string, unknown> = MOCK_CONNECTION) =>
  (await peer().otherTeam.post(CONNECTIONS_BASE_URL).send(body).expect(200)).body.data as { id: string };

describe('connections.int.test.ts > External API v2 Connections', () => {
  describe('GET /api/v2/connections', () => {
    it('should return an empty list when no connections exist', async () => {
      const response = await peer().authRequest('get', CONNECTIONS_BASE_URL).expect(200);

      expect(response.headers['content-type']).toMatch(/application\/json/);
      expect(response.body).toEqual({ data: [] });
    });

    it('should list connections without exposing passwords', async () => {
      await createConnection();

      const response = await peer().authRequest('get', CONNECTIONS_BASE_URL).expect(200);

      expect(response.body.data).toHaveLength(1);
      expect(response.body.data[0]).toMatchObject({
        id: expect.any(String),
        name: MOCK_CONNECTION.name,
        host: MOCK_CONNECTION.host,
        username: MOCK_CONNECTION.username,
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      });
      expect(response.body.data[0]).not.toHaveProperty('password');
      expect(response.body.data[0]).not.toHaveProperty('team');
    });

    it('should not return connections belonging to another team', async () => {
      await createConnection();
      await createOtherTeamConnection({ ...MOCK_CONNECTION, name: 'Other Team Connection' });

      const response = await peer().authRequest('get', CONNECTIONS_BASE_URL).expect(200);

      expect(response.body.data).toHaveLength(1);
      expect(response.body.data[0].name).toBe(MOCK_CONNECTION.name);
    });

    it('should require authentication', async () => {
      await peer().anonymous.get(CONNECTIONS_BASE_URL).expect(401);
    });
  });

  describe('GET /api/v2/connections/:id', () => {
    it('should return a connection by id without the password', async () => {
      const connection = await createConnection();

      const response = await peer().authRequest('get', `${CONNECTIONS_BASE_URL}/${connection.id}`).expect(200);

      expect(response.body.data).toMatchObject({
        id: connection.id,
        name: MOCK_CONNECTION.name,
        host: MOCK_CONNECTION.host,
        username: MOCK_CONNECTION.username,
      });
      expect(response.body.data).not.toHaveProperty('password');
    });

    it('should return 404 for a non-existent connection', async () => {
      await peer().authRequest('get', `${CONNECTIONS_BASE_URL}/${newObjectId()}`).expect(404);
    });

    it('should return 404 for a connection belonging to another team', async () => {
      const otherTeamConnection = await createOtherTeamConnection();

      await peer().authRequest('get', `${CONNECTIONS_BASE_URL}/${otherTeamConnection.id}`).expect(404);
    });

    it('should return 400 for an invalid connection id', async () => {
      await peer().authRequest('get', `${CONNECTIONS_BASE_URL}/not-an-id`).expect(400);
    });

    it('should require authentication', async () => {
      await peer().anonymous.get(`${CONNECTIONS_BASE_URL}/${newObjectId()}`).expect(401);
    });
  });

  describe('POST /api/v2/connections', () => {
    it('should create a connection and return it without the password', async () => {
      const response = await peer().authRequest('post', CONNECTIONS_BASE_URL).send(MOCK_CONNECTION).expect(200);

      expect(response.body.data).toMatchObject({
        id: expect.any(String),
        name: MOCK_CONNECTION.name,
        host: MOCK_CONNECTION.host,
        username: MOCK_CONNECTION.username,
      });
      expect(response.body.data).not.toHaveProperty('password');

      const stored = peer().stored('connections', response.body.data.id);
      expect(stored).not.toBeUndefined();
      expect(stored?.password).toBe(MOCK_CONNECTION.password);
    });

    it('should create a connection without a password', async () => {
      const { password: _password, ...connectionWithoutPassword } = MOCK_CONNECTION;

      const response = await peer().authRequest('post', CONNECTIONS_BASE_URL).send(connectionWithoutPassword).expect(200);

      expect(peer().stored('connections', response.body.data.id)?.password).toBe('');
    });

    it('should create a connection with optional fields', async () => {
      const response = await peer()
        .authRequest('post', CONNECTIONS_BASE_URL)
        .send({ ...MOCK_CONNECTION, hyperdxSettingPrefix: 'hyperdx_' })
        .expect(200);

      expect(response.body.data).toMatchObject({ hyperdxSettingPrefix: 'hyperdx_' });
    });

    it('should reject a request with missing required fields', async () => {
      await peer().authRequest('post', CONNECTIONS_BASE_URL).send({ name: 'Missing host and username' }).expect(400);
    });

    it('should create a Prometheus-compatible connection', async () => {
      const response = await peer()
        .authRequest('post', CONNECTIONS_BASE_URL)
        .send({ name: 'Thanos', host: 'http://thanos:10902', username: '', password: '', isPrometheusEndpoint: true })
        .expect(200);

      expect(response.body.data).toMatchObject({ name: 'Thanos', host: 'http://thanos:10902', isPrometheusEndpoint: true });
    });

    it('should require authentication', async () => {
      await peer().anonymous.post(CONNECTIONS_BASE_URL).send(MOCK_CONNECTION).expect(401);
    });
  });

  describe('PUT /api/v2/connections/:id', () => {
    it('should update a connection', async () => {
      const connection = await createConnection();

      const response = await peer()
        .authRequest('put', `${CONNECTIONS_BASE_URL}/${connection.id}`)
        .send({ name: 'Updated Connection', host: 'https://clickhouse-updated.example.com:8443', username: 'updated-user' })
        .expect(200);

      expect(response.body.data).toMatchObject({
        id: connection.id,
        name: 'Updated Connection',
        host: 'https://clickhouse-updated.example.com:8443',
        username: 'updated-user',
      });
      expect(response.body.data).not.toHaveProperty('password');
    });

    it('should keep the existing password when omitted', async () => {
      const connection = await createConnection();

      await peer()
        .authRequest('put', `${CONNECTIONS_BASE_URL}/${connection.id}`)
        .send({ name: 'Updated Connection', host: MOCK_CONNECTION.host, username: MOCK_CONNECTION.username })
        .expect(200);

      expect(peer().stored('connections', connection.id)?.password).toBe(MOCK_CONNECTION.password);
    });

    it('should update the password when provided', async () => {
      const connection = await createConnection();

      await peer()
        .authRequest('put', `${CONNECTIONS_BASE_URL}/${connection.id}`)
        .send({ ...MOCK_CONNECTION, password: 'new-password' })
        .expect(200);

      expect(peer().stored('connections', connection.id)?.password).toBe('new-password');
    });

    it('should clear hyperdxSettingPrefix when set to an empty string', async () => {
      const connection = await createConnection({ ...MOCK_CONNECTION, hyperdxSettingPrefix: 'hyperdx_' });

      await peer()
        .authRequest('put', `${CONNECTIONS_BASE_URL}/${connection.id}`)
        .send({ ...MOCK_CONNECTION, hyperdxSettingPrefix: '' })
        .expect(200);

      expect(peer().stored('connections', connection.id)?.hyperdxSettingPrefix).toBeUndefined();
    });

    it('should clear hyperdxSettingPrefix when set to null', async () => {
      const connection = await createConnection({ ...MOCK_CONNECTION, hyperdxSettingPrefix: 'hyperdx_' });

      await peer()
        .authRequest('put', `${CONNECTIONS_BASE_URL}/${connection.id}`)
        .send({ ...MOCK_CONNECTION, hyperdxSettingPrefix: null })
        .expect(200);

      expect(peer().stored('connections', connection.id)?.hyperdxSettingPrefix).toBeUndefined();
    });

    it('should toggle isPrometheusEndpoint', async () => {
      const connection = await createConnection();

      await peer()
        .authRequest('put', `${CONNECTIONS_BASE_URL}/${connection.id}`)
        .send({ ...MOCK_CONNECTION, host: 'http://thanos:10902', isPrometheusEndpoint: true })
        .expect(200);

      const stored = peer().stored('connections', connection.id);
      expect(stored?.host).toBe('http://thanos:10902');
      expect(stored?.isPrometheusEndpoint).toBe(true);
    });

    it('should keep hyperdxSettingPrefix unchanged when omitted', async () => {
      const connection = await createConnection({ ...MOCK_CONNECTION, hyperdxSettingPrefix: 'hyperdx_' });

      await peer()
        .authRequest('put', `${CONNECTIONS_BASE_URL}/${connection.id}`)
        .send({ name: 'Updated Connection', host: MOCK_CONNECTION.host, username: MOCK_CONNECTION.username })
        .expect(200);

      expect(peer().stored('connections', connection.id)?.hyperdxSettingPrefix).toBe('hyperdx_');
    });

    it('should return 404 for a non-existent connection', async () => {
      await peer().authRequest('put', `${CONNECTIONS_BASE_URL}/${newObjectId()}`).send(MOCK_CONNECTION).expect(404);
    });

    it('should return 404 for a connection belonging to another team', async () => {
      const otherTeamConnection = await createOtherTeamConnection();

      await peer().authRequest('put', `${CONNECTIONS_BASE_URL}/${otherTeamConnection.id}`).send(MOCK_CONNECTION).expect(404);
    });

    it('should reject a request with missing required fields', async () => {
      const connection = await createConnection();

      await peer().authRequest('put', `${CONNECTIONS_BASE_URL}/${connection.id}`).send({ name: 'Missing host and username' }).expect(400);
    });

    it('should require authentication', async () => {
      await peer().anonymous.put(`${CONNECTIONS_BASE_URL}/${newObjectId()}`).send(MOCK_CONNECTION).expect(401);
    });
  });

  describe('DELETE /api/v2/connections/:id', () => {
    it('should delete a connection', async () => {
      const connection = await createConnection();

      await peer().authRequest('delete', `${CONNECTIONS_BASE_URL}/${connection.id}`).expect(200);

      expect(peer().stored('connections', connection.id)).toBeUndefined();
    });

    it('should return 404 for a non-existent connection', async () => {
      await peer().authRequest('delete', `${CONNECTIONS_BASE_URL}/${newObjectId()}`).expect(404);
    });

    it('should not delete a connection belonging to another team', async () => {
      const otherTeamConnection = await createOtherTeamConnection();

      await peer().authRequest('delete', `${CONNECTIONS_BASE_URL}/${otherTeamConnection.id}`).expect(404);

      await peer().otherTeam.get(`${CONNECTIONS_BASE_URL}/${otherTeamConnection.id}`).expect(200);
    });

    it('should require authentication', async () => {
      await peer().anonymous.delete(`${CONNECTIONS_BASE_URL}/${newObjectId()}`).expect(401);
    });
  });
});
