/**
 * Port of hyperdx `packages/api/src/routers/external-api/__tests__/sources.int.test.ts`
 * (b52a6fa8). Sources the real tests insert with the models are created with POST (so the
 * sandbox's output is compared with the real server's for the same stored fields). The mapping
 * unit cases run against the sandbox's own mapping functions.
 */
import { describe, expect, it } from 'vitest';
import { granularityToExternal, granularityToInternal } from '../../../src/sandbox/domain/source-schema.js';
import { DEFAULT_DATABASE, DEFAULT_LOGS_TABLE, fixtures, usePeer } from './support.js';

const BASE_URL = '/api/v2/sources';
const peer = usePeer();

let connection: { id: string };
const setup = async () => {
  connection = await fixtures(peer().agent).connection();
};
const create = async (body: Record<string, unknown>) =>
  (
    await peer()
      .authRequest('post', BASE_URL)
      .send({ connection: connection.id, ...body })
      .expect(200)
  ).body.data as { id: string };

const logBody = (name: string) => ({
  kind: 'log',
  name,
  from: { databaseName: DEFAULT_DATABASE, tableName: DEFAULT_LOGS_TABLE },
  timestampValueExpression: 'Timestamp',
  defaultTableSelectExpression: '*',
});

const traceBody = (name: string) => ({
  kind: 'trace',
  name,
  from: { databaseName: DEFAULT_DATABASE, tableName: 'otel_traces' },
  timestampValueExpression: 'Timestamp',
  defaultTableSelectExpression: '*',
  durationExpression: 'Duration',
  durationPrecision: 3,
  traceIdExpression: 'TraceId',
  spanIdExpression: 'SpanId',
  parentSpanIdExpression: 'ParentSpanId',
  spanNameExpression: 'SpanName',
  spanKindExpression: 'SpanKind',
});

describe('sources.int.test.ts > External API v2 Sources', () => {
  describe('GET /api/v2/sources', () => {
    it('should return 401 when user is not authenticated', async () => {
      await peer().anonymous.get(BASE_URL).expect(401);
    });

    it('should return empty array when no sources exist', async () => {
      const response = await peer().authRequest('get', BASE_URL).expect(200);

      expect(response.body).toHaveProperty('data');
      expect(response.body.data).toEqual([]);
    });

    it('should return a single log source', async () => {
      await setup();
      const logSource = await create(logBody('Test Log Source'));

      const response = await peer().authRequest('get', BASE_URL).expect(200);

      expect(response.body.data).toHaveLength(1);
      expect(response.body.data[0]).toEqual({
        id: logSource.id,
        name: 'Test Log Source',
        kind: 'log',
        connection: connection.id,
        disabled: false,
        from: { databaseName: DEFAULT_DATABASE, tableName: DEFAULT_LOGS_TABLE },
        timestampValueExpression: 'Timestamp',
        defaultTableSelectExpression: '*',
        highlightedTraceAttributeExpressions: [],
        highlightedRowAttributeExpressions: [],
        materializedViews: [],
        querySettings: [],
      });
    });

    it('should return a single trace source', async () => {
      await setup();
      const mv = (tableName: string, minGranularity: string) => ({
        databaseName: DEFAULT_DATABASE,
        tableName,
        dimensionColumns: 'ServiceName',
        minGranularity,
        timestampColumn: 'Timestamp',
        aggregatedColumns: [{ mvColumn: 'count', aggFn: 'count' }],
      });
      const highlighted = {
        highlightedTraceAttributeExpressions: [
          { sqlExpression: "ResourceAttributes['ServiceName']", alias: 'ServiceName', luceneExpression: 'ResourceAttributes.ServiceName' },
        ],
        highlightedRowAttributeExpressions: [{ sqlExpression: 'TraceId', alias: 'trace_id', luceneExpression: 'TraceId' }],
      };
      const traceSource = await create({
        ...traceBody('Test Trace Source'),
        ...highlighted,
        // The real test stores the long form with the model; the API takes either form.
        materializedViews: [mv('traces_mv', '1 minute'), mv('traces_mv_15s', '15 second')],
        querySettings: [{ setting: 'max_execution_time', value: '30' }],
      });

      const response = await peer().authRequest('get', BASE_URL).expect(200);

      expect(response.body.data).toHaveLength(1);
      expect(response.body.data[0]).toEqual({
        id: traceSource.id,
        ...traceBody('Test Trace Source'),
        disabled: false,
        connection: connection.id,
        ...highlighted,
        materializedViews: [mv('traces_mv', '1m'), mv('traces_mv_15s', '15s')],
        querySettings: [{ setting: 'max_execution_time', value: '30' }],
      });
    });

    it('should return a single metric source', async () => {
      await setup();
      const metricSource = await create({
        kind: 'metric',
        name: 'Test Metric Source',
        from: { databaseName: DEFAULT_DATABASE, tableName: '' },
        metricTables: { gauge: 'otel_metrics_gauge', sum: 'otel_metrics_sum', histogram: 'otel_metrics_histogram' },
        timestampValueExpression: 'TimeUnix',
        resourceAttributesExpression: 'ResourceAttributes',
      });

      const response = await peer().authRequest('get', BASE_URL).expect(200);

      expect(response.body.data).toHaveLength(1);
      expect(response.body.data[0]).toEqual({
        id: metricSource.id,
        name: 'Test Metric Source',
        kind: 'metric',
        connection: connection.id,
        disabled: false,
        from: { databaseName: DEFAULT_DATABASE, tableName: '' },
        metricTables: { gauge: 'otel_metrics_gauge', sum: 'otel_metrics_sum', histogram: 'otel_metrics_histogram' },
        timestampValueExpression: 'TimeUnix',
        resourceAttributesExpression: 'ResourceAttributes',
        querySettings: [],
      });
    });

    it('should return a single session source', async () => {
      await setup();
      const traceSource = await create(traceBody('Trace Source for Session'));
      const sessionSource = await create({
        kind: 'session',
        name: 'Test Session Source',
        from: { databaseName: DEFAULT_DATABASE, tableName: 'rrweb_events' },
        timestampValueExpression: 'Timestamp',
        traceSourceId: traceSource.id,
      });

      const response = await peer().authRequest('get', BASE_URL).expect(200);

      expect(response.body.data).toHaveLength(2);

      const sessionData = response.body.data.find((s: { kind: string }) => s.kind === 'session');
      expect(sessionData).toEqual({
        id: sessionSource.id,
        name: 'Test Session Source',
        kind: 'session',
        connection: connection.id,
        disabled: false,
        from: { databaseName: DEFAULT_DATABASE, tableName: 'rrweb_events' },
        traceSourceId: traceSource.id,
        querySettings: [],
        timestampValueExpression: 'Timestamp',
      });
    });

    it('should return multiple sources of different kinds', async () => {
      await setup();
      const logSource = await create(logBody('Logs'));
      const traceSource = await create(traceBody('Traces'));
      const metricSource = await create({
        kind: 'metric',
        name: 'Metrics',
        from: { databaseName: DEFAULT_DATABASE, tableName: '' },
        metricTables: { gauge: 'otel_metrics_gauge' },
        timestampValueExpression: 'TimeUnix',
        resourceAttributesExpression: 'ResourceAttributes',
      });

      const response = await peer().authRequest('get', BASE_URL).expect(200);

      expect(response.body.data).toHaveLength(3);

      const kinds = response.body.data.map((s: { kind: string }) => s.kind);
      expect(kinds).toContain('log');
      expect(kinds).toContain('trace');
      expect(kinds).toContain('metric');

      const ids = response.body.data.map((s: { id: string }) => s.id);
      expect(ids).toContain(logSource.id);
      expect(ids).toContain(traceSource.id);
      expect(ids).toContain(metricSource.id);
    });

    it("should only return sources for the authenticated user's team", async () => {
      await setup();
      const currentTeamSource = await create(logBody('Current Team Source'));

      const otherConnection = await fixtures(peer().otherTeam).connection({ name: 'Other Team Connection' });
      await fixtures(peer().otherTeam).logSource(otherConnection.id, { name: 'Other Team Source', defaultTableSelectExpression: '*' });

      const response = await peer().authRequest('get', BASE_URL).expect(200);

      expect(response.body.data).toHaveLength(1);
      expect(response.body.data[0].id).toBe(currentTeamSource.id);
      expect(response.body.data[0].name).toBe('Current Team Source');
    });

    it('should format sources according to SourceSchema', async () => {
      await setup();
      await create(logBody('Test Source'));

      const response = await peer().authRequest('get', BASE_URL).expect(200);

      expect(response.body.data).toHaveLength(1);
      expect(response.body.data[0]).toHaveProperty('id');
      expect(response.body.data[0]).not.toHaveProperty('_id');
      expect(typeof response.body.data[0].id).toBe('string');
      expect(typeof response.body.data[0].connection).toBe('string');
      expect(response.body.data[0]).not.toHaveProperty('team');
    });

    describe('section field', () => {
      const SECTION = 'Control Plane Prod';

      it('returns the section on a source that has one', async () => {
        await setup();
        const logSource = await create({ ...logBody('Sectioned Log Source'), section: SECTION });

        const response = await peer().authRequest('get', BASE_URL).expect(200);

        expect(response.body.data).toHaveLength(1);
        expect(response.body.data[0]).toMatchObject({ id: logSource.id, section: SECTION });
      });

      it('omits the section on a source that has none', async () => {
        await setup();
        await create(logBody('Unsectioned Log Source'));

        const response = await peer().authRequest('get', BASE_URL).expect(200);

        expect(response.body.data).toHaveLength(1);
        expect(response.body.data[0]).not.toHaveProperty('section');
      });
    });
  });

  describe('backward compatibility with legacy flat-model documents', () => {
    it('returns Trace source with logSourceId: null (Zod optional accepts null)', async () => {
      // The real test inserts the row raw; the API accepts `logSourceId: null` as well.
      await setup();
      await create({ ...traceBody('Trace with null logSourceId'), logSourceId: null });

      const response = await peer().authRequest('get', BASE_URL).expect(200);

      expect(response.body.data).toHaveLength(1);
      expect(response.body.data[0].kind).toBe('trace');
      expect(response.body.data[0].logSourceId).toBeNull();
    });

    it('strips cross-kind fields from legacy flat-model Log source via SourceSchema.safeParse', async () => {
      // The real test inserts the row raw; a POST carrying the same cross-kind fields is stripped the same way.
      await setup();
      await create({
        ...logBody('Flat Model Log'),
        defaultTableSelectExpression: 'Body',
        metricTables: { gauge: 'otel_metrics_gauge' },
        durationExpression: 'Duration',
      });

      const response = await peer().authRequest('get', BASE_URL).expect(200);

      expect(response.body.data).toHaveLength(1);
      expect(response.body.data[0].kind).toBe('log');
      expect(response.body.data[0].defaultTableSelectExpression).toBe('Body');
      expect(response.body.data[0]).not.toHaveProperty('metricTables');
      expect(response.body.data[0]).not.toHaveProperty('durationExpression');
    });
  });
});

describe('sources.int.test.ts > External API v2 Sources Mapping', () => {
  describe('mapGranularityToExternalFormat', () => {
    it.each([
      ['1 second', '1s'],
      ['1 minute', '1m'],
      ['1 hour', '1h'],
      ['1 day', '1d'],
    ])('maps supported long-form granularity %s to %s', (input, expected) => {
      expect(granularityToExternal(input)).toBe(expected);
    });

    it.each([
      ['invalid', 'invalid'],
      ['1m', '1m'],
      ['2 minutes', '2 minutes'],
    ])('passes through unsupported or already-short granularity %s', (input, expected) => {
      expect(granularityToExternal(input)).toBe(expected);
    });
  });

  describe('mapGranularityToInternalFormat', () => {
    it.each([
      ['15s', '15 second'],
      ['5m', '5 minute'],
      ['2h', '2 hour'],
      ['1d', '1 day'],
    ])('maps supported short-form granularity %s to %s', (input, expected) => {
      expect(granularityToInternal(input)).toBe(expected);
    });

    it.each([
      ['invalid', 'invalid'],
      ['1 minute', '1 minute'],
      ['5min', '5min'],
    ])('passes through unsupported or already-long granularity %s', (input, expected) => {
      expect(granularityToInternal(input)).toBe(expected);
    });
  });
});
