/**
 * Port of hyperdx `packages/api/src/routers/external-api/__tests__/sources-crud.int.test.ts`
 * (b52a6fa8). Sources the real tests insert with `LogSource.create` are created with POST; the
 * other team's through its own key; reads of `Source.findById` read the sandbox's stored row.
 * The `validateConnectionId` unit cases are ported as the HTTP requests that reach it.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_DATABASE, DEFAULT_LOGS_TABLE, fixtures, newObjectId, usePeer } from './support.js';

const BASE_URL = '/api/v2/sources';
const peer = usePeer();

let connection: { id: string };
const setup = async () => {
  connection = await fixtures(peer().agent).connection();
};

const logSourceBody = () => ({
  kind: 'log',
  name: 'Created Log Source',
  from: { databaseName: DEFAULT_DATABASE, tableName: DEFAULT_LOGS_TABLE },
  timestampValueExpression: 'Timestamp',
  defaultTableSelectExpression: 'Timestamp, Body',
  connection: connection.id,
});

const traceSourceBody = () => ({
  kind: 'trace',
  name: 'Created Trace Source',
  defaultTableSelectExpression: 'Timestamp, SpanName',
  from: { databaseName: DEFAULT_DATABASE, tableName: 'otel_traces' },
  timestampValueExpression: 'Timestamp',
  durationExpression: 'Duration',
  durationPrecision: 3,
  traceIdExpression: 'TraceId',
  spanIdExpression: 'SpanId',
  parentSpanIdExpression: 'ParentSpanId',
  spanNameExpression: 'SpanName',
  spanKindExpression: 'SpanKind',
  connection: connection.id,
});

const createLogSource = async () =>
  (await peer().authRequest('post', BASE_URL).send(logSourceBody()).expect(200)).body.data as { id: string };
const createOtherTeamConnection = () => fixtures(peer().otherTeam).connection({ name: 'Other Team Connection' });
const createOtherTeamSource = async () => {
  const otherConnection = await createOtherTeamConnection();
  return fixtures(peer().otherTeam).logSource(otherConnection.id, { name: 'Other Team Source', defaultTableSelectExpression: '*' });
};

describe('sources-crud.int.test.ts > External API v2 Sources CRUD', () => {
  describe('GET /api/v2/sources/:id', () => {
    it('should return 401 when user is not authenticated', async () => {
      await peer().anonymous.get(`${BASE_URL}/${newObjectId()}`).expect(401);
    });

    it('should return a source by id', async () => {
      await setup();
      const logSource = await createLogSource();

      const response = await peer().authRequest('get', `${BASE_URL}/${logSource.id}`).expect(200);

      expect(response.body.data).toMatchObject({ id: logSource.id, name: 'Created Log Source', kind: 'log' });
    });

    it('should return 404 for a non-existent source', async () => {
      await peer().authRequest('get', `${BASE_URL}/${newObjectId()}`).expect(404);
    });

    it("should return 404 for another team's source", async () => {
      const otherTeamSource = await createOtherTeamSource();
      await peer().authRequest('get', `${BASE_URL}/${otherTeamSource.id}`).expect(404);
    });

    it('should return 400 for an invalid id', async () => {
      await peer().authRequest('get', `${BASE_URL}/not-an-object-id`).expect(400);
    });
  });

  describe('POST /api/v2/sources', () => {
    it('should return 401 when user is not authenticated', async () => {
      await setup();
      await peer().anonymous.post(BASE_URL).send(logSourceBody()).expect(401);
    });

    it('should create a log source', async () => {
      await setup();
      const response = await peer().authRequest('post', BASE_URL).send(logSourceBody()).expect(200);

      expect(response.body.data).toMatchObject({
        name: 'Created Log Source',
        kind: 'log',
        connection: connection.id,
        timestampValueExpression: 'Timestamp',
        defaultTableSelectExpression: 'Timestamp, Body',
      });
      expect(typeof response.body.data.id).toBe('string');

      expect(peer().stored('sources', response.body.data.id)).not.toBeUndefined();
    });

    it('should accept external short-form granularities and store internal format', async () => {
      await setup();
      const response = await peer()
        .authRequest('post', BASE_URL)
        .send({
          ...traceSourceBody(),
          materializedViews: [
            {
              databaseName: DEFAULT_DATABASE,
              tableName: 'traces_mv',
              dimensionColumns: 'ServiceName',
              minGranularity: '5m',
              timestampColumn: 'Timestamp',
              aggregatedColumns: [{ mvColumn: 'count', aggFn: 'count' }],
            },
          ],
        })
        .expect(200);

      expect(response.body.data.materializedViews[0].minGranularity).toBe('5m');

      expect(peer().stored('sources', response.body.data.id)?.materializedViews[0].minGranularity).toBe('5 minute');
    });

    it('should map metadataMaterializedViews granularity to internal format', async () => {
      await setup();
      const response = await peer()
        .authRequest('post', BASE_URL)
        .send({
          ...logSourceBody(),
          metadataMaterializedViews: {
            keyRollupTable: 'otel_logs_key_rollup_15m',
            kvRollupTable: 'otel_logs_kv_rollup_15m',
            granularity: '15m',
          },
        })
        .expect(200);

      expect(response.body.data.metadataMaterializedViews.granularity).toBe('15m');

      expect(peer().stored('sources', response.body.data.id)?.metadataMaterializedViews.granularity).toBe('15 minute');
    });

    it('should create a promql source', async () => {
      await setup();
      const response = await peer()
        .authRequest('post', BASE_URL)
        .send({
          kind: 'promql',
          name: 'Prometheus Metrics',
          from: { databaseName: 'default', tableName: 'default' },
          timestampValueExpression: 'timestamp',
          connection: connection.id,
        })
        .expect(200);

      expect(response.body.data).toMatchObject({ kind: 'promql', name: 'Prometheus Metrics' });

      expect(peer().stored('sources', response.body.data.id)?.kind).toBe('promql');
    });

    it('should return 400 when connection is not a valid id', async () => {
      await setup();
      await peer()
        .authRequest('post', BASE_URL)
        .send({ ...logSourceBody(), connection: 'my-connection-name' })
        .expect(400);
    });

    it('should return 400 when connection belongs to another team', async () => {
      await setup();
      const otherConnection = await createOtherTeamConnection();

      await peer()
        .authRequest('post', BASE_URL)
        .send({ ...logSourceBody(), connection: otherConnection.id })
        .expect(400);

      expect(peer().storedAll('sources')).toEqual([]);
    });

    it('should return 400 for an invalid body', async () => {
      await peer().authRequest('post', BASE_URL).send({ kind: 'log', name: 'Missing required fields' }).expect(400);
    });
  });

  describe('PUT /api/v2/sources/:id', () => {
    it('should return 401 when user is not authenticated', async () => {
      await setup();
      await peer().anonymous.put(`${BASE_URL}/${newObjectId()}`).send(logSourceBody()).expect(401);
    });

    it('should update a source', async () => {
      await setup();
      const logSource = await createLogSource();

      const response = await peer()
        .authRequest('put', `${BASE_URL}/${logSource.id}`)
        .send({ ...logSourceBody(), name: 'Updated Log Source' })
        .expect(200);

      expect(response.body.data).toMatchObject({ id: logSource.id, name: 'Updated Log Source' });

      expect(peer().stored('sources', logSource.id)?.name).toBe('Updated Log Source');
    });

    it('should return 404 for a non-existent source', async () => {
      await setup();
      await peer().authRequest('put', `${BASE_URL}/${newObjectId()}`).send(logSourceBody()).expect(404);
    });

    it("should return 404 for another team's source", async () => {
      await setup();
      const otherTeamSource = await createOtherTeamSource();

      await peer()
        .authRequest('put', `${BASE_URL}/${otherTeamSource.id}`)
        .send({ ...logSourceBody(), name: 'Hijacked' })
        .expect(404);

      const persisted = await peer().otherTeam.get(`${BASE_URL}/${otherTeamSource.id}`).expect(200);
      expect(persisted.body.data.name).toBe('Other Team Source');
    });

    it('should return 400 for an invalid body', async () => {
      await setup();
      const logSource = await createLogSource();

      await peer().authRequest('put', `${BASE_URL}/${logSource.id}`).send({ kind: 'log', name: 'Missing required fields' }).expect(400);
    });

    it('should return 400 when connection is not a valid id', async () => {
      await setup();
      const logSource = await createLogSource();

      await peer()
        .authRequest('put', `${BASE_URL}/${logSource.id}`)
        .send({ ...logSourceBody(), connection: 'my-connection-name' })
        .expect(400);
    });

    it('should return 400 when connection belongs to another team', async () => {
      await setup();
      const logSource = await createLogSource();
      const otherConnection = await createOtherTeamConnection();

      await peer()
        .authRequest('put', `${BASE_URL}/${logSource.id}`)
        .send({ ...logSourceBody(), connection: otherConnection.id })
        .expect(400);

      expect(peer().stored('sources', logSource.id)?.connection).toBe(connection.id);
    });

    it('should preserve createdAt on a same-kind update', async () => {
      await setup();
      const logSource = await createLogSource();
      const originalCreatedAt = peer().stored('sources', logSource.id)?.createdAt;
      expect(typeof originalCreatedAt).toBe('string');

      await peer()
        .authRequest('put', `${BASE_URL}/${logSource.id}`)
        .send({ ...logSourceBody(), name: 'Updated Log Source' })
        .expect(200);

      expect(peer().stored('sources', logSource.id)?.createdAt).toEqual(originalCreatedAt);
    });

    it("should change a source's kind", async () => {
      await setup();
      const logSource = await createLogSource();
      const originalCreatedAt = peer().stored('sources', logSource.id)?.createdAt;
      expect(typeof originalCreatedAt).toBe('string');

      const response = await peer()
        .authRequest('put', `${BASE_URL}/${logSource.id}`)
        .send({ ...traceSourceBody(), name: 'Now A Trace Source' })
        .expect(200);

      expect(response.body.data).toMatchObject({ id: logSource.id, kind: 'trace', name: 'Now A Trace Source' });

      const raw = peer().stored('sources', logSource.id);
      expect(raw?.kind).toBe('trace');
      expect(raw?.createdAt).toEqual(originalCreatedAt);
      expect(raw?.connection).toBe(connection.id);
    });
  });

  describe('DELETE /api/v2/sources/:id', () => {
    it('should return 401 when user is not authenticated', async () => {
      await peer().anonymous.delete(`${BASE_URL}/${newObjectId()}`).expect(401);
    });

    it('should delete a source', async () => {
      await setup();
      const logSource = await createLogSource();

      await peer().authRequest('delete', `${BASE_URL}/${logSource.id}`).expect(200);

      expect(peer().stored('sources', logSource.id)).toBeUndefined();
    });

    it('should return 404 for a non-existent source', async () => {
      await peer().authRequest('delete', `${BASE_URL}/${newObjectId()}`).expect(404);
    });

    it("should return 404 for another team's source and leave it intact", async () => {
      const otherTeamSource = await createOtherTeamSource();

      await peer().authRequest('delete', `${BASE_URL}/${otherTeamSource.id}`).expect(404);

      await peer().otherTeam.get(`${BASE_URL}/${otherTeamSource.id}`).expect(200);
    });
  });

  describe('validateConnectionId', () => {
    it('rejects a non-ObjectId connection with a 400', async () => {
      await setup();
      const res = await peer()
        .authRequest('post', BASE_URL)
        .send({ ...logSourceBody(), connection: 'my-connection-name' })
        .expect(400);
      expect(res.body).toEqual({ message: 'connection must be a valid connection id' });
    });

    it('rejects a connection belonging to another team with a 400', async () => {
      await setup();
      const otherConnection = await createOtherTeamConnection();
      const res = await peer()
        .authRequest('post', BASE_URL)
        .send({ ...logSourceBody(), connection: otherConnection.id })
        .expect(400);
      expect(res.body).toEqual({ message: 'connection must be an existing connection id' });
    });

    it('accepts a valid connection owned by the team', async () => {
      await setup();
      await peer().authRequest('post', BASE_URL).send(logSourceBody()).expect(200);
    });
  });
});
