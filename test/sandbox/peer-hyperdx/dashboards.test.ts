/**
 * Port of hyperdx `packages/api/src/routers/external-api/__tests__/dashboards.int.test.ts`
 * (b52a6fa8). The connection and sources the real tests insert with the models are created with
 * the API (a trace source needs its required expressions there); dashboards the real tests insert
 * with `new Dashboard(...).save()` are created with POST, and alerts with POST /alerts; the other
 * team is the sandbox's second team. Reads of `Dashboard.findById(...).lean()` read the sandbox's
 * stored row, which keeps the external field names (`where`, not the internal `aggCondition`).
 * Cases that need a stored document the API cannot write are in NOT-PORTABLE.md.
 */
import { describe, expect, it } from 'vitest';
import { BASE_URL, TEST_TAGS, newObjectId, useDashboardWorld } from './dashboards-support.js';
import { fixtures, omit } from './support.js';

const makeExternalChart = (opts?: { id?: string; sourceId?: string }) => ({
  name: 'Test Chart',
  x: 1,
  y: 1,
  w: 1,
  h: 1,
  series: [{ type: 'time', sourceId: opts?.sourceId ?? '68dd82484f54641b08667897', aggFn: 'count', where: '', groupBy: [] }],
});

const makeExternalTile = (opts?: { sourceId?: string }) => ({
  name: 'Test Chart',
  x: 1,
  y: 1,
  w: 1,
  h: 1,
  config: { displayType: 'line', sourceId: opts?.sourceId ?? '68dd82484f54641b08667897', select: [{ aggFn: 'count', where: '' }] },
});

describe('dashboards.int.test.ts > External API v2 Dashboards - old format', () => {
  const createMockDashboard = (sourceId: string, overrides = {}) => ({
    name: 'Test External Dashboard',
    tiles: [makeExternalChart({ sourceId }), makeExternalChart({ sourceId })],
    tags: TEST_TAGS,
    savedQuery: null,
    savedQueryLanguage: null,
    savedFilterValues: [],
    ...overrides,
  });

  const createMockDashboardWithIds = (sourceId: string, overrides = {}) => ({
    name: 'Test External Dashboard with IDs',
    tiles: [
      { ...makeExternalChart({ sourceId }), id: newObjectId() },
      { ...makeExternalChart({ sourceId }), id: newObjectId() },
    ],
    tags: TEST_TAGS,
    filters: [],
    savedQuery: null,
    savedQueryLanguage: null,
    savedFilterValues: [],
    ...overrides,
  });

  const createTimeSeriesChart = (sourceId: string) => ({
    name: 'Time Series Chart',
    x: 0,
    y: 0,
    w: 6,
    h: 3,
    id: newObjectId(),
    seriesReturnType: 'column',
    series: [{ type: 'time', sourceId, aggFn: 'count', where: '', groupBy: [] }],
  });

  const createTableChart = (sourceId: string) => ({
    name: 'Table Chart',
    x: 6,
    y: 0,
    w: 6,
    h: 3,
    id: newObjectId(),
    seriesReturnType: 'column',
    series: [{ type: 'table', sourceId, aggFn: 'count', where: '', groupBy: [], sortOrder: 'desc' }],
  });

  const createNumberChart = (sourceId: string) => ({
    name: 'Number Chart',
    x: 0,
    y: 3,
    w: 3,
    h: 3,
    id: newObjectId(),
    seriesReturnType: 'column',
    series: [{ type: 'number', sourceId, aggFn: 'count', where: '' }],
  });

  const createMarkdownChart = () => ({
    name: 'Markdown Chart',
    x: 3,
    y: 3,
    w: 3,
    h: 3,
    id: newObjectId(),
    seriesReturnType: 'column',
    series: [{ type: 'markdown', content: '# Test Markdown\nThis is a test' }],
  });

  const world = useDashboardWorld();
  const { authRequest, createTestDashboard } = world;
  const traceSource = () => world.traceSource();
  const metricSource = () => world.metricSource();

  const allOldFormatCharts = (withIds: boolean) => {
    const id = () => (withIds ? { id: newObjectId() } : {});
    const lineChart = {
      ...id(),
      name: 'Line Chart',
      x: 0,
      y: 0,
      w: 6,
      h: 3,
      asRatio: true,
      series: [
        {
          type: 'time',
          sourceId: traceSource()._id.toString(),
          aggFn: 'quantile',
          level: 0.95,
          field: 'Duration',
          alias: '95th Percentile Duration',
          where: "env = 'production'",
          whereLanguage: 'sql',
          groupBy: ['service.name', 'StatusCode'],
          numberFormat: { output: 'time', factor: 0.001, unit: 'ms' },
          displayType: 'line',
        },
        {
          type: 'time',
          sourceId: traceSource()._id.toString(),
          aggFn: 'quantile',
          level: 0.99,
          field: 'Duration',
          alias: '99th Percentile Duration',
          where: 'env:production',
          whereLanguage: 'lucene',
          groupBy: ['service.name', 'StatusCode'],
          numberFormat: { output: 'time', factor: 0.001, unit: 'ms' },
          displayType: 'line',
        },
      ],
    };
    const barChart = {
      ...id(),
      name: 'Bar Chart',
      x: 6,
      y: 0,
      w: 6,
      h: 3,
      asRatio: false,
      series: [
        {
          type: 'time',
          sourceId: metricSource()._id.toString(),
          aggFn: 'quantile',
          level: 0.95,
          field: '',
          metricName: 'ClickHouseAsyncMetrics_BlockWriteBytes_ram1',
          metricDataType: 'gauge',
          alias: '95th Percentile Duration',
          where: "env = 'production'",
          whereLanguage: 'sql',
          groupBy: [],
          numberFormat: { output: 'byte', decimalBytes: true, mantissa: 0 },
          displayType: 'stacked_bar',
        },
      ],
    };
    const tableNumberFormat = { output: 'percent', mantissa: 2, thousandSeparated: true, average: true };
    const tableChart = {
      ...id(),
      name: 'Table Chart',
      x: 12,
      y: 0,
      w: 6,
      h: 3,
      asRatio: false,
      series: [
        {
          type: 'table',
          sourceId: traceSource()._id.toString(),
          aggFn: 'quantile',
          level: 0.5,
          field: 'Duration',
          alias: 'Median Duration',
          where: "env = 'production'",
          whereLanguage: 'sql',
          groupBy: ['service.name'],
          sortOrder: 'desc',
          numberFormat: tableNumberFormat,
        },
        {
          type: 'table',
          sourceId: traceSource()._id.toString(),
          aggFn: 'quantile',
          level: 0.99,
          field: 'Duration',
          alias: '99th Percentile Duration',
          where: "env = 'production'",
          whereLanguage: 'sql',
          groupBy: ['service.name'],
          sortOrder: 'desc',
          numberFormat: tableNumberFormat,
        },
      ],
    };
    const numberChart = {
      ...id(),
      name: 'Number Chart',
      x: 18,
      y: 0,
      w: 6,
      h: 3,
      asRatio: false,
      series: [
        {
          type: 'number',
          sourceId: traceSource()._id.toString(),
          aggFn: 'quantile',
          level: 0.5,
          field: 'Duration',
          alias: '50th Percentile Duration',
          where: "env = 'production'",
          whereLanguage: 'sql',
          numberFormat: tableNumberFormat,
        },
      ],
    };
    const markdownChart = {
      ...id(),
      name: 'Markdown Chart',
      x: 0,
      y: 3,
      w: 6,
      h: 3,
      asRatio: false,
      series: [{ type: 'markdown', content: '# Markdown Content' }],
    };
    return [lineChart, barChart, tableChart, numberChart, markdownChart];
  };

  const allOldFormatExpected = () => [
    {
      name: 'Line Chart',
      x: 0,
      y: 0,
      w: 6,
      h: 3,
      config: {
        displayType: 'line',
        asRatio: true,
        fillNulls: true,
        sourceId: traceSource()._id.toString(),
        numberFormat: { output: 'time', factor: 0.001, unit: 'ms' },
        groupBy: 'service.name,StatusCode',
        select: [
          {
            aggFn: 'quantile',
            level: 0.95,
            valueExpression: 'Duration',
            alias: '95th Percentile Duration',
            where: "env = 'production'",
            whereLanguage: 'sql',
          },
          {
            aggFn: 'quantile',
            level: 0.99,
            valueExpression: 'Duration',
            alias: '99th Percentile Duration',
            where: 'env:production',
            whereLanguage: 'lucene',
          },
        ],
      },
    },
    {
      name: 'Bar Chart',
      x: 6,
      y: 0,
      w: 6,
      h: 3,
      config: {
        displayType: 'stacked_bar',
        asRatio: false,
        fillNulls: true,
        sourceId: metricSource()._id.toString(),
        numberFormat: { output: 'byte', decimalBytes: true, mantissa: 0 },
        select: [
          {
            aggFn: 'quantile',
            level: 0.95,
            valueExpression: '',
            metricName: 'ClickHouseAsyncMetrics_BlockWriteBytes_ram1',
            metricType: 'gauge',
            alias: '95th Percentile Duration',
            where: "env = 'production'",
            whereLanguage: 'sql',
          },
        ],
      },
    },
    {
      name: 'Table Chart',
      x: 12,
      y: 0,
      w: 6,
      h: 3,
      config: {
        displayType: 'table',
        asRatio: false,
        sourceId: traceSource()._id.toString(),
        select: [
          {
            aggFn: 'quantile',
            level: 0.5,
            valueExpression: 'Duration',
            alias: 'Median Duration',
            where: "env = 'production'",
            whereLanguage: 'sql',
          },
          {
            aggFn: 'quantile',
            level: 0.99,
            valueExpression: 'Duration',
            alias: '99th Percentile Duration',
            where: "env = 'production'",
            whereLanguage: 'sql',
          },
        ],
        groupBy: 'service.name',
        numberFormat: { output: 'percent', mantissa: 2, thousandSeparated: true, average: true },
      },
    },
    {
      name: 'Number Chart',
      x: 18,
      y: 0,
      w: 6,
      h: 3,
      config: {
        displayType: 'number',
        sourceId: traceSource()._id.toString(),
        select: [
          {
            aggFn: 'quantile',
            level: 0.5,
            valueExpression: 'Duration',
            alias: '50th Percentile Duration',
            where: "env = 'production'",
            whereLanguage: 'sql',
          },
        ],
        numberFormat: { output: 'percent', mantissa: 2, thousandSeparated: true, average: true },
      },
    },
    { name: 'Markdown Chart', x: 0, y: 3, w: 6, h: 3, config: { displayType: 'markdown', markdown: '# Markdown Content' } },
  ];

  describe('Response Format', () => {
    it('should return responses in the expected (new) format when creating the dashboard in the old format', async () => {
      const testDashboard = {
        name: 'Format Test Dashboard',
        tiles: [createTimeSeriesChart(traceSource()._id.toString()), createNumberChart(traceSource()._id.toString())],
        tags: ['format-test'],
      };

      const createResponse = await authRequest('post', BASE_URL).send(testDashboard).expect(200);

      expect(createResponse.headers['content-type']).toMatch(/application\/json/);
      expect(createResponse.body).toEqual({
        data: {
          id: expect.any(String),
          name: 'Format Test Dashboard',
          tiles: [
            {
              id: expect.any(String),
              name: 'Time Series Chart',
              x: 0,
              y: 0,
              w: 6,
              h: 3,
              config: {
                displayType: 'line',
                sourceId: traceSource()._id.toString(),
                select: [{ aggFn: 'count', where: '', whereLanguage: 'lucene', valueExpression: '' }],
                asRatio: false,
                fillNulls: true,
              },
            },
            {
              id: expect.any(String),
              name: 'Number Chart',
              x: 0,
              y: 3,
              w: 3,
              h: 3,
              config: {
                displayType: 'number',
                sourceId: traceSource()._id.toString(),
                select: [{ aggFn: 'count', where: '', whereLanguage: 'lucene', valueExpression: '' }],
              },
            },
          ],
          tags: ['format-test'],
          filters: [],
          savedQuery: null,
          savedQueryLanguage: null,
          savedFilterValues: [],
        },
      });

      const dashboardId = createResponse.body.data.id;
      const getResponse = await authRequest('get', `${BASE_URL}/${dashboardId}`).expect(200);

      expect(getResponse.headers['content-type']).toMatch(/application\/json/);
      expect(getResponse.body).toEqual({ data: createResponse.body.data });

      const listResponse = await authRequest('get', BASE_URL).expect(200);

      expect(listResponse.headers['content-type']).toMatch(/application\/json/);
      expect(listResponse.body).toHaveProperty('data');
      expect(Array.isArray(listResponse.body.data)).toBe(true);

      const deleteResponse = await authRequest('delete', `${BASE_URL}/${dashboardId}`).expect(200);

      expect(deleteResponse.body).toEqual({});
    });
  });

  describe('GET /', () => {
    it('should return all dashboards', async () => {
      await createTestDashboard({ name: 'Test Dashboard 1' });
      await createTestDashboard({ name: 'Test Dashboard 2' });

      const response = await authRequest('get', BASE_URL).expect(200);

      expect(response.body.data).toHaveLength(2);
      expect(response.body.data.map((d: { name: string }) => d.name)).toContain('Test Dashboard 1');
      expect(response.body.data.map((d: { name: string }) => d.name)).toContain('Test Dashboard 2');
      response.body.data.forEach((d: { filters: unknown }) => {
        expect(d).toHaveProperty('filters');
        expect(Array.isArray(d.filters)).toBe(true);
      });
    });

    it('should return empty array when no dashboards exist', async () => {
      const response = await authRequest('get', BASE_URL).expect(200);
      expect(response.body.data).toHaveLength(0);
    });
  });

  describe('POST /', () => {
    it('should create a new dashboard', async () => {
      const mockDashboard = createMockDashboard(traceSource()._id.toString());

      const response = await authRequest('post', BASE_URL).send(mockDashboard).expect(200);

      expect(response.body.data).toMatchObject({
        name: mockDashboard.name,
        tiles: expect.arrayContaining([expect.objectContaining({ name: 'Test Chart' }), expect.objectContaining({ name: 'Test Chart' })]),
        tags: mockDashboard.tags,
      });
      expect(response.body.data).toHaveProperty('filters');
      expect(response.body.data.filters).toEqual([]);

      const dashboards = world.peer().storedAll('dashboards');
      expect(dashboards).toHaveLength(1);
      expect(dashboards[0]?.name).toBe(mockDashboard.name);
      expect(dashboards[0]?.tiles).toHaveLength(2);
    });

    it('should create a dashboard with saved query defaults', async () => {
      const mockDashboard = createMockDashboard(traceSource()._id.toString(), {
        savedQuery: "service.name = 'api'",
        savedQueryLanguage: 'sql',
        savedFilterValues: [{ type: 'sql', condition: "ServiceName IN ('hdx-oss-dev-api')" }],
      });

      const response = await authRequest('post', BASE_URL).send(mockDashboard).expect(200);

      expect(response.body.data.savedQuery).toBe("service.name = 'api'");
      expect(response.body.data.savedQueryLanguage).toBe('sql');
      expect(response.body.data.savedFilterValues).toEqual([{ type: 'sql', condition: "ServiceName IN ('hdx-oss-dev-api')" }]);

      const dashboardInDb = world.peer().stored('dashboards', response.body.data.id);
      expect(dashboardInDb?.savedQuery).toBe("service.name = 'api'");
      expect(dashboardInDb?.savedQueryLanguage).toBe('sql');
      expect(dashboardInDb?.savedFilterValues).toEqual([{ type: 'sql', condition: "ServiceName IN ('hdx-oss-dev-api')" }]);
    });

    it('should default savedQueryLanguage to lucene when savedQuery is provided without a language', async () => {
      const mockDashboard = omit(createMockDashboard(traceSource()._id.toString(), { savedQuery: "service.name = 'api'" }), [
        'savedQueryLanguage',
      ]);

      const response = await authRequest('post', BASE_URL).send(mockDashboard).expect(200);

      expect(response.body.data.savedQuery).toBe("service.name = 'api'");
      expect(response.body.data.savedQueryLanguage).toBe('lucene');

      expect(world.peer().stored('dashboards', response.body.data.id)?.savedQueryLanguage).toBe('lucene');
    });

    it('should return 400 when savedQueryLanguage is null and savedQuery is provided', async () => {
      const mockDashboard = createMockDashboard(traceSource()._id.toString(), {
        savedQuery: "service.name = 'api'",
        savedQueryLanguage: null,
      });

      const response = await authRequest('post', BASE_URL).send(mockDashboard).expect(400);

      expect(response.body.message).toContain('savedQueryLanguage cannot be null when savedQuery is provided');
    });

    it('can create all chart types', async () => {
      const dashboardWithAllCharts = {
        name: 'Test Dashboard with All Chart Types',
        tiles: [
          createTimeSeriesChart(traceSource()._id.toString()),
          createTableChart(traceSource()._id.toString()),
          createNumberChart(traceSource()._id.toString()),
          createMarkdownChart(),
        ],
        tags: ['test', 'chart-types'],
      };

      const response = await authRequest('post', BASE_URL).send(dashboardWithAllCharts).expect(200);

      const { id } = response.body.data;
      expect(response.body.data).toHaveProperty('id');
      expect(response.body.data.tiles.length).toBe(4);

      const retrieveResponse = await authRequest('get', `${BASE_URL}/${id}`);

      expect(retrieveResponse.status).toBe(200);
      expect(retrieveResponse.body.data.tiles.length).toBe(4);
      expect(retrieveResponse.body.data.tags).toEqual(['test', 'chart-types']);
    });

    it('can create all supported chart types and all supported fields on each chart type', async () => {
      const response = await authRequest('post', BASE_URL)
        .send({ name: 'Dashboard with All Chart Types', tiles: allOldFormatCharts(false), tags: ['round-trip-test'] })
        .expect(200);

      const expected = allOldFormatExpected();
      for (const [i, tile] of expected.entries()) expect(omit(response.body.data.tiles[i], ['id'])).toEqual(tile);
    });

    it('should return 400 when source IDs do not exist', async () => {
      const nonExistentSourceId = newObjectId();
      const mockDashboard = createMockDashboard(nonExistentSourceId);

      const response = await authRequest('post', BASE_URL).send(mockDashboard).expect(400);

      expect(response.body).toEqual({ message: `Could not find the following source IDs: ${nonExistentSourceId}` });
    });

    it('should create a dashboard with filters', async () => {
      const dashboardPayload = {
        name: 'Dashboard with Filters',
        tiles: [makeExternalChart({ sourceId: traceSource()._id.toString() })],
        tags: TEST_TAGS,
        filters: [
          { type: 'QUERY_EXPRESSION', name: 'Environment', expression: 'environment', sourceId: traceSource()._id.toString() },
          {
            type: 'QUERY_EXPRESSION',
            name: 'Service Filter',
            expression: 'service_name',
            sourceId: traceSource()._id.toString(),
            sourceMetricType: undefined,
            appliesToSourceIds: [traceSource()._id.toString()],
          },
          {
            type: 'QUERY_EXPRESSION',
            name: 'Region (Filtered)',
            expression: 'region',
            sourceId: traceSource()._id.toString(),
            where: "environment = 'production'",
            whereLanguage: 'sql',
            appliesToSourceIds: [traceSource()._id.toString(), metricSource()._id.toString()],
          },
        ],
      };

      const response = await authRequest('post', BASE_URL).send(dashboardPayload).expect(200);

      expect(response.body.data.filters).toHaveLength(3);
      response.body.data.filters.forEach((f: { id: string }) => {
        expect(f).toHaveProperty('id');
        expect(typeof f.id).toBe('string');
        expect(f.id.length).toBeGreaterThan(0);
        expect(f).toMatchObject({
          type: 'QUERY_EXPRESSION',
          name: expect.any(String),
          expression: expect.any(String),
          sourceId: traceSource()._id.toString(),
        });
      });
      expect(response.body.data.filters[0].name).toBe('Environment');
      expect(response.body.data.filters[0].expression).toBe('environment');
      expect(response.body.data.filters[0].appliesToSourceIds).toBeUndefined();
      expect(response.body.data.filters[1].name).toBe('Service Filter');
      expect(response.body.data.filters[1].expression).toBe('service_name');
      expect(response.body.data.filters[1].appliesToSourceIds).toEqual([traceSource()._id.toString()]);
      expect(response.body.data.filters[2].name).toBe('Region (Filtered)');
      expect(response.body.data.filters[2].expression).toBe('region');
      expect(response.body.data.filters[2].where).toBe("environment = 'production'");
      expect(response.body.data.filters[2].whereLanguage).toBe('sql');
      expect(response.body.data.filters[2].appliesToSourceIds).toEqual([traceSource()._id.toString(), metricSource()._id.toString()]);

      const getResponse = await authRequest('get', `${BASE_URL}/${response.body.data.id}`).expect(200);
      expect(getResponse.body.data.filters).toHaveLength(3);
      expect(getResponse.body.data.filters).toEqual(response.body.data.filters);
    });

    it('should return 400 when filter source ID does not exist', async () => {
      const nonExistentSourceId = newObjectId();
      const dashboardPayload = {
        name: 'Dashboard with Bad Filter Source',
        tiles: [makeExternalChart({ sourceId: traceSource()._id.toString() })],
        tags: TEST_TAGS,
        filters: [{ type: 'QUERY_EXPRESSION', name: 'Bad Source Filter', expression: 'environment', sourceId: nonExistentSourceId }],
      };

      const response = await authRequest('post', BASE_URL).send(dashboardPayload).expect(400);

      expect(response.body).toEqual({ message: `Could not find the following source IDs: ${nonExistentSourceId}` });
    });

    it('should return 400 when create filter includes id', async () => {
      const dashboardPayload = {
        name: 'Dashboard with Invalid Filter ID',
        tiles: [makeExternalChart({ sourceId: traceSource()._id.toString() })],
        tags: TEST_TAGS,
        filters: [
          {
            id: newObjectId(),
            type: 'QUERY_EXPRESSION',
            name: 'Filter with ID',
            expression: 'environment',
            sourceId: traceSource()._id.toString(),
          },
        ],
      };

      await authRequest('post', BASE_URL).send(dashboardPayload).expect(400);
    });
  });

  describe('PUT /:id', () => {
    it('should update an existing dashboard', async () => {
      const dashboard = await createTestDashboard();
      const updatedDashboard = createMockDashboardWithIds(traceSource()._id.toString(), { name: 'Updated Dashboard Name' });

      const response = await authRequest('put', `${BASE_URL}/${dashboard._id}`).send(updatedDashboard).expect(200);

      expect(response.body.data).toMatchObject({
        id: dashboard._id.toString(),
        name: 'Updated Dashboard Name',
        tiles: expect.arrayContaining([expect.objectContaining({ name: 'Test Chart' }), expect.objectContaining({ name: 'Test Chart' })]),
      });
      expect(response.body.data).toHaveProperty('filters');
      expect(Array.isArray(response.body.data.filters)).toBe(true);

      const updatedDashboardInDb = world.peer().stored('dashboards', dashboard._id);
      expect(updatedDashboardInDb?.name).toBe('Updated Dashboard Name');
      expect(updatedDashboardInDb?.tiles).toHaveLength(2);
    });

    it('should update and clear saved query defaults', async () => {
      // The real test stores a lucene saved filter value with the model; the API only takes sql ones.
      const dashboard = await createTestDashboard({
        savedQuery: 'service:api',
        savedQueryLanguage: 'lucene',
        savedFilterValues: [{ type: 'sql', condition: "env = 'prod'" }],
      });
      const updatedDashboard = createMockDashboardWithIds(traceSource()._id.toString());

      const response = await authRequest('put', `${BASE_URL}/${dashboard._id}`).send(updatedDashboard).expect(200);

      expect(response.body.data.savedQuery).toBeNull();
      expect(response.body.data.savedQueryLanguage).toBeNull();
      expect(response.body.data.savedFilterValues).toEqual([]);

      const updatedDashboardInDb = world.peer().stored('dashboards', dashboard._id);
      expect(updatedDashboardInDb?.savedQuery).toBeNull();
      expect(updatedDashboardInDb?.savedQueryLanguage).toBeNull();
      expect(updatedDashboardInDb?.savedFilterValues).toEqual([]);
    });

    it('should return 400 when savedQueryLanguage is null and savedQuery is provided on update', async () => {
      const dashboard = await createTestDashboard();
      const updatedDashboard = createMockDashboardWithIds(traceSource()._id.toString(), {
        savedQuery: "service.name = 'api'",
        savedQueryLanguage: null,
      });

      const response = await authRequest('put', `${BASE_URL}/${dashboard._id}`).send(updatedDashboard).expect(400);

      expect(response.body.message).toContain('savedQueryLanguage cannot be null when savedQuery is provided');
    });

    it('should update dashboard filters when provided', async () => {
      const dashboard = await createTestDashboard();
      const updatedPayload = createMockDashboardWithIds(traceSource()._id.toString(), {
        name: 'Dashboard with Filters',
        filters: [
          {
            id: newObjectId(),
            type: 'QUERY_EXPRESSION',
            name: 'Updated Filter 1',
            expression: 'environment',
            sourceId: traceSource()._id.toString(),
          },
          {
            id: newObjectId(),
            type: 'QUERY_EXPRESSION',
            name: 'Updated Filter 2',
            expression: 'service_name',
            sourceId: traceSource()._id.toString(),
            appliesToSourceIds: [traceSource()._id.toString(), metricSource()._id.toString()],
          },
        ],
      });

      const response = await authRequest('put', `${BASE_URL}/${dashboard._id}`).send(updatedPayload).expect(200);

      expect(response.body.data.filters).toHaveLength(2);
      expect(response.body.data.filters[0]).toMatchObject({
        id: expect.any(String),
        type: 'QUERY_EXPRESSION',
        name: 'Updated Filter 1',
        expression: 'environment',
        sourceId: traceSource()._id.toString(),
      });
      expect(response.body.data.filters[0].appliesToSourceIds).toBeUndefined();
      expect(response.body.data.filters[1]).toMatchObject({
        id: expect.any(String),
        type: 'QUERY_EXPRESSION',
        name: 'Updated Filter 2',
        expression: 'service_name',
        sourceId: traceSource()._id.toString(),
      });
      expect(response.body.data.filters[1].appliesToSourceIds).toEqual([traceSource()._id.toString(), metricSource()._id.toString()]);

      const getResponse = await authRequest('get', `${BASE_URL}/${dashboard._id}`).expect(200);
      expect(getResponse.body.data.filters).toEqual(response.body.data.filters);
    });

    it('should preserve existing dashboard filters when filters are not provided', async () => {
      // The real test stores the filters with the model (choosing their ids); POST assigns them.
      const dashboard = await createTestDashboard({
        filters: [
          {
            type: 'QUERY_EXPRESSION',
            name: 'Existing Filter 1',
            expression: 'environment',
            sourceId: traceSource()._id.toString(),
            appliesToSourceIds: [traceSource()._id.toString()],
          },
          { type: 'QUERY_EXPRESSION', name: 'Existing Filter 2', expression: 'service_name', sourceId: traceSource()._id.toString() },
        ],
      });
      const existingFilters = dashboard.filters as Record<string, unknown>[];
      const updatedPayload = createMockDashboardWithIds(traceSource()._id.toString(), { name: 'Dashboard Name Updated Without Filters' });

      const response = await authRequest('put', `${BASE_URL}/${dashboard._id}`)
        .send(omit(updatedPayload, ['filters']))
        .expect(200);

      expect(response.body.data.name).toBe('Dashboard Name Updated Without Filters');
      expect(response.body.data.filters).toHaveLength(2);
      expect(response.body.data.filters[0]).toMatchObject(existingFilters[0] ?? {});
      expect(response.body.data.filters[1]).toMatchObject(existingFilters[1] ?? {});

      const getResponse = await authRequest('get', `${BASE_URL}/${dashboard._id}`).expect(200);
      expect(getResponse.body.data.filters).toHaveLength(2);
      expect(getResponse.body.data.filters[0]).toMatchObject(existingFilters[0] ?? {});
      expect(getResponse.body.data.filters[1]).toMatchObject(existingFilters[1] ?? {});
    });

    it('should clear existing dashboard filters when provided an empty filters array', async () => {
      const dashboard = await createTestDashboard({
        filters: [
          { type: 'QUERY_EXPRESSION', name: 'Existing Filter 1', expression: 'environment', sourceId: traceSource()._id.toString() },
          { type: 'QUERY_EXPRESSION', name: 'Existing Filter 2', expression: 'service_name', sourceId: traceSource()._id.toString() },
        ],
      });
      const updatedPayload = createMockDashboardWithIds(traceSource()._id.toString(), {
        name: 'Dashboard Name Updated With Empty Filters',
        filters: [],
      });

      const response = await authRequest('put', `${BASE_URL}/${dashboard._id}`).send(updatedPayload).expect(200);

      expect(response.body.data.name).toBe('Dashboard Name Updated With Empty Filters');
      expect(response.body.data.filters).toEqual([]);

      const getResponse = await authRequest('get', `${BASE_URL}/${dashboard._id}`).expect(200);
      expect(getResponse.body.data.filters).toEqual([]);
    });

    it('should return 400 when filter source ID does not exist on update', async () => {
      const dashboard = await createTestDashboard();
      const nonExistentSourceId = newObjectId();
      const updatedPayload = createMockDashboardWithIds(traceSource()._id.toString(), {
        name: 'Updated Name',
        filters: [
          {
            id: newObjectId(),
            type: 'QUERY_EXPRESSION',
            name: 'Bad Source Filter',
            expression: 'environment',
            sourceId: nonExistentSourceId,
          },
        ],
      });

      const response = await authRequest('put', `${BASE_URL}/${dashboard._id}`).send(updatedPayload).expect(400);

      expect(response.body).toEqual({ message: `Could not find the following source IDs: ${nonExistentSourceId}` });
    });

    it('should return 404 when dashboard does not exist', async () => {
      const mockDashboard = createMockDashboardWithIds(traceSource()._id.toString());

      await authRequest('put', `${BASE_URL}/${newObjectId()}`).send(mockDashboard).expect(404);
    });

    it('should preserve tile IDs that match existing tiles and generate new IDs for unrecognized tiles', async () => {
      const dashboard = await createTestDashboard();
      const sourceId = traceSource()._id.toString();

      const firstResponse = await authRequest('put', `${BASE_URL}/${dashboard._id}`)
        .send({ name: 'Initial', tiles: [createTimeSeriesChart(sourceId)], tags: [] })
        .expect(200);
      const existingTileId = firstResponse.body.data.tiles[0].id;

      const unknownTileId = newObjectId();
      const response = await authRequest('put', `${BASE_URL}/${dashboard._id}`)
        .send({
          name: 'Updated',
          tiles: [
            { ...createTimeSeriesChart(sourceId), id: existingTileId },
            { ...createTimeSeriesChart(sourceId), id: unknownTileId, x: 6 },
          ],
          tags: [],
        })
        .expect(200);

      expect(response.body.data.tiles[0].id).toBe(existingTileId);
      expect(response.body.data.tiles[1].id).not.toBe(unknownTileId);
      expect(typeof response.body.data.tiles[1].id).toBe('string');
      expect(response.body.data.tiles[1].id.length).toBeGreaterThan(0);
    });

    it('should preserve filter IDs that match existing filters and generate new IDs for unrecognized filters', async () => {
      const dashboard = await createTestDashboard();
      const sourceId = traceSource()._id.toString();

      const firstResponse = await authRequest('put', `${BASE_URL}/${dashboard._id}`)
        .send({
          name: 'Initial',
          tiles: [createTimeSeriesChart(sourceId)],
          tags: [],
          filters: [{ id: newObjectId(), type: 'QUERY_EXPRESSION', name: 'Environment', expression: 'environment', sourceId }],
        })
        .expect(200);
      const existingFilterId = firstResponse.body.data.filters[0].id;

      const unknownFilterId = newObjectId();
      const response = await authRequest('put', `${BASE_URL}/${dashboard._id}`)
        .send({
          name: 'Updated',
          tiles: [createTimeSeriesChart(sourceId)],
          tags: [],
          filters: [
            { id: existingFilterId, type: 'QUERY_EXPRESSION', name: 'Environment', expression: 'environment', sourceId },
            { id: unknownFilterId, type: 'QUERY_EXPRESSION', name: 'Service', expression: 'service_name', sourceId },
          ],
        })
        .expect(200);

      expect(response.body.data.filters[0].id).toBe(existingFilterId);
      expect(response.body.data.filters[1].id).not.toBe(unknownFilterId);
      expect(typeof response.body.data.filters[1].id).toBe('string');
      expect(response.body.data.filters[1].id.length).toBeGreaterThan(0);
    });

    it('can update all supported chart types and all supported fields on each chart type', async () => {
      const initialDashboard = await createTestDashboard();

      const response = await authRequest('put', `${BASE_URL}/${initialDashboard._id}`)
        .send({ name: 'Dashboard with All Chart Types', tiles: allOldFormatCharts(true), tags: ['round-trip-test'] })
        .expect(200);

      const expected = allOldFormatExpected();
      for (const [i, tile] of expected.entries()) expect(omit(response.body.data.tiles[i], ['id'])).toEqual(tile);
    });

    it('should return 400 when source IDs do not exist', async () => {
      const dashboard = await createTestDashboard();
      const nonExistentSourceId = newObjectId();
      const updatedDashboard = createMockDashboardWithIds(nonExistentSourceId, { name: 'Updated Dashboard Name' });

      const response = await authRequest('put', `${BASE_URL}/${dashboard._id}`).send(updatedDashboard).expect(400);

      expect(response.body).toEqual({ message: `Could not find the following source IDs: ${nonExistentSourceId}` });
    });
  });
});

describe('dashboards.int.test.ts > External API v2 Dashboards - new format', () => {
  const createMockDashboard = (sourceId: string, overrides = {}) => ({
    name: 'Test External Dashboard',
    tiles: [makeExternalTile({ sourceId }), makeExternalTile({ sourceId })],
    tags: TEST_TAGS,
    ...overrides,
  });

  const createMockDashboardWithIds = (sourceId: string, overrides = {}) => ({
    name: 'Test External Dashboard with IDs',
    tiles: [
      { ...makeExternalTile({ sourceId }), id: newObjectId() },
      { ...makeExternalTile({ sourceId }), id: newObjectId() },
    ],
    tags: TEST_TAGS,
    filters: [],
    ...overrides,
  });

  const createTimeSeriesChart = (sourceId: string) => ({
    id: newObjectId(),
    name: 'Time Series Chart',
    x: 0,
    y: 0,
    w: 6,
    h: 3,
    config: { displayType: 'line', sourceId, select: [{ aggFn: 'count', where: '' }] },
  });

  const createTableChart = (sourceId: string) => ({
    name: 'Table Chart',
    x: 6,
    y: 0,
    w: 6,
    h: 3,
    id: newObjectId(),
    config: { displayType: 'table', sourceId, select: [{ aggFn: 'count', where: '' }] },
  });

  const createNumberChart = (sourceId: string) => ({
    name: 'Number Chart',
    x: 0,
    y: 3,
    w: 3,
    h: 3,
    id: newObjectId(),
    config: { displayType: 'number', sourceId, select: [{ aggFn: 'count', where: '' }] },
  });

  const createMarkdownChart = () => ({
    name: 'Markdown Chart',
    x: 3,
    y: 3,
    w: 3,
    h: 3,
    id: newObjectId(),
    config: { displayType: 'markdown', markdown: '# Test Markdown\nThis is a test' },
  });

  const createPieChart = (sourceId: string) => ({
    name: 'Pie Chart',
    x: 6,
    y: 3,
    w: 3,
    h: 3,
    id: newObjectId(),
    config: { displayType: 'pie', sourceId, select: [{ aggFn: 'count', where: '' }], groupBy: 'service.name' },
  });

  const createBarChart = (sourceId: string) => ({
    name: 'Bar Chart',
    x: 9,
    y: 3,
    w: 3,
    h: 3,
    id: newObjectId(),
    config: { displayType: 'bar', sourceId, select: [{ aggFn: 'count', where: '' }], groupBy: 'service.name' },
  });

  const world = useDashboardWorld();
  const { authRequest, createTestDashboard } = world;
  const traceSource = () => world.traceSource();
  const metricSource = () => world.metricSource();
  const connection = () => world.connection();

  /** The builder tiles of the two "round-trip all supported chart types" cases (POST has pie and bar too; PUT differs in a few values). */
  const allBuilderTiles = (variant: 'post' | 'put') => {
    const put = variant === 'put';
    const id = () => (put ? { id: newObjectId() } : {});
    const trace = traceSource()._id.toString();
    const median = {
      aggFn: 'quantile',
      level: 0.5,
      valueExpression: 'Duration',
      alias: 'Median Duration',
      where: "env = 'production'",
      whereLanguage: 'sql',
    };
    const pieChart = {
      name: 'Pie Chart',
      x: 6,
      y: 3,
      w: 6,
      h: 3,
      config: {
        displayType: 'pie',
        sourceId: trace,
        select: [median],
        groupBy: 'service.name',
        orderBy: '"Median Duration" ASC',
        numberFormat: { output: 'number', mantissa: 2 },
        limit: 5,
      },
    };
    const categoricalBarChart = {
      name: 'Categorical Bar Chart',
      x: 12,
      y: 6,
      w: 6,
      h: 3,
      config: {
        displayType: 'bar',
        sourceId: trace,
        select: [median],
        groupBy: 'service.name',
        orderBy: '"Median Duration" ASC',
        numberFormat: { output: 'number', mantissa: 2 },
        limit: 5,
      },
    };
    const lineChart = {
      ...id(),
      name: 'Line Chart',
      x: 0,
      y: 0,
      w: 6,
      h: 3,
      config: {
        displayType: 'line',
        asRatio: true,
        fillNulls: true,
        fitYAxisToData: true,
        sourceId: trace,
        numberFormat: { output: 'time', factor: 0.001, unit: 'ms' },
        groupBy: 'service.name, StatusCode',
        select: [
          {
            aggFn: 'quantile',
            level: 0.95,
            valueExpression: 'Duration',
            alias: '95th Percentile Duration',
            where: "env = 'production'",
            whereLanguage: 'sql',
            numberFormat: { output: 'duration', factor: 1e-9 },
          },
          {
            aggFn: 'quantile',
            level: 0.99,
            valueExpression: 'Duration',
            alias: '99th Percentile Duration',
            where: 'env:production',
            whereLanguage: 'lucene',
            numberFormat: { output: 'duration', factor: 1e-9, mantissa: 3 },
          },
        ],
      },
    };
    const barChart = {
      ...id(),
      name: 'Bar Chart',
      x: 6,
      y: 0,
      w: 6,
      h: 3,
      config: {
        displayType: 'stacked_bar',
        asRatio: false,
        fillNulls: false,
        sourceId: metricSource()._id.toString(),
        numberFormat: { output: 'byte', decimalBytes: true, mantissa: 0 },
        select: [
          {
            aggFn: 'quantile',
            level: 0.95,
            valueExpression: 'Duration',
            metricName: 'ClickHouseAsyncMetrics_BlockWriteBytes_ram1',
            metricType: 'gauge',
            alias: '95th Percentile Duration',
            where: "env = 'production'",
            whereLanguage: 'sql',
          },
        ],
      },
    };
    const onClick: Record<string, unknown> = {
      type: 'search',
      target: { mode: 'id', id: trace },
      whereLanguage: 'sql',
      whereTemplate: "ServiceName = '{{service.name}}'",
    };
    if (!put) onClick.filters = [{ kind: 'expressionTemplate', expression: 'ServiceName', template: '{{service.name}}' }];
    const tableChart = {
      ...id(),
      name: 'Table Chart',
      x: 12,
      y: 0,
      w: 6,
      h: 3,
      config: {
        displayType: 'table',
        asRatio: false,
        sourceId: trace,
        select: [
          { ...median, numberFormat: { output: 'duration', factor: 1e-9 } },
          {
            aggFn: 'quantile',
            level: 0.99,
            valueExpression: 'Duration',
            alias: '99th Percentile Duration',
            where: "env = 'production'",
            whereLanguage: 'sql',
          },
        ],
        groupBy: 'service.name',
        orderBy: 'service.name desc',
        having: 'percentiles(Duration, 0.5) > 100',
        numberFormat: { output: 'percent', mantissa: 2, thousandSeparated: true, average: true },
        groupByColumnsOnLeft: true,
        onClick,
      },
    };
    const numberChart = {
      ...id(),
      name: 'Number Chart',
      x: 18,
      y: 0,
      w: 6,
      h: 3,
      config: {
        displayType: 'number',
        sourceId: trace,
        select: [
          {
            aggFn: 'quantile',
            level: 0.5,
            valueExpression: 'Duration',
            alias: '50th Percentile Duration',
            where: "env = 'production'",
            whereLanguage: 'sql',
            numberFormat: { output: 'duration', factor: 1e-9 },
          },
        ],
        numberFormat: { output: 'percent', mantissa: 2, thousandSeparated: true, average: true },
        color: 'chart-green',
        colorRules: [
          { operator: 'gt', value: 1000, color: 'chart-warning', label: 'Slow' },
          { operator: 'between', value: [200, 1000], color: 'chart-blue' },
          { operator: 'gte', value: 5000, color: 'chart-error', label: 'Critical' },
        ],
        backgroundChart: { type: 'area', color: 'chart-blue' },
      },
    };
    const markdownChart = {
      ...id(),
      name: 'Markdown Chart',
      x: 0,
      y: 3,
      w: 6,
      h: 3,
      config: { displayType: 'markdown', markdown: '# Markdown Content' },
    };
    const heatmapChart = {
      ...id(),
      name: 'Heatmap Chart',
      x: put ? 6 : 12,
      y: 3,
      w: 6,
      h: 3,
      config: {
        displayType: 'heatmap',
        sourceId: trace,
        select: [{ valueExpression: 'Duration', countExpression: 'count()', heatmapScaleType: put ? 'linear' : 'log' }],
        where: put ? 'service:api' : "ServiceName = 'api'",
        whereLanguage: put ? 'lucene' : 'sql',
        numberFormat: { output: 'time', factor: 0.001, unit: 'ms' },
      },
    };
    const eventPatternsChart = {
      ...id(),
      name: 'Event Patterns',
      x: put ? 12 : 18,
      y: 3,
      w: 6,
      h: 3,
      config: { displayType: 'event_patterns', sourceId: trace, select: 'SpanName', where: 'level:error', whereLanguage: 'lucene' },
    };
    return put
      ? [lineChart, barChart, tableChart, numberChart, markdownChart, heatmapChart, eventPatternsChart]
      : [lineChart, barChart, tableChart, numberChart, markdownChart, pieChart, heatmapChart, eventPatternsChart, categoricalBarChart];
  };

  /** The Raw SQL tiles of the two "round-trip all raw SQL chart config types" cases; only the table's onClick differs. */
  const allRawSqlTiles = (withIds: boolean, tableOnClick: Record<string, unknown>) => {
    const id = () => (withIds ? { id: newObjectId() } : {});
    const common = {
      configType: 'sql',
      connectionId: connection()._id.toString(),
      sqlTemplate: 'SELECT count() FROM otel_logs WHERE {timeFilter}',
      sourceId: traceSource()._id.toString(),
    };
    return [
      {
        ...id(),
        name: 'Line Raw SQL',
        x: 0,
        y: 0,
        w: 6,
        h: 3,
        config: {
          ...common,
          displayType: 'line',
          compareToPreviousPeriod: true,
          fillNulls: true,
          alignDateRangeToGranularity: true,
          fitYAxisToData: true,
          numberFormat: { output: 'number', mantissa: 2 },
        },
      },
      {
        ...id(),
        name: 'Bar Raw SQL',
        x: 6,
        y: 0,
        w: 6,
        h: 3,
        config: {
          ...common,
          displayType: 'stacked_bar',
          fillNulls: false,
          alignDateRangeToGranularity: false,
          numberFormat: { output: 'byte', decimalBytes: true },
        },
      },
      {
        ...id(),
        name: 'Table Raw SQL',
        x: 0,
        y: 3,
        w: 6,
        h: 3,
        config: { ...common, displayType: 'table', numberFormat: { output: 'percent', mantissa: 1 }, onClick: tableOnClick },
      },
      {
        ...id(),
        name: 'Number Raw SQL',
        x: 6,
        y: 3,
        w: 6,
        h: 3,
        config: { ...common, displayType: 'number', numberFormat: { output: 'currency', currencySymbol: '$' }, color: 'chart-purple' },
      },
      { ...id(), name: 'Pie Raw SQL', x: 12, y: 3, w: 6, h: 3, config: { ...common, displayType: 'pie' } },
      { ...id(), name: 'Categorical Bar Raw SQL', x: 18, y: 3, w: 6, h: 3, config: { ...common, displayType: 'bar' } },
    ];
  };

  describe('Response Format', () => {
    it('should return responses in the expected format', async () => {
      const testDashboard = {
        name: 'Format Test Dashboard',
        tiles: [createTimeSeriesChart(traceSource()._id.toString()), createNumberChart(traceSource()._id.toString())],
        tags: ['format-test'],
      };

      const createResponse = await authRequest('post', BASE_URL).send(testDashboard).expect(200);

      expect(createResponse.headers['content-type']).toMatch(/application\/json/);
      expect(createResponse.body).toEqual({
        data: {
          id: expect.any(String),
          name: 'Format Test Dashboard',
          tiles: [
            {
              id: expect.any(String),
              name: 'Time Series Chart',
              x: 0,
              y: 0,
              w: 6,
              h: 3,
              config: {
                asRatio: false,
                fillNulls: true,
                displayType: 'line',
                sourceId: traceSource()._id.toString(),
                select: [{ aggFn: 'count', where: '', valueExpression: '', whereLanguage: 'lucene' }],
              },
            },
            {
              id: expect.any(String),
              name: 'Number Chart',
              x: 0,
              y: 3,
              w: 3,
              h: 3,
              config: {
                displayType: 'number',
                sourceId: traceSource()._id.toString(),
                select: [{ aggFn: 'count', where: '', valueExpression: '', whereLanguage: 'lucene' }],
              },
            },
          ],
          tags: ['format-test'],
          filters: [],
          savedQuery: null,
          savedQueryLanguage: null,
          savedFilterValues: [],
        },
      });

      const dashboardId = createResponse.body.data.id;
      const getResponse = await authRequest('get', `${BASE_URL}/${dashboardId}`).expect(200);

      expect(getResponse.headers['content-type']).toMatch(/application\/json/);
      expect(getResponse.body).toEqual({ data: createResponse.body.data });

      const listResponse = await authRequest('get', BASE_URL).expect(200);

      expect(listResponse.headers['content-type']).toMatch(/application\/json/);
      expect(listResponse.body).toHaveProperty('data');
      expect(Array.isArray(listResponse.body.data)).toBe(true);

      const deleteResponse = await authRequest('delete', `${BASE_URL}/${dashboardId}`).expect(200);

      expect(deleteResponse.body).toEqual({});
    });
  });

  describe('GET /', () => {
    it('should return all dashboards', async () => {
      await createTestDashboard({ name: 'Test Dashboard 1' });
      await createTestDashboard({ name: 'Test Dashboard 2' });

      const response = await authRequest('get', BASE_URL).expect(200);

      expect(response.body.data).toHaveLength(2);
      expect(response.body.data.map((d: { name: string }) => d.name)).toContain('Test Dashboard 1');
      expect(response.body.data.map((d: { name: string }) => d.name)).toContain('Test Dashboard 2');
      response.body.data.forEach((d: { filters: unknown }) => {
        expect(d).toHaveProperty('filters');
        expect(Array.isArray(d.filters)).toBe(true);
      });
    });

    it('should return empty array when no dashboards exist', async () => {
      const response = await authRequest('get', BASE_URL).expect(200);
      expect(response.body.data).toHaveLength(0);
    });
  });

  describe('GET /:id', () => {
    it('should return a specific dashboard', async () => {
      const dashboard = await createTestDashboard({ name: 'Test Dashboard', tags: ['tag1', 'tag2'] });

      const response = await authRequest('get', `${BASE_URL}/${dashboard._id}`).expect(200);

      expect(response.body.data).toMatchObject({
        id: dashboard._id.toString(),
        name: 'Test Dashboard',
        tiles: expect.arrayContaining([]),
        tags: ['tag1', 'tag2'],
      });
      expect(response.body.data).toHaveProperty('filters');
      expect(Array.isArray(response.body.data.filters)).toBe(true);
    });

    it('should return 404 when dashboard does not exist', async () => {
      await authRequest('get', `${BASE_URL}/${newObjectId()}`).expect(404);
    });
  });

  describe('POST /', () => {
    it('should create a new dashboard', async () => {
      const mockDashboard = createMockDashboard(traceSource()._id.toString());

      const response = await authRequest('post', BASE_URL).send(mockDashboard).expect(200);

      expect(response.body.data).toMatchObject({
        name: mockDashboard.name,
        tiles: expect.arrayContaining([expect.objectContaining({ name: 'Test Chart' }), expect.objectContaining({ name: 'Test Chart' })]),
        tags: mockDashboard.tags,
      });
      expect(response.body.data).toHaveProperty('filters');
      expect(response.body.data.filters).toEqual([]);

      const dashboards = world.peer().storedAll('dashboards');
      expect(dashboards).toHaveLength(1);
      expect(dashboards[0]?.name).toBe(mockDashboard.name);
      expect(dashboards[0]?.tiles).toHaveLength(2);
    });

    it('should return 400 when savedQueryLanguage is null and savedQuery is provided', async () => {
      const mockDashboard = createMockDashboard(traceSource()._id.toString(), {
        savedQuery: "service.name = 'api'",
        savedQueryLanguage: null,
      });

      const response = await authRequest('post', BASE_URL).send(mockDashboard).expect(400);

      expect(response.body.message).toContain('savedQueryLanguage cannot be null when savedQuery is provided');
    });

    it('can create all chart types', async () => {
      const dashboardWithAllCharts = {
        name: 'Test Dashboard with All Chart Types',
        tiles: [
          createTimeSeriesChart(traceSource()._id.toString()),
          createTableChart(traceSource()._id.toString()),
          createNumberChart(traceSource()._id.toString()),
          createMarkdownChart(),
          createPieChart(traceSource()._id.toString()),
          createBarChart(traceSource()._id.toString()),
        ],
        tags: ['test', 'chart-types'],
      };

      const response = await authRequest('post', BASE_URL).send(dashboardWithAllCharts).expect(200);

      const { id } = response.body.data;
      expect(response.body.data).toHaveProperty('id');
      expect(response.body.data.tiles.length).toBe(6);

      const retrieveResponse = await authRequest('get', `${BASE_URL}/${id}`);

      expect(retrieveResponse.status).toBe(200);
      expect(retrieveResponse.body.data.tiles.length).toBe(6);
      expect(retrieveResponse.body.data.tags).toEqual(['test', 'chart-types']);
    });

    it('can round-trip all supported chart types and all supported fields on each chart type', async () => {
      const tiles = allBuilderTiles('post');

      const response = await authRequest('post', BASE_URL)
        .send({ name: 'Dashboard with All Chart Types', tiles, tags: ['round-trip-test'] })
        .expect(200);

      for (const [i, tile] of tiles.entries()) expect(omit(response.body.data.tiles[i], ['id'])).toEqual(tile);
    });

    it('persists a custom orderBy on pie and categorical bar tiles through create and get', async () => {
      const pieChart = {
        name: 'Pie with custom order',
        x: 0,
        y: 0,
        w: 6,
        h: 3,
        config: {
          displayType: 'pie',
          sourceId: traceSource()._id.toString(),
          select: [{ aggFn: 'count', alias: 'Count', where: '', whereLanguage: 'sql' }],
          groupBy: 'ServiceName',
          orderBy: 'ServiceName ASC',
          limit: 5,
        },
      };
      const barChart = {
        name: 'Bar with custom order',
        x: 6,
        y: 0,
        w: 6,
        h: 3,
        config: {
          displayType: 'bar',
          sourceId: traceSource()._id.toString(),
          select: [{ aggFn: 'count', alias: 'Count', where: '', whereLanguage: 'sql' }],
          groupBy: 'ServiceName',
          orderBy: '"Count" DESC',
          limit: 5,
        },
      };

      const createResponse = await authRequest('post', BASE_URL)
        .send({ name: 'Dashboard with custom categorical ordering', tiles: [pieChart, barChart] })
        .expect(200);

      expect(createResponse.body.data.tiles[0].config.orderBy).toBe('ServiceName ASC');
      expect(createResponse.body.data.tiles[1].config.orderBy).toBe('"Count" DESC');

      const { id } = createResponse.body.data;
      const getResponse = await authRequest('get', `${BASE_URL}/${id}`).expect(200);
      expect(getResponse.body.data.tiles[0].config.orderBy).toBe('ServiceName ASC');
      expect(getResponse.body.data.tiles[1].config.orderBy).toBe('"Count" DESC');
    });

    it('persists seriesLimit on line and stacked_bar tiles through create and get', async () => {
      const select = [{ aggFn: 'count', alias: 'Count', where: '', whereLanguage: 'sql' }];
      const lineChart = {
        name: 'Line with series limit',
        x: 0,
        y: 0,
        w: 6,
        h: 3,
        config: { displayType: 'line', sourceId: traceSource()._id.toString(), select, groupBy: 'ServiceName', seriesLimit: 20 },
      };
      const stackedBarChart = {
        name: 'Stacked bar with series limit',
        x: 6,
        y: 0,
        w: 6,
        h: 3,
        config: { displayType: 'stacked_bar', sourceId: traceSource()._id.toString(), select, groupBy: 'ServiceName', seriesLimit: 7 },
      };

      const createResponse = await authRequest('post', BASE_URL)
        .send({ name: 'Dashboard with series limits', tiles: [lineChart, stackedBarChart] })
        .expect(200);

      expect(createResponse.body.data.tiles[0].config.seriesLimit).toBe(20);
      expect(createResponse.body.data.tiles[1].config.seriesLimit).toBe(7);

      const { id } = createResponse.body.data;
      const getResponse = await authRequest('get', `${BASE_URL}/${id}`).expect(200);
      expect(getResponse.body.data.tiles[0].config.seriesLimit).toBe(20);
      expect(getResponse.body.data.tiles[1].config.seriesLimit).toBe(7);
    });

    it('omits seriesLimit on line/stacked_bar tiles when it is not provided', async () => {
      const lineChart = {
        name: 'Line without series limit',
        x: 0,
        y: 0,
        w: 6,
        h: 3,
        config: {
          displayType: 'line',
          sourceId: traceSource()._id.toString(),
          select: [{ aggFn: 'count', alias: 'Count', where: '', whereLanguage: 'sql' }],
          groupBy: 'ServiceName',
        },
      };

      const response = await authRequest('post', BASE_URL)
        .send({ name: 'Dashboard without series limit', tiles: [lineChart] })
        .expect(200);

      expect(response.body.data.tiles[0].config).not.toHaveProperty('seriesLimit');
    });

    it('omits orderBy on pie/bar tiles when it is not provided', async () => {
      const pieChart = {
        name: 'Pie without order',
        x: 0,
        y: 0,
        w: 6,
        h: 3,
        config: {
          displayType: 'pie',
          sourceId: traceSource()._id.toString(),
          select: [{ aggFn: 'count', alias: 'Count', where: '', whereLanguage: 'sql' }],
          groupBy: 'ServiceName',
        },
      };

      const response = await authRequest('post', BASE_URL)
        .send({ name: 'Dashboard without categorical ordering', tiles: [pieChart] })
        .expect(200);

      expect(response.body.data.tiles[0].config).not.toHaveProperty('orderBy');
    });

    it.each([
      {
        label: 'raw SQL heatmap tile (heatmap is builder-only)',
        config: () => ({
          configType: 'sql',
          displayType: 'heatmap',
          connectionId: connection()._id.toString(),
          sqlTemplate: 'SELECT 1 FROM otel_logs WHERE {timeFilter}',
          sourceId: traceSource()._id.toString(),
        }),
      },
      {
        label: 'heatmap tile with empty valueExpression',
        config: () => ({ displayType: 'heatmap', sourceId: traceSource()._id.toString(), select: [{ valueExpression: '' }] }),
      },
      {
        label: 'heatmap tile with multiple select items',
        config: () => ({
          displayType: 'heatmap',
          sourceId: traceSource()._id.toString(),
          select: [{ valueExpression: 'Duration' }, { valueExpression: 'OtherValue' }],
        }),
      },
    ])('rejects $label', async ({ config }) => {
      await authRequest('post', BASE_URL)
        .send({ name: 'Dashboard with rejected heatmap', tiles: [{ name: 'Heatmap', x: 0, y: 0, w: 6, h: 3, config: config() }], tags: [] })
        .expect(400);
    });

    it('rejects heatmap tile with a non-Trace source (UI restricts to trace)', async () => {
      const heatmapMetricSource = {
        name: 'Heatmap Metric Source',
        x: 0,
        y: 0,
        w: 6,
        h: 3,
        config: { displayType: 'heatmap', sourceId: metricSource()._id.toString(), select: [{ valueExpression: 'Duration' }] },
      };

      const response = await authRequest('post', BASE_URL)
        .send({ name: 'Dashboard with Heatmap on Metric Source', tiles: [heatmapMetricSource], tags: [] })
        .expect(400);

      expect(response.body.message).toContain('Heatmap tiles require a Trace source');
    });

    it('round-trips a heatmap tile with only required fields', async () => {
      const heatmapMinimalRequest = {
        name: 'Minimal Heatmap',
        x: 0,
        y: 0,
        w: 6,
        h: 3,
        config: { displayType: 'heatmap', sourceId: traceSource()._id.toString(), select: [{ valueExpression: 'Duration' }] },
      };

      const expectedResponse = {
        ...heatmapMinimalRequest,
        config: {
          displayType: 'heatmap',
          sourceId: traceSource()._id.toString(),
          select: [{ valueExpression: 'Duration' }],
          where: '',
          whereLanguage: 'lucene',
        },
      };

      const response = await authRequest('post', BASE_URL)
        .send({ name: 'Dashboard with Minimal Heatmap', tiles: [heatmapMinimalRequest], tags: [] })
        .expect(200);

      expect(omit(response.body.data.tiles[0], ['id'])).toEqual(expectedResponse);
    });

    it('persists where as empty string when omitted from heatmap tile', async () => {
      const heatmapNoWhere = {
        name: 'Heatmap Without Where',
        x: 0,
        y: 0,
        w: 6,
        h: 3,
        config: { displayType: 'heatmap', sourceId: traceSource()._id.toString(), select: [{ valueExpression: 'Duration' }] },
      };

      const response = await authRequest('post', BASE_URL)
        .send({ name: 'Dashboard Heatmap No Where', tiles: [heatmapNoWhere], tags: [] })
        .expect(200);

      expect(world.peer().stored('dashboards', response.body.data.id)?.tiles[0].config.where).toBe('');
    });

    it('persists select-item where as empty string when omitted', async () => {
      const lineChartNoWhere = {
        name: 'Line Chart Without Where',
        x: 0,
        y: 0,
        w: 6,
        h: 3,
        config: { displayType: 'line', sourceId: traceSource()._id.toString(), select: [{ aggFn: 'count' }] },
      };

      const response = await authRequest('post', BASE_URL)
        .send({ name: 'Dashboard Line No Where', tiles: [lineChartNoWhere], tags: [] })
        .expect(200);

      // The real test reads the internal `aggCondition`; the sandbox stores the external `where`.
      expect(world.peer().stored('dashboards', response.body.data.id)?.tiles[0].config.select[0].where).toBe('');
    });

    it('can round-trip all raw SQL chart config types', async () => {
      const tiles = allRawSqlTiles(false, {
        type: 'search',
        target: { mode: 'template', template: '{{source_name}}' },
        whereLanguage: 'lucene',
        whereTemplate: 'ServiceName:"{{ServiceName}}"',
      });

      const response = await authRequest('post', BASE_URL)
        .send({ name: 'Dashboard with Raw SQL Chart Types', tiles, tags: ['raw-sql-test'] })
        .expect(200);

      for (const [i, tile] of tiles.entries()) expect(omit(response.body.data.tiles[i], ['id'])).toEqual(tile);
    });

    it('persists fitYAxisToData on line tiles only and reads it back on GET', async () => {
      const sourceId = traceSource()._id.toString();
      const select = [{ aggFn: 'count', where: '', whereLanguage: 'sql' }];
      const fitLine = { name: 'Fit Line', x: 0, y: 0, w: 6, h: 3, config: { displayType: 'line', sourceId, fitYAxisToData: true, select } };
      const bar = { name: 'Bar', x: 6, y: 0, w: 6, h: 3, config: { displayType: 'stacked_bar', sourceId, fitYAxisToData: false, select } };
      const unsetLine = { name: 'Unset Line', x: 12, y: 0, w: 6, h: 3, config: { displayType: 'line', sourceId, select } };

      const createResponse = await authRequest('post', BASE_URL)
        .send({ name: 'fitYAxisToData dashboard', tiles: [fitLine, bar, unsetLine], tags: [] })
        .expect(200);

      const { id } = createResponse.body.data;

      const getResponse = await authRequest('get', `${BASE_URL}/${id}`).expect(200);
      const tiles = getResponse.body.data.tiles;

      expect(tiles[0].config.fitYAxisToData).toBe(true);
      expect(tiles[1].config).not.toHaveProperty('fitYAxisToData');
      expect(tiles[2].config).not.toHaveProperty('fitYAxisToData');
    });

    it('should return 400 when source IDs do not exist', async () => {
      const nonExistentSourceId = newObjectId();
      const mockDashboard = createMockDashboard(nonExistentSourceId);

      const response = await authRequest('post', BASE_URL).send(mockDashboard).expect(400);

      expect(response.body).toEqual({ message: `Could not find the following source IDs: ${nonExistentSourceId}` });
    });

    it('should return 400 when connection ID does not belong to the team', async () => {
      const otherTeamConnection = await fixtures(world.peer().otherTeam).connection({ name: 'Other Team Connection' });
      const otherConnectionId = otherTeamConnection.id;

      const response = await authRequest('post', BASE_URL)
        .send({
          name: 'Dashboard with Foreign Connection',
          tiles: [
            {
              name: 'Raw SQL Tile',
              x: 0,
              y: 0,
              w: 6,
              h: 3,
              config: {
                configType: 'sql',
                displayType: 'line',
                connectionId: otherConnectionId,
                sqlTemplate: 'SELECT count() FROM otel_logs WHERE {timeFilter}',
              },
            },
          ],
          tags: [],
        })
        .expect(400);

      expect(response.body).toEqual({ message: `Could not find the following connection IDs: ${otherConnectionId}` });
    });

    it('should return 400 when source connection does not match tile connection', async () => {
      const otherConnection = await fixtures(world.peer().agent).connection({ name: 'Other Connection' });

      const response = await authRequest('post', BASE_URL)
        .send({
          name: 'Dashboard with Mismatched Source Connection',
          tiles: [
            {
              name: 'Raw SQL Tile',
              x: 0,
              y: 0,
              w: 6,
              h: 3,
              config: {
                configType: 'sql',
                displayType: 'table',
                connectionId: otherConnection.id,
                sourceId: traceSource()._id.toString(),
                sqlTemplate: 'SELECT count() FROM otel_logs',
              },
            },
          ],
          tags: [],
        })
        .expect(400);

      expect(response.body).toEqual({
        message: `The following source IDs do not match the specified connections: ${traceSource()._id.toString()}`,
      });
    });

    const tableWithOnClick = (onClick: Record<string, unknown>, name = 'Table Chart', x = 0) => ({
      name,
      x,
      y: 0,
      w: 6,
      h: 3,
      config: { displayType: 'table', sourceId: traceSource()._id.toString(), select: [{ aggFn: 'count' }], onClick },
    });

    it('should return 400 when a table tile onClick references a non-existent source', async () => {
      const nonExistentSourceId = newObjectId();

      const response = await authRequest('post', BASE_URL)
        .send({
          name: 'Dashboard with invalid onClick source',
          tiles: [tableWithOnClick({ type: 'search', target: { mode: 'id', id: nonExistentSourceId }, whereLanguage: 'sql' })],
        })
        .expect(400);

      expect(response.body).toEqual({ message: `Could not find the following source IDs: ${nonExistentSourceId}` });
    });

    it('should return 400 when a table tile onClick search target references a metric source', async () => {
      const response = await authRequest('post', BASE_URL)
        .send({
          name: 'Dashboard with metric onClick source',
          tiles: [tableWithOnClick({ type: 'search', target: { mode: 'id', id: metricSource()._id.toString() }, whereLanguage: 'sql' })],
        })
        .expect(400);

      expect(response.body).toEqual({
        message: `The following onClick search source IDs are not log or trace sources: ${metricSource()._id.toString()}`,
      });
    });

    it('should return 400 when a table tile onClick references a non-existent dashboard', async () => {
      const nonExistentDashboardId = newObjectId();

      const response = await authRequest('post', BASE_URL)
        .send({
          name: 'Dashboard with invalid onClick dashboard',
          tiles: [tableWithOnClick({ type: 'dashboard', target: { mode: 'id', id: nonExistentDashboardId }, whereLanguage: 'sql' })],
        })
        .expect(400);

      expect(response.body).toEqual({ message: `Could not find the following onClick dashboard IDs: ${nonExistentDashboardId}` });
    });

    it('should return 400 when an onClick dashboard belongs to another team', async () => {
      const otherTeamDashboard = await fixtures(world.peer().otherTeam).dashboard({ name: 'Other Team Dashboard', tiles: [] });

      const response = await authRequest('post', BASE_URL)
        .send({
          name: 'Dashboard referencing cross-team dashboard',
          tiles: [tableWithOnClick({ type: 'dashboard', target: { mode: 'id', id: otherTeamDashboard.id }, whereLanguage: 'sql' })],
        })
        .expect(400);

      expect(response.body).toEqual({ message: `Could not find the following onClick dashboard IDs: ${otherTeamDashboard.id}` });
    });

    it('should accept a table tile onClick with valid id references', async () => {
      const targetDashboard = await createTestDashboard({ name: 'OnClick Target Dashboard' });

      const response = await authRequest('post', BASE_URL)
        .send({
          name: 'Dashboard with valid onClick references',
          tiles: [
            tableWithOnClick(
              { type: 'search', target: { mode: 'id', id: traceSource()._id.toString() }, whereLanguage: 'sql' },
              'Search Link Table',
            ),
            tableWithOnClick(
              { type: 'dashboard', target: { mode: 'id', id: targetDashboard._id.toString() }, whereLanguage: 'sql' },
              'Dashboard Link Table',
              6,
            ),
          ],
        })
        .expect(200);

      expect(response.body.data.tiles[0].config.onClick).toEqual({
        type: 'search',
        target: { mode: 'id', id: traceSource()._id.toString() },
        whereLanguage: 'sql',
      });
      expect(response.body.data.tiles[1].config.onClick).toEqual({
        type: 'dashboard',
        target: { mode: 'id', id: targetDashboard._id.toString() },
        whereLanguage: 'sql',
      });
    });

    it('should accept and round-trip a table tile external onClick link', async () => {
      const response = await authRequest('post', BASE_URL)
        .send({
          name: 'Dashboard with external onClick',
          tiles: [
            tableWithOnClick(
              { type: 'external', urlTemplate: 'https://grafana.example.com/d/abc?var-service={{ServiceName}}' },
              'External Link Table',
            ),
          ],
        })
        .expect(200);

      expect(response.body.data.tiles[0].config.onClick).toEqual({
        type: 'external',
        urlTemplate: 'https://grafana.example.com/d/abc?var-service={{ServiceName}}',
      });
    });

    it('should return 400 when a table tile onClick target.id is not a valid ObjectId', async () => {
      const response = await authRequest('post', BASE_URL)
        .send({
          name: 'Dashboard with invalid onClick id',
          tiles: [tableWithOnClick({ type: 'dashboard', target: { mode: 'id', id: 'not-a-valid-object-id' }, whereLanguage: 'sql' })],
        })
        .expect(400);

      expect(response.body.message).toMatch(/Invalid|validation|id/i);
    });

    it('should create a dashboard with filters', async () => {
      const dashboardPayload = {
        name: 'Dashboard with Filters',
        tiles: [makeExternalTile({ sourceId: traceSource()._id.toString() })],
        tags: TEST_TAGS,
        filters: [
          { type: 'QUERY_EXPRESSION', name: 'Environment', expression: 'environment', sourceId: traceSource()._id.toString() },
          {
            type: 'QUERY_EXPRESSION',
            name: 'Service Filter',
            expression: 'service_name',
            sourceId: traceSource()._id.toString(),
            sourceMetricType: undefined,
            appliesToSourceIds: [traceSource()._id.toString()],
          },
          {
            type: 'QUERY_EXPRESSION',
            name: 'Region (Filtered)',
            expression: 'region',
            sourceId: traceSource()._id.toString(),
            where: "environment = 'production'",
            whereLanguage: 'sql',
            appliesToSourceIds: [traceSource()._id.toString(), metricSource()._id.toString()],
          },
        ],
      };

      const response = await authRequest('post', BASE_URL).send(dashboardPayload).expect(200);

      expect(response.body.data.filters).toHaveLength(3);
      response.body.data.filters.forEach((f: { id: string }) => {
        expect(f).toHaveProperty('id');
        expect(typeof f.id).toBe('string');
        expect(f.id.length).toBeGreaterThan(0);
        expect(f).toMatchObject({
          type: 'QUERY_EXPRESSION',
          name: expect.any(String),
          expression: expect.any(String),
          sourceId: traceSource()._id.toString(),
        });
      });
      expect(response.body.data.filters[0].name).toBe('Environment');
      expect(response.body.data.filters[0].expression).toBe('environment');
      expect(response.body.data.filters[0].appliesToSourceIds).toBeUndefined();
      expect(response.body.data.filters[1].name).toBe('Service Filter');
      expect(response.body.data.filters[1].expression).toBe('service_name');
      expect(response.body.data.filters[1].appliesToSourceIds).toEqual([traceSource()._id.toString()]);
      expect(response.body.data.filters[2].name).toBe('Region (Filtered)');
      expect(response.body.data.filters[2].expression).toBe('region');
      expect(response.body.data.filters[2].where).toBe("environment = 'production'");
      expect(response.body.data.filters[2].whereLanguage).toBe('sql');
      expect(response.body.data.filters[2].appliesToSourceIds).toEqual([traceSource()._id.toString(), metricSource()._id.toString()]);

      const getResponse = await authRequest('get', `${BASE_URL}/${response.body.data.id}`).expect(200);
      expect(getResponse.body.data.filters).toHaveLength(3);
      expect(getResponse.body.data.filters).toEqual(response.body.data.filters);
    });

    it('should round-trip the filter variable settings', async () => {
      const payload = createMockDashboardWithIds(traceSource()._id.toString(), {
        filters: [
          {
            type: 'QUERY_EXPRESSION',
            name: 'Environment',
            expression: 'environment',
            sourceId: traceSource()._id.toString(),
            isBroadcastEnabled: true,
            isVariableEnabled: false,
          },
          {
            type: 'QUERY_EXPRESSION',
            name: 'Service Name',
            expression: 'ServiceName',
            sourceId: traceSource()._id.toString(),
            isBroadcastEnabled: false,
            isVariableEnabled: true,
            variableName: 'service',
          },
          {
            type: 'QUERY_EXPRESSION',
            name: 'Region Name',
            expression: 'region',
            sourceId: traceSource()._id.toString(),
            isVariableEnabled: true,
          },
        ],
      });

      const response = await authRequest('post', BASE_URL).send(payload).expect(200);

      expect(response.body.data.filters).toMatchObject([
        { name: 'Environment', isBroadcastEnabled: true, isVariableEnabled: false },
        { name: 'Service Name', isBroadcastEnabled: false, isVariableEnabled: true, variableName: 'service' },
        { name: 'Region Name', isVariableEnabled: true },
      ]);
      expect(response.body.data.filters[2]).not.toHaveProperty('isBroadcastEnabled');
      expect(response.body.data.filters[2]).not.toHaveProperty('variableName');

      const getResponse = await authRequest('get', `${BASE_URL}/${response.body.data.id}`).expect(200);
      expect(getResponse.body.data.filters).toEqual(response.body.data.filters);

      // The real test reads the internal `source`; the sandbox stores the external `sourceId`.
      const stored = world.peer().stored('dashboards', response.body.data.id);
      expect(stored?.filters).toMatchObject([
        { sourceId: traceSource()._id.toString(), isBroadcastEnabled: true, isVariableEnabled: false },
        { sourceId: traceSource()._id.toString(), isBroadcastEnabled: false, isVariableEnabled: true, variableName: 'service' },
        { sourceId: traceSource()._id.toString(), isVariableEnabled: true },
      ]);
      expect(stored?.filters?.[2]).not.toHaveProperty('isBroadcastEnabled');
      expect(stored?.filters?.[2]).not.toHaveProperty('variableName');
    });

    it('should return 400 when filter source ID does not exist', async () => {
      const nonExistentSourceId = newObjectId();
      const dashboardPayload = {
        name: 'Dashboard with Bad Filter Source',
        tiles: [makeExternalTile({ sourceId: traceSource()._id.toString() })],
        tags: TEST_TAGS,
        filters: [{ type: 'QUERY_EXPRESSION', name: 'Bad Source Filter', expression: 'environment', sourceId: nonExistentSourceId }],
      };

      const response = await authRequest('post', BASE_URL).send(dashboardPayload).expect(400);

      expect(response.body).toEqual({ message: `Could not find the following source IDs: ${nonExistentSourceId}` });
    });

    it('should return 400 when create filter includes id', async () => {
      const dashboardPayload = {
        name: 'Dashboard with Invalid Filter ID',
        tiles: [makeExternalTile({ sourceId: traceSource()._id.toString() })],
        tags: TEST_TAGS,
        filters: [
          {
            id: newObjectId(),
            type: 'QUERY_EXPRESSION',
            name: 'Filter with ID',
            expression: 'environment',
            sourceId: traceSource()._id.toString(),
          },
        ],
      };

      await authRequest('post', BASE_URL).send(dashboardPayload).expect(400);
    });
  });

  describe('PUT /:id', () => {
    it('should update an existing dashboard', async () => {
      const dashboard = await createTestDashboard();
      const updatedDashboard = createMockDashboardWithIds(traceSource()._id.toString(), { name: 'Updated Dashboard Name' });

      const response = await authRequest('put', `${BASE_URL}/${dashboard._id}`).send(updatedDashboard).expect(200);

      expect(response.body.data).toMatchObject({
        id: dashboard._id.toString(),
        name: 'Updated Dashboard Name',
        tiles: expect.arrayContaining([expect.objectContaining({ name: 'Test Chart' }), expect.objectContaining({ name: 'Test Chart' })]),
      });
      expect(response.body.data).toHaveProperty('filters');
      expect(Array.isArray(response.body.data.filters)).toBe(true);

      const updatedDashboardInDb = world.peer().stored('dashboards', dashboard._id);
      expect(updatedDashboardInDb?.name).toBe('Updated Dashboard Name');
      expect(updatedDashboardInDb?.tiles).toHaveLength(2);
    });

    it('should return 400 when savedQueryLanguage is null and savedQuery is provided on update', async () => {
      const dashboard = await createTestDashboard();
      const updatedDashboard = createMockDashboardWithIds(traceSource()._id.toString(), {
        savedQuery: "service.name = 'api'",
        savedQueryLanguage: null,
      });

      const response = await authRequest('put', `${BASE_URL}/${dashboard._id}`).send(updatedDashboard).expect(400);

      expect(response.body.message).toContain('savedQueryLanguage cannot be null when savedQuery is provided');
    });

    it('persists seriesLimit on line and stacked_bar tiles through update and get', async () => {
      const dashboard = await createTestDashboard();
      const select = [{ aggFn: 'count', alias: 'Count', where: '', whereLanguage: 'sql' }];
      const lineChart = {
        id: newObjectId(),
        name: 'Line with series limit',
        x: 0,
        y: 0,
        w: 6,
        h: 3,
        config: { displayType: 'line', sourceId: traceSource()._id.toString(), select, groupBy: 'ServiceName', seriesLimit: 15 },
      };
      const stackedBarChart = {
        id: newObjectId(),
        name: 'Stacked bar with series limit',
        x: 6,
        y: 0,
        w: 6,
        h: 3,
        config: { displayType: 'stacked_bar', sourceId: traceSource()._id.toString(), select, groupBy: 'ServiceName', seriesLimit: 3 },
      };

      const response = await authRequest('put', `${BASE_URL}/${dashboard._id}`)
        .send({ name: 'Dashboard with series limits', tiles: [lineChart, stackedBarChart] })
        .expect(200);

      expect(response.body.data.tiles[0].config.seriesLimit).toBe(15);
      expect(response.body.data.tiles[1].config.seriesLimit).toBe(3);

      const getResponse = await authRequest('get', `${BASE_URL}/${dashboard._id}`).expect(200);
      expect(getResponse.body.data.tiles[0].config.seriesLimit).toBe(15);
      expect(getResponse.body.data.tiles[1].config.seriesLimit).toBe(3);
    });

    it('should update dashboard filters when provided', async () => {
      const dashboard = await createTestDashboard();
      const updatedPayload = createMockDashboardWithIds(traceSource()._id.toString(), {
        name: 'Dashboard with Filters',
        filters: [
          {
            id: newObjectId(),
            type: 'QUERY_EXPRESSION',
            name: 'Updated Filter 1',
            expression: 'environment',
            sourceId: traceSource()._id.toString(),
          },
          {
            id: newObjectId(),
            type: 'QUERY_EXPRESSION',
            name: 'Updated Filter 2',
            expression: 'service_name',
            sourceId: traceSource()._id.toString(),
            appliesToSourceIds: [traceSource()._id.toString(), metricSource()._id.toString()],
          },
        ],
      });

      const response = await authRequest('put', `${BASE_URL}/${dashboard._id}`).send(updatedPayload).expect(200);

      expect(response.body.data.filters).toHaveLength(2);
      expect(response.body.data.filters[0]).toMatchObject({
        id: expect.any(String),
        type: 'QUERY_EXPRESSION',
        name: 'Updated Filter 1',
        expression: 'environment',
        sourceId: traceSource()._id.toString(),
      });
      expect(response.body.data.filters[0].appliesToSourceIds).toBeUndefined();
      expect(response.body.data.filters[1]).toMatchObject({
        id: expect.any(String),
        type: 'QUERY_EXPRESSION',
        name: 'Updated Filter 2',
        expression: 'service_name',
        sourceId: traceSource()._id.toString(),
      });
      expect(response.body.data.filters[1].appliesToSourceIds).toEqual([traceSource()._id.toString(), metricSource()._id.toString()]);

      const getResponse = await authRequest('get', `${BASE_URL}/${dashboard._id}`).expect(200);
      expect(getResponse.body.data.filters).toEqual(response.body.data.filters);
    });

    it('should preserve existing dashboard filters when filters are not provided', async () => {
      // The real test stores the filters with the model (choosing their ids); POST assigns them.
      const dashboard = await createTestDashboard({
        filters: [
          {
            type: 'QUERY_EXPRESSION',
            name: 'Existing Filter 1',
            expression: 'environment',
            sourceId: traceSource()._id.toString(),
            appliesToSourceIds: [traceSource()._id.toString()],
          },
          { type: 'QUERY_EXPRESSION', name: 'Existing Filter 2', expression: 'service_name', sourceId: traceSource()._id.toString() },
        ],
      });
      const existingFilters = dashboard.filters as Record<string, unknown>[];
      const updatedPayload = createMockDashboardWithIds(traceSource()._id.toString(), { name: 'Dashboard Name Updated Without Filters' });

      const response = await authRequest('put', `${BASE_URL}/${dashboard._id}`)
        .send(omit(updatedPayload, ['filters']))
        .expect(200);

      expect(response.body.data.name).toBe('Dashboard Name Updated Without Filters');
      expect(response.body.data.filters).toHaveLength(2);
      expect(response.body.data.filters[0]).toMatchObject(existingFilters[0] ?? {});
      expect(response.body.data.filters[1]).toMatchObject(existingFilters[1] ?? {});

      const getResponse = await authRequest('get', `${BASE_URL}/${dashboard._id}`).expect(200);
      expect(getResponse.body.data.filters).toHaveLength(2);
      expect(getResponse.body.data.filters[0]).toMatchObject(existingFilters[0] ?? {});
      expect(getResponse.body.data.filters[1]).toMatchObject(existingFilters[1] ?? {});
    });

    it('should round-trip the filter variable settings', async () => {
      const dashboard = await createTestDashboard({
        filters: [{ type: 'QUERY_EXPRESSION', name: 'Service Name', expression: 'ServiceName', sourceId: traceSource()._id.toString() }],
      });
      const filterId = dashboard.filters[0].id as string;
      const payload = createMockDashboardWithIds(traceSource()._id.toString(), {});

      const response = await authRequest('put', `${BASE_URL}/${dashboard._id}`)
        .send({
          ...payload,
          filters: [
            {
              id: filterId,
              type: 'QUERY_EXPRESSION',
              name: 'Service Name',
              expression: 'ServiceName',
              sourceId: traceSource()._id.toString(),
              isBroadcastEnabled: false,
              isVariableEnabled: true,
              variableName: 'Service_Name',
            },
          ],
        })
        .expect(200);

      expect(response.body.data.filters[0]).toMatchObject({
        id: filterId,
        isBroadcastEnabled: false,
        isVariableEnabled: true,
        variableName: 'Service_Name',
      });

      expect(world.peer().stored('dashboards', dashboard._id)?.filters?.[0]).toMatchObject({
        id: filterId,
        isBroadcastEnabled: false,
        isVariableEnabled: true,
        variableName: 'Service_Name',
      });
    });

    it('should clear the filter variable settings when an update omits them', async () => {
      const dashboard = await createTestDashboard({
        filters: [
          {
            type: 'QUERY_EXPRESSION',
            name: 'Service Name',
            expression: 'ServiceName',
            sourceId: traceSource()._id.toString(),
            isBroadcastEnabled: false,
            isVariableEnabled: true,
            variableName: 'service',
          },
        ],
      });
      const filterId = dashboard.filters[0].id as string;
      const payload = createMockDashboardWithIds(traceSource()._id.toString(), {});

      const response = await authRequest('put', `${BASE_URL}/${dashboard._id}`)
        .send({
          ...payload,
          filters: [
            {
              id: filterId,
              type: 'QUERY_EXPRESSION',
              name: 'Service Name',
              expression: 'ServiceName',
              sourceId: traceSource()._id.toString(),
            },
          ],
        })
        .expect(200);

      expect(response.body.data.filters[0]).toMatchObject({ id: filterId });
      expect(response.body.data.filters[0]).not.toHaveProperty('isBroadcastEnabled');
      expect(response.body.data.filters[0]).not.toHaveProperty('isVariableEnabled');
      expect(response.body.data.filters[0]).not.toHaveProperty('variableName');

      const stored = world.peer().stored('dashboards', dashboard._id);
      expect(stored?.filters?.[0]).not.toHaveProperty('isVariableEnabled');
      expect(stored?.filters?.[0]).not.toHaveProperty('variableName');
    });

    it('should clear existing dashboard filters when provided an empty filters array', async () => {
      const dashboard = await createTestDashboard({
        filters: [
          { type: 'QUERY_EXPRESSION', name: 'Existing Filter 1', expression: 'environment', sourceId: traceSource()._id.toString() },
          { type: 'QUERY_EXPRESSION', name: 'Existing Filter 2', expression: 'service_name', sourceId: traceSource()._id.toString() },
        ],
      });
      const updatedPayload = createMockDashboardWithIds(traceSource()._id.toString(), {
        name: 'Dashboard Name Updated With Empty Filters',
        filters: [],
      });

      const response = await authRequest('put', `${BASE_URL}/${dashboard._id}`).send(updatedPayload).expect(200);

      expect(response.body.data.name).toBe('Dashboard Name Updated With Empty Filters');
      expect(response.body.data.filters).toEqual([]);

      const getResponse = await authRequest('get', `${BASE_URL}/${dashboard._id}`).expect(200);
      expect(getResponse.body.data.filters).toEqual([]);
    });

    it('should return 400 when filter source ID does not exist on update', async () => {
      const dashboard = await createTestDashboard();
      const nonExistentSourceId = newObjectId();
      const updatedPayload = createMockDashboardWithIds(traceSource()._id.toString(), {
        name: 'Updated Name',
        filters: [
          {
            id: newObjectId(),
            type: 'QUERY_EXPRESSION',
            name: 'Bad Source Filter',
            expression: 'environment',
            sourceId: nonExistentSourceId,
          },
        ],
      });

      const response = await authRequest('put', `${BASE_URL}/${dashboard._id}`).send(updatedPayload).expect(400);

      expect(response.body).toEqual({ message: `Could not find the following source IDs: ${nonExistentSourceId}` });
    });

    it('should return 404 when dashboard does not exist', async () => {
      const mockDashboard = createMockDashboardWithIds(traceSource()._id.toString());

      await authRequest('put', `${BASE_URL}/${newObjectId()}`).send(mockDashboard).expect(404);
    });

    it('should preserve tile IDs that match existing tiles and generate new IDs for unrecognized tiles', async () => {
      const dashboard = await createTestDashboard();
      const sourceId = traceSource()._id.toString();

      const firstResponse = await authRequest('put', `${BASE_URL}/${dashboard._id}`)
        .send({ name: 'Initial', tiles: [createTimeSeriesChart(sourceId)], tags: [] })
        .expect(200);
      const existingTileId = firstResponse.body.data.tiles[0].id;

      const unknownTileId = newObjectId();
      const response = await authRequest('put', `${BASE_URL}/${dashboard._id}`)
        .send({
          name: 'Updated',
          tiles: [
            { ...createTimeSeriesChart(sourceId), id: existingTileId },
            { ...createTimeSeriesChart(sourceId), id: unknownTileId, x: 6 },
          ],
          tags: [],
        })
        .expect(200);

      expect(response.body.data.tiles[0].id).toBe(existingTileId);
      expect(response.body.data.tiles[1].id).not.toBe(unknownTileId);
      expect(typeof response.body.data.tiles[1].id).toBe('string');
      expect(response.body.data.tiles[1].id.length).toBeGreaterThan(0);
    });

    it('should preserve filter IDs that match existing filters and generate new IDs for unrecognized filters', async () => {
      const dashboard = await createTestDashboard();
      const sourceId = traceSource()._id.toString();

      const firstResponse = await authRequest('put', `${BASE_URL}/${dashboard._id}`)
        .send({
          name: 'Initial',
          tiles: [createTimeSeriesChart(sourceId)],
          tags: [],
          filters: [{ id: newObjectId(), type: 'QUERY_EXPRESSION', name: 'Environment', expression: 'environment', sourceId }],
        })
        .expect(200);
      const existingFilterId = firstResponse.body.data.filters[0].id;

      const unknownFilterId = newObjectId();
      const response = await authRequest('put', `${BASE_URL}/${dashboard._id}`)
        .send({
          name: 'Updated',
          tiles: [createTimeSeriesChart(sourceId)],
          tags: [],
          filters: [
            { id: existingFilterId, type: 'QUERY_EXPRESSION', name: 'Environment', expression: 'environment', sourceId },
            { id: unknownFilterId, type: 'QUERY_EXPRESSION', name: 'Service', expression: 'service_name', sourceId },
          ],
        })
        .expect(200);

      expect(response.body.data.filters[0].id).toBe(existingFilterId);
      expect(response.body.data.filters[1].id).not.toBe(unknownFilterId);
      expect(typeof response.body.data.filters[1].id).toBe('string');
      expect(response.body.data.filters[1].id.length).toBeGreaterThan(0);
    });

    it('can round-trip all supported chart types and all supported fields on each chart type', async () => {
      const tiles = allBuilderTiles('put');
      const initialDashboard = await createTestDashboard();

      const response = await authRequest('put', `${BASE_URL}/${initialDashboard._id}`)
        .send({ name: 'Dashboard with All Chart Types', tiles, tags: ['round-trip-test'] })
        .expect(200);

      for (const [i, tile] of tiles.entries()) expect(omit(response.body.data.tiles[i], ['id'])).toEqual(omit(tile, ['id']));
    });

    it('can round-trip all raw SQL chart config types', async () => {
      const tiles = allRawSqlTiles(true, {
        type: 'dashboard',
        target: { mode: 'template', template: '{{dashboardName}}' },
        whereLanguage: 'lucene',
      });
      const initialDashboard = await createTestDashboard();

      const response = await authRequest('put', `${BASE_URL}/${initialDashboard._id}`)
        .send({ name: 'Dashboard with Raw SQL Chart Types', tiles, tags: ['raw-sql-test'] })
        .expect(200);

      for (const [i, tile] of tiles.entries()) expect(omit(response.body.data.tiles[i], ['id'])).toEqual(omit(tile, ['id']));
    });

    it('should return 400 when source IDs do not exist', async () => {
      const dashboard = await createTestDashboard();
      const nonExistentSourceId = newObjectId();
      const updatedDashboard = createMockDashboardWithIds(nonExistentSourceId, { name: 'Updated Dashboard Name' });

      const response = await authRequest('put', `${BASE_URL}/${dashboard._id}`).send(updatedDashboard).expect(400);

      expect(response.body).toEqual({ message: `Could not find the following source IDs: ${nonExistentSourceId}` });
    });

    it('should return 400 when connection ID does not belong to the team', async () => {
      const dashboard = await createTestDashboard();
      const otherConnectionId = (await fixtures(world.peer().otherTeam).connection({ name: 'Other Team Connection' })).id;

      const response = await authRequest('put', `${BASE_URL}/${dashboard._id}`)
        .send({
          name: 'Updated Dashboard with Foreign Connection',
          tiles: [
            {
              id: newObjectId(),
              name: 'Raw SQL Tile',
              x: 0,
              y: 0,
              w: 6,
              h: 3,
              config: {
                configType: 'sql',
                displayType: 'line',
                connectionId: otherConnectionId,
                sqlTemplate: 'SELECT count() FROM otel_logs WHERE {timeFilter}',
              },
            },
          ],
          tags: [],
        })
        .expect(400);

      expect(response.body).toEqual({ message: `Could not find the following connection IDs: ${otherConnectionId}` });
    });

    it('should return 400 when source connection does not match tile connection', async () => {
      const dashboard = await createTestDashboard();
      const otherConnection = await fixtures(world.peer().agent).connection({ name: 'Other Connection' });

      const response = await authRequest('put', `${BASE_URL}/${dashboard._id}`)
        .send({
          name: 'Updated Dashboard with Mismatched Source Connection',
          tiles: [
            {
              id: newObjectId(),
              name: 'Raw SQL Tile',
              x: 0,
              y: 0,
              w: 6,
              h: 3,
              config: {
                configType: 'sql',
                displayType: 'table',
                connectionId: otherConnection.id,
                sourceId: traceSource()._id.toString(),
                sqlTemplate: 'SELECT count() FROM otel_logs',
              },
            },
          ],
          tags: [],
        })
        .expect(400);

      expect(response.body).toEqual({
        message: `The following source IDs do not match the specified connections: ${traceSource()._id.toString()}`,
      });
    });

    const tableTile = (onClick: Record<string, unknown>) => ({
      id: newObjectId(),
      name: 'Table Chart',
      x: 0,
      y: 0,
      w: 6,
      h: 3,
      config: { displayType: 'table', sourceId: traceSource()._id.toString(), select: [{ aggFn: 'count' }], onClick },
    });

    it('should return 400 on update when a table tile onClick references a non-existent dashboard', async () => {
      const dashboard = await createTestDashboard();
      const nonExistentDashboardId = newObjectId();

      const response = await authRequest('put', `${BASE_URL}/${dashboard._id}`)
        .send({
          name: 'Updated Dashboard',
          tiles: [tableTile({ type: 'dashboard', target: { mode: 'id', id: nonExistentDashboardId }, whereLanguage: 'sql' })],
          tags: [],
        })
        .expect(400);

      expect(response.body).toEqual({ message: `Could not find the following onClick dashboard IDs: ${nonExistentDashboardId}` });
    });

    it('should return 400 on update when a table tile onClick references a non-existent source', async () => {
      const dashboard = await createTestDashboard();
      const nonExistentSourceId = newObjectId();

      const response = await authRequest('put', `${BASE_URL}/${dashboard._id}`)
        .send({
          name: 'Updated Dashboard',
          tiles: [tableTile({ type: 'search', target: { mode: 'id', id: nonExistentSourceId }, whereLanguage: 'sql' })],
          tags: [],
        })
        .expect(400);

      expect(response.body).toEqual({ message: `Could not find the following source IDs: ${nonExistentSourceId}` });
    });

    const tileAlertOn = async (dashboardId: string, tileId: string) => {
      const webhook = await fixtures(world.peer().agent).webhook({
        name: 'Test Webhook',
        service: 'slack',
        url: 'https://hooks.slack.com/test',
      });
      return (
        await authRequest('post', '/api/v2/alerts')
          .send({
            dashboardId,
            tileId,
            source: 'tile',
            threshold: 100,
            interval: '1h',
            thresholdType: 'above',
            channel: { type: 'webhook', webhookId: webhook.id },
          })
          .expect(200)
      ).body.data as { id: string };
    };

    it('should delete alert when tile is updated from builder to raw SQL config and the display type does not support alerts', async () => {
      // The real test stores the builder tile and the alert with the models.
      const dashboard = await createTestDashboard({
        tiles: [
          {
            name: 'Builder Tile',
            x: 0,
            y: 0,
            w: 6,
            h: 3,
            config: { displayType: 'number', sourceId: traceSource()._id.toString(), select: [{ aggFn: 'count', where: '' }] },
          },
        ],
      });
      const tileId = dashboard.tiles[0].id as string;
      const alert = await tileAlertOn(dashboard._id, tileId);

      await authRequest('get', `/api/v2/alerts/${alert.id}`).expect(200);

      await authRequest('put', `${BASE_URL}/${dashboard._id}`)
        .send({
          name: 'Updated Dashboard',
          tags: [],
          tiles: [
            {
              id: tileId,
              name: 'Raw SQL Tile',
              x: 0,
              y: 0,
              w: 6,
              h: 3,
              config: {
                configType: 'sql',
                displayType: 'table',
                connectionId: connection()._id.toString(),
                sqlTemplate: 'SELECT count() FROM otel_logs WHERE {timeFilter}',
              },
            },
          ],
        })
        .expect(200);

      await authRequest('get', `/api/v2/alerts/${alert.id}`).expect(404);
    });

    it('should delete alert when a tile with an alert is removed from the dashboard', async () => {
      const lineConfig = { displayType: 'line', sourceId: traceSource()._id.toString(), select: [{ aggFn: 'count', where: '' }] };
      const dashboard = await createTestDashboard({
        tiles: [
          { name: 'Keep Tile', x: 0, y: 0, w: 6, h: 3, config: lineConfig },
          { name: 'Remove Tile', x: 6, y: 0, w: 6, h: 3, config: lineConfig },
        ],
      });
      const keepTileId = dashboard.tiles[0].id as string;
      const removeTileId = dashboard.tiles[1].id as string;
      const alert = await tileAlertOn(dashboard._id, removeTileId);

      await authRequest('get', `/api/v2/alerts/${alert.id}`).expect(200);

      await authRequest('put', `${BASE_URL}/${dashboard._id}`)
        .send({
          name: 'Updated Dashboard',
          tags: [],
          tiles: [{ id: keepTileId, name: 'Keep Tile', x: 0, y: 0, w: 6, h: 3, config: lineConfig }],
        })
        .expect(200);

      await authRequest('get', `/api/v2/alerts/${alert.id}`).expect(404);
    });

    it('does not re-validate heatmap source-kind for unchanged heatmap tiles', async () => {
      const createResponse = await authRequest('post', BASE_URL)
        .send({
          name: 'Heatmap PUT scoping test',
          tiles: [
            {
              id: newObjectId(),
              name: 'Latency Heatmap',
              x: 0,
              y: 0,
              w: 6,
              h: 3,
              config: { displayType: 'heatmap', sourceId: traceSource()._id.toString(), select: [{ valueExpression: 'Duration' }] },
            },
            {
              id: newObjectId(),
              name: 'Other line tile',
              x: 6,
              y: 0,
              w: 6,
              h: 3,
              config: { displayType: 'line', sourceId: traceSource()._id.toString(), select: [{ aggFn: 'count', where: '' }] },
            },
          ],
          tags: [],
        })
        .expect(200);

      const dashboardId = createResponse.body.data.id;
      const createdHeatmapTile = createResponse.body.data.tiles.find((t: { name: string }) => t.name === 'Latency Heatmap');
      const createdOtherTile = createResponse.body.data.tiles.find((t: { name: string }) => t.name === 'Other line tile');

      // The real test flips the kind in the raw collection; the API changes a source's kind with a full PUT.
      await authRequest('put', `/api/v2/sources/${traceSource()._id}`)
        .send({
          kind: 'log',
          name: 'Traces',
          connection: connection()._id,
          from: { databaseName: 'default', tableName: 'otel_traces' },
          timestampValueExpression: 'Timestamp',
          defaultTableSelectExpression: '*',
        })
        .expect(200);

      await authRequest('put', `${BASE_URL}/${dashboardId}`)
        .send({
          name: 'Heatmap PUT scoping test - renamed',
          tiles: [
            {
              id: createdHeatmapTile.id,
              name: 'Latency Heatmap',
              x: 0,
              y: 0,
              w: 6,
              h: 3,
              config: { displayType: 'heatmap', sourceId: traceSource()._id.toString(), select: [{ valueExpression: 'Duration' }] },
            },
            {
              id: createdOtherTile.id,
              name: 'Other line tile, edited',
              x: 6,
              y: 0,
              w: 6,
              h: 3,
              config: { displayType: 'line', sourceId: traceSource()._id.toString(), select: [{ aggFn: 'count', where: 'level:error' }] },
            },
          ],
          tags: [],
        })
        .expect(200);
    });
  });

  describe.each(['post', 'put'] as const)('filter validation (%s)', (method) => {
    const filterInput = (overrides = {}) => ({
      id: newObjectId(),
      type: 'QUERY_EXPRESSION' as const,
      name: 'Service Name',
      expression: 'ServiceName',
      sourceId: traceSource()._id.toString(),
      ...overrides,
    });

    const sendFilters = async (filters: Record<string, unknown>[]) => {
      const payload = createMockDashboardWithIds(traceSource()._id.toString(), {});
      // JSON drops the `undefined` the real fixtures use to omit a field, as supertest does.
      if (method === 'post')
        return authRequest('post', BASE_URL).send({ ...payload, filters: filters.map((filter) => omit(filter, ['id'])) });
      const dashboard = await createTestDashboard({});
      return authRequest('put', `${BASE_URL}/${dashboard._id}`).send({ ...payload, filters });
    };

    const expectFilters = async (filters: Record<string, unknown>[], expectedStatus: number) => {
      const response = await sendFilters(filters);
      expect(response.status).toBe(expectedStatus);
    };

    it('rejects a variableName that is not a bare token', async () => {
      await expectFilters([filterInput({ isVariableEnabled: true, variableName: 'has space' })], 400);
    });

    describe('filter variable name uniqueness', () => {
      const variableFilter = (overrides = {}) => filterInput({ isVariableEnabled: true, variableName: 'service', ...overrides });

      it('rejects two variable-enabled filters sharing a variable name', async () => {
        await expectFilters([variableFilter(), variableFilter()], 400);
      });

      it('rejects a clash against a name derived from the filter name', async () => {
        await expectFilters(
          [variableFilter({ name: 'Service Name', variableName: undefined }), variableFilter({ variableName: 'Service_Name' })],
          400,
        );
      });

      it('accepts distinct variable names', async () => {
        await expectFilters([variableFilter({ variableName: 'service' }), variableFilter({ variableName: 'environment' })], 200);
      });

      it('accepts duplicate names when the filters are not variable-enabled', async () => {
        await expectFilters(
          [
            variableFilter({ isVariableEnabled: false, variableName: undefined }),
            variableFilter({ isVariableEnabled: undefined, variableName: undefined }),
          ],
          200,
        );
      });

      it('accepts identically named filters that carry no variable fields', async () => {
        const legacyFilter = { isVariableEnabled: undefined, variableName: undefined };
        await expectFilters([variableFilter(legacyFilter), variableFilter(legacyFilter)], 200);
      });

      it('rejects a variable-enabled filter with no usable variable name', async () => {
        await expectFilters([variableFilter({ name: '环境', variableName: undefined })], 400);
      });

      it('accepts an unusable filter name when an explicit variable name is sent', async () => {
        await expectFilters([variableFilter({ name: '环境', variableName: 'env' })], 200);
      });

      it('accepts an unusable filter name when the filter is not variable-enabled', async () => {
        await expectFilters([variableFilter({ name: '环境', variableName: undefined, isVariableEnabled: false })], 200);
      });
    });

    describe('filter requires at least one mode', () => {
      it('rejects a filter with both modes off', async () => {
        const response = await sendFilters([filterInput({ isBroadcastEnabled: false, isVariableEnabled: false })]);

        expect(response.status).toBe(400);
        expect(JSON.stringify(response.body)).toContain('must broadcast its value, be available as a variable, or both');
      });

      it('treats an omitted variable flag as off', async () => {
        const response = await sendFilters([filterInput({ isBroadcastEnabled: false })]);

        expect(response.status).toBe(400);
      });

      it('accepts broadcast-only and variable-only filters', async () => {
        const response = await sendFilters([
          filterInput({ isBroadcastEnabled: true, isVariableEnabled: false }),
          filterInput({ isBroadcastEnabled: false, isVariableEnabled: true, variableName: 'service' }),
        ]);

        expect(response.status).toBe(200);
      });

      it('accepts a filter that carries neither flag', async () => {
        const response = await sendFilters([filterInput()]);

        expect(response.status).toBe(200);
        expect(response.body.data.filters[0]).not.toHaveProperty('isBroadcastEnabled');
      });
    });

    describe('filter fields are gated on the mode that uses them', () => {
      it('rejects a variableName on a filter that is not variable-enabled', async () => {
        const response = await sendFilters([filterInput({ isVariableEnabled: false, variableName: 'service' })]);

        expect(response.status).toBe(400);
        expect(JSON.stringify(response.body)).toContain('sets variableName but is not available as a variable');
      });

      it('rejects a variableName when the variable flag is omitted', async () => {
        const response = await sendFilters([filterInput({ variableName: 'service' })]);

        expect(response.status).toBe(400);
      });

      it('rejects appliesToSourceIds on a filter that does not broadcast', async () => {
        const response = await sendFilters([
          filterInput({
            isBroadcastEnabled: false,
            isVariableEnabled: true,
            variableName: 'service',
            appliesToSourceIds: [traceSource()._id.toString()],
          }),
        ]);

        expect(response.status).toBe(400);
        expect(JSON.stringify(response.body)).toContain('sets appliesToSourceIds but does not broadcast its value');
      });

      it('accepts an empty appliesToSourceIds on a non-broadcasting filter', async () => {
        const response = await sendFilters([
          filterInput({ isBroadcastEnabled: false, isVariableEnabled: true, variableName: 'service', appliesToSourceIds: [] }),
        ]);

        expect(response.status).toBe(200);
      });

      it('accepts appliesToSourceIds when the broadcast flag is omitted', async () => {
        const response = await sendFilters([filterInput({ appliesToSourceIds: [traceSource()._id.toString()] })]);

        expect(response.status).toBe(200);
      });
    });
  });

  describe('Number tile color (HDX-1360)', () => {
    const numberTile = (config: Record<string, unknown>) => ({
      name: 'Number',
      x: 0,
      y: 0,
      w: 3,
      h: 3,
      config: { displayType: 'number', sourceId: traceSource()._id.toString(), select: [{ aggFn: 'count', where: '' }], ...config },
    });

    const postTile = (config: Record<string, unknown>) =>
      authRequest('post', BASE_URL).send({ name: 'Number color dashboard', tiles: [numberTile(config)], tags: [] });

    const rawSqlNumberTile = (config: Record<string, unknown>) => ({
      name: 'Number Raw SQL',
      x: 0,
      y: 0,
      w: 3,
      h: 3,
      config: {
        configType: 'sql',
        displayType: 'number',
        connectionId: connection()._id.toString(),
        sqlTemplate: 'SELECT count() FROM otel_logs WHERE {timeFilter}',
        sourceId: traceSource()._id.toString(),
        ...config,
      },
    });

    it('round-trips a builder number tile with a static color', async () => {
      const create = await postTile({ color: 'chart-red' }).expect(200);
      expect(create.body.data.tiles[0].config.color).toBe('chart-red');

      const get = await authRequest('get', `${BASE_URL}/${create.body.data.id}`).expect(200);
      expect(get.body.data.tiles[0].config.color).toBe('chart-red');
    });

    it('round-trips colorRules covering each operator family', async () => {
      const colorRules = [
        { operator: 'gt', value: 1000, color: 'chart-warning', label: 'Slow' },
        { operator: 'gte', value: 5000, color: 'chart-error', label: 'Critical' },
        { operator: 'lt', value: 0, color: 'chart-gray' },
        { operator: 'lte', value: 10, color: 'chart-purple' },
        { operator: 'between', value: [200, 1000], color: 'chart-blue' },
        { operator: 'eq', value: 0, color: 'chart-cyan' },
        { operator: 'neq', value: 'OK', color: 'chart-success' },
      ];
      const create = await postTile({ colorRules }).expect(200);
      expect(create.body.data.tiles[0].config.colorRules).toEqual(colorRules);

      const get = await authRequest('get', `${BASE_URL}/${create.body.data.id}`).expect(200);
      expect(get.body.data.tiles[0].config.colorRules).toEqual(colorRules);
    });

    it('round-trips a raw SQL number tile with a static color', async () => {
      const create = await authRequest('post', BASE_URL)
        .send({ name: 'Raw SQL number color', tiles: [rawSqlNumberTile({ color: 'chart-blue' })], tags: [] })
        .expect(200);
      expect(create.body.data.tiles[0].config.color).toBe('chart-blue');

      const get = await authRequest('get', `${BASE_URL}/${create.body.data.id}`).expect(200);
      expect(get.body.data.tiles[0].config.color).toBe('chart-blue');
    });

    it('round-trips color and colorRules through an update (PUT)', async () => {
      const created = await postTile({}).expect(200);
      const dashboardId = created.body.data.id;
      const tile = created.body.data.tiles[0];

      const colorRules = [
        { operator: 'gte', value: 5000, color: 'chart-error', label: 'Critical' },
        { operator: 'between', value: [200, 1000], color: 'chart-blue' },
      ];
      const update = await authRequest('put', `${BASE_URL}/${dashboardId}`)
        .send({
          name: 'Number color dashboard',
          tiles: [{ ...tile, config: { ...tile.config, color: 'chart-red', colorRules } }],
          tags: [],
        })
        .expect(200);
      expect(update.body.data.tiles[0].config).toMatchObject({ color: 'chart-red', colorRules });

      const get = await authRequest('get', `${BASE_URL}/${dashboardId}`).expect(200);
      expect(get.body.data.tiles[0].config).toMatchObject({ color: 'chart-red', colorRules });
    });

    it('strips colorRules from a raw SQL number tile, keeping color', async () => {
      const create = await authRequest('post', BASE_URL)
        .send({
          name: 'Raw SQL colorRules',
          tiles: [rawSqlNumberTile({ color: 'chart-blue', colorRules: [{ operator: 'gt', value: 1, color: 'chart-red' }] })],
          tags: [],
        })
        .expect(200);
      expect(create.body.data.tiles[0].config.color).toBe('chart-blue');
      expect(create.body.data.tiles[0].config.colorRules).toBeUndefined();
    });

    it('rejects a static color that is not a palette token', async () => {
      const res = await postTile({ color: 'red' }).expect(400);
      expect(res.body.message).toContain('tiles.0.config.color');
      await postTile({ color: 'chart-99' }).expect(400);
      await postTile({ color: '#ff0000' }).expect(400);
    });

    it('rejects a legacy numeric palette token on input', async () => {
      await postTile({ color: 'chart-1' }).expect(400);
    });

    it('rejects more than 10 colorRules', async () => {
      const colorRules = Array.from({ length: 11 }, (_, i) => ({ operator: 'gt', value: i, color: 'chart-blue' }));
      const res = await postTile({ colorRules }).expect(400);
      expect(res.body.message).toContain('tiles.0.config.colorRules');
    });

    it('rejects a between rule whose value is not a two-number tuple', async () => {
      await postTile({ colorRules: [{ operator: 'between', value: 100, color: 'chart-blue' }] }).expect(400);
    });

    it('rejects a numeric operator rule with a string value', async () => {
      await postTile({ colorRules: [{ operator: 'gt', value: 'high', color: 'chart-blue' }] }).expect(400);
    });

    it('rejects operators the number-tile editor never emits', async () => {
      for (const operator of ['contains', 'startsWith', 'endsWith', 'regex']) {
        const res = await postTile({ colorRules: [{ operator, value: 'error', color: 'chart-blue' }] }).expect(400);
        expect(res.body.message).toContain('tiles.0.config.colorRules');
      }
    });

    it('rejects a per-rule color that is not a palette token', async () => {
      const res = await postTile({ colorRules: [{ operator: 'gt', value: 1, color: 'red' }] }).expect(400);
      expect(res.body.message).toContain('tiles.0.config.colorRules');
      await postTile({ colorRules: [{ operator: 'gt', value: 1, color: 'chart-1' }] }).expect(400);
    });

    it('rejects a rule label longer than 40 characters', async () => {
      await postTile({ colorRules: [{ operator: 'gt', value: 1, color: 'chart-blue', label: 'x'.repeat(41) }] }).expect(400);
    });

    it('round-trips a number tile with neither color nor colorRules', async () => {
      const create = await postTile({}).expect(200);
      expect(create.body.data.tiles[0].config.color).toBeUndefined();
      expect(create.body.data.tiles[0].config.colorRules).toBeUndefined();
    });
  });

  describe('Number tile background chart (HDX-1360)', () => {
    const numberTile = (config: Record<string, unknown>) => ({
      name: 'Number',
      x: 0,
      y: 0,
      w: 3,
      h: 3,
      config: { displayType: 'number', sourceId: traceSource()._id.toString(), select: [{ aggFn: 'count', where: '' }], ...config },
    });

    const postTile = (config: Record<string, unknown>) =>
      authRequest('post', BASE_URL).send({ name: 'Number background chart dashboard', tiles: [numberTile(config)], tags: [] });

    const rawSqlNumberTile = (config: Record<string, unknown>) => ({
      name: 'Number Raw SQL',
      x: 0,
      y: 0,
      w: 3,
      h: 3,
      config: {
        configType: 'sql',
        displayType: 'number',
        connectionId: connection()._id.toString(),
        sqlTemplate: 'SELECT count() FROM otel_logs WHERE {timeFilter}',
        sourceId: traceSource()._id.toString(),
        ...config,
      },
    });

    it('round-trips a builder number tile with a line background chart', async () => {
      const create = await postTile({ backgroundChart: { type: 'line' } }).expect(200);
      expect(create.body.data.tiles[0].config.backgroundChart).toEqual({ type: 'line' });

      const get = await authRequest('get', `${BASE_URL}/${create.body.data.id}`).expect(200);
      expect(get.body.data.tiles[0].config.backgroundChart).toEqual({ type: 'line' });
    });

    it('round-trips an area background chart with a color override', async () => {
      const create = await postTile({ backgroundChart: { type: 'area', color: 'chart-green' } }).expect(200);
      expect(create.body.data.tiles[0].config.backgroundChart).toEqual({ type: 'area', color: 'chart-green' });

      const get = await authRequest('get', `${BASE_URL}/${create.body.data.id}`).expect(200);
      expect(get.body.data.tiles[0].config.backgroundChart).toEqual({ type: 'area', color: 'chart-green' });
    });

    it('round-trips backgroundChart through an update (PUT)', async () => {
      const created = await postTile({}).expect(200);
      const dashboardId = created.body.data.id;
      const tile = created.body.data.tiles[0];

      const update = await authRequest('put', `${BASE_URL}/${dashboardId}`)
        .send({
          name: 'Number background chart dashboard',
          tiles: [{ ...tile, config: { ...tile.config, backgroundChart: { type: 'line', color: 'chart-red' } } }],
          tags: [],
        })
        .expect(200);
      expect(update.body.data.tiles[0].config.backgroundChart).toEqual({ type: 'line', color: 'chart-red' });

      const get = await authRequest('get', `${BASE_URL}/${dashboardId}`).expect(200);
      expect(get.body.data.tiles[0].config.backgroundChart).toEqual({ type: 'line', color: 'chart-red' });
    });

    it('rejects a background chart type outside the line/area enum', async () => {
      const res = await postTile({ backgroundChart: { type: 'bar' } }).expect(400);
      expect(res.body.message).toContain('tiles.0.config.backgroundChart');
    });

    it('rejects a background chart with no type', async () => {
      await postTile({ backgroundChart: { color: 'chart-green' } }).expect(400);
    });

    it('rejects a background chart color that is not a palette token', async () => {
      await postTile({ backgroundChart: { type: 'line', color: '#ff0000' } }).expect(400);
      await postTile({ backgroundChart: { type: 'line', color: 'chart-1' } }).expect(400);
    });

    it('strips backgroundChart from a raw SQL number tile, keeping color', async () => {
      const create = await authRequest('post', BASE_URL)
        .send({
          name: 'Raw SQL backgroundChart',
          tiles: [rawSqlNumberTile({ color: 'chart-blue', backgroundChart: { type: 'line' } })],
          tags: [],
        })
        .expect(200);
      expect(create.body.data.tiles[0].config.color).toBe('chart-blue');
      expect(create.body.data.tiles[0].config.backgroundChart).toBeUndefined();
    });

    it('round-trips a builder number tile with no background chart', async () => {
      const create = await postTile({}).expect(200);
      expect(create.body.data.tiles[0].config.backgroundChart).toBeUndefined();
    });
  });

  describe('Chart formulas', () => {
    const metricSelect = () => [
      { aggFn: 'max', valueExpression: 'Value', metricType: 'gauge', metricName: 'test.errors', alias: 'Errors', where: '' },
      { aggFn: 'max', valueExpression: 'Value', metricType: 'gauge', metricName: 'test.requests', alias: 'Requests', where: '' },
    ];

    const formulaTile = (config: Record<string, unknown>) => ({
      name: 'Formula tile',
      x: 0,
      y: 0,
      w: 6,
      h: 3,
      config: { displayType: 'line', sourceId: metricSource()._id.toString(), select: metricSelect(), ...config },
    });

    const postTile = (config: Record<string, unknown>) =>
      authRequest('post', BASE_URL).send({ name: 'Formula dashboard', tiles: [formulaTile(config)], tags: [] });

    it('round-trips a line tile with formulas and showOperandSeries', async () => {
      const formulas = [{ expression: 'A / B * 100', alias: 'Error rate %', numberFormat: { output: 'percent', mantissa: 1 } }];
      const create = await postTile({ formulas, showOperandSeries: false }).expect(200);
      expect(create.body.data.tiles[0].config.formulas).toEqual(formulas);
      expect(create.body.data.tiles[0].config.showOperandSeries).toBe(false);

      const get = await authRequest('get', `${BASE_URL}/${create.body.data.id}`).expect(200);
      expect(get.body.data.tiles[0].config.formulas).toEqual(formulas);
      expect(get.body.data.tiles[0].config.showOperandSeries).toBe(false);
    });

    it('round-trips a table tile with formulas', async () => {
      const formulas = [{ expression: 'A + B', alias: 'Combined' }];
      const create = await postTile({ displayType: 'table', formulas }).expect(200);
      expect(create.body.data.tiles[0].config.formulas).toEqual(formulas);

      const get = await authRequest('get', `${BASE_URL}/${create.body.data.id}`).expect(200);
      expect(get.body.data.tiles[0].config.formulas).toEqual(formulas);
    });

    it('round-trips a number tile with multiple operands and one formula', async () => {
      const formulas = [{ expression: 'A / B * 100', alias: 'Error rate %' }];
      const create = await postTile({ displayType: 'number', formulas }).expect(200);
      const config = create.body.data.tiles[0].config;
      expect(config.formulas).toEqual(formulas);
      expect(config.select).toHaveLength(2);
      expect(config.showOperandSeries).toBeUndefined();

      const get = await authRequest('get', `${BASE_URL}/${create.body.data.id}`).expect(200);
      expect(get.body.data.tiles[0].config.formulas).toEqual(formulas);
      expect(get.body.data.tiles[0].config.select).toHaveLength(2);

      // The real server persists `showOperandSeries: false` internally for number tiles.
      expect(world.peer().stored('dashboards', create.body.data.id)?.tiles[0].config.showOperandSeries).toBe(false);
    });

    it('round-trips formulas through an update (PUT)', async () => {
      const created = await postTile({}).expect(200);
      const dashboardId = created.body.data.id;
      const tile = created.body.data.tiles[0];

      const formulas = [{ expression: 'B / A', alias: 'Inverse' }];
      const update = await authRequest('put', `${BASE_URL}/${dashboardId}`)
        .send({ name: 'Formula dashboard', tiles: [{ ...tile, config: { ...tile.config, formulas } }], tags: [] })
        .expect(200);
      expect(update.body.data.tiles[0].config.formulas).toEqual(formulas);

      const get = await authRequest('get', `${BASE_URL}/${dashboardId}`).expect(200);
      expect(get.body.data.tiles[0].config.formulas).toEqual(formulas);
    });

    it('rejects a formula referencing a series the tile does not have', async () => {
      const res = await postTile({ formulas: [{ expression: 'A / C' }] }).expect(400);
      expect(res.body.message).toContain('tiles.0.config.formulas.0');
      expect(res.body.message).toContain('Unknown series "C"');
    });

    it('rejects a malformed formula expression', async () => {
      const res = await postTile({ formulas: [{ expression: 'A +' }] }).expect(400);
      expect(res.body.message).toContain('tiles.0.config.formulas.0');
    });

    it('rejects formulas combined with asRatio', async () => {
      const res = await postTile({ formulas: [{ expression: 'A / B' }], asRatio: true }).expect(400);
      expect(res.body.message).toContain('asRatio');
    });

    it('rejects multiple formulas on a number tile', async () => {
      const res = await postTile({ displayType: 'number', formulas: [{ expression: 'A / B' }, { expression: 'A + B' }] }).expect(400);
      expect(res.body.message).toContain('Number charts support a single formula');
    });

    it('rejects multiple select items on a number tile without formulas', async () => {
      const res = await postTile({ displayType: 'number' }).expect(400);
      expect(res.body.message).toContain('Number tiles support a single select item');
    });

    it('round-trips formulas on a log/trace event source', async () => {
      const formulas = [{ expression: 'A / B * 100', alias: 'Error rate %' }];
      const create = await postTile({
        sourceId: traceSource()._id.toString(),
        select: [
          { aggFn: 'count', where: 'StatusCode:Error', alias: 'Errors' },
          { aggFn: 'count', where: '', alias: 'Total' },
        ],
        formulas,
        showOperandSeries: false,
      }).expect(200);
      expect(create.body.data.tiles[0].config.formulas).toEqual(formulas);
      expect(create.body.data.tiles[0].config.showOperandSeries).toBe(false);

      const get = await authRequest('get', `${BASE_URL}/${create.body.data.id}`).expect(200);
      expect(get.body.data.tiles[0].config.formulas).toEqual(formulas);
      expect(get.body.data.tiles[0].config.showOperandSeries).toBe(false);
    });

    it('rejects formulas on a formula-incapable source kind (session)', async () => {
      const sessionSource = await fixtures(world.peer().agent).sessionSource(connection()._id.toString(), traceSource()._id.toString(), {
        name: 'Sessions',
      });

      const res = await postTile({
        sourceId: sessionSource.id,
        select: [
          { aggFn: 'count', where: '', alias: 'A' },
          { aggFn: 'count', where: '', alias: 'B' },
        ],
        formulas: [{ expression: 'A / B' }],
      }).expect(400);
      expect(res.body.message).toContain('require a Metric, Log, or Trace source');
    });

    it('does not block updates over an unchanged formula tile whose source kind changed', async () => {
      const created = await postTile({ formulas: [{ expression: 'A / B', alias: 'Rate' }] }).expect(200);
      const dashboardId = created.body.data.id;
      const tile = created.body.data.tiles[0];

      // The real test flips the kind in the raw collection; the API changes a source's kind with a full PUT.
      await authRequest('put', `/api/v2/sources/${metricSource()._id}`)
        .send({
          kind: 'session',
          name: 'Metrics',
          connection: connection()._id,
          from: { databaseName: 'default', tableName: 'rrweb_events' },
          timestampValueExpression: 'TimeUnix',
          traceSourceId: traceSource()._id,
        })
        .expect(200);

      await authRequest('put', `${BASE_URL}/${dashboardId}`)
        .send({ name: 'Renamed formula dashboard', tiles: [tile], tags: [] })
        .expect(200);

      const res = await authRequest('put', `${BASE_URL}/${dashboardId}`)
        .send({
          name: 'Renamed formula dashboard',
          tiles: [{ ...tile, config: { ...tile.config, formulas: [{ expression: 'B / A', alias: 'Inverse' }] } }],
          tags: [],
        })
        .expect(400);
      expect(res.body.message).toContain('require a Metric, Log, or Trace source');
    });

    it('round-trips a multi-series metric tile with no formulas', async () => {
      const create = await postTile({}).expect(200);
      expect(create.body.data.tiles[0].config.formulas).toBeUndefined();
      expect(create.body.data.tiles[0].config.showOperandSeries).toBeUndefined();
    });
  });

  describe('Containers and tabs', () => {
    const buildTile = (sourceId: string, overrides: Record<string, unknown> = {}) => ({
      id: newObjectId(),
      name: 'Tile',
      x: 0,
      y: 0,
      w: 6,
      h: 3,
      config: { displayType: 'line', sourceId, select: [{ aggFn: 'count', where: '' }] },
      ...overrides,
    });
    const serviceHealth = (tabs: { id: string; title: string }[]) => ({
      id: 'service-health',
      title: 'Service Health',
      collapsed: false,
      tabs,
    });
    const post = (body: Record<string, unknown>) => authRequest('post', BASE_URL).send({ tags: [], ...body });

    it('round-trips containers, tabs, and tile containerId/tabId on create and update', async () => {
      const sourceId = traceSource()._id.toString();
      const groupedTabA = buildTile(sourceId, { name: 'In Group, Tab A', containerId: 'service-health', tabId: 'errors' });
      const groupedTabB = buildTile(sourceId, { name: 'In Group, Tab B', containerId: 'service-health', tabId: 'latency' });
      const groupedNoTab = buildTile(sourceId, { name: 'In Plain Group', containerId: 'overview' });
      const ungrouped = buildTile(sourceId, { name: 'Ungrouped' });

      const containers = [
        {
          id: 'service-health',
          title: 'Service Health',
          collapsed: false,
          collapsible: true,
          bordered: true,
          tabs: [
            { id: 'errors', title: 'Errors' },
            { id: 'latency', title: 'Latency' },
          ],
        },
        { id: 'overview', title: 'Overview', collapsed: true },
      ];

      const createResponse = await authRequest('post', BASE_URL)
        .send({
          name: 'Containers Round-Trip',
          tiles: [groupedTabA, groupedTabB, groupedNoTab, ungrouped],
          tags: ['containers-test'],
          containers,
        })
        .expect(200);

      expect(createResponse.body.data.containers).toEqual(containers);
      const createdTilesByName = Object.fromEntries(createResponse.body.data.tiles.map((t: { name: string }) => [t.name, t]));
      expect(createdTilesByName['In Group, Tab A']).toMatchObject({ containerId: 'service-health', tabId: 'errors' });
      expect(createdTilesByName['In Group, Tab B']).toMatchObject({ containerId: 'service-health', tabId: 'latency' });
      expect(createdTilesByName['In Plain Group']).toMatchObject({ containerId: 'overview' });
      expect(createdTilesByName['In Plain Group'].tabId).toBeUndefined();
      expect(createdTilesByName.Ungrouped.containerId).toBeUndefined();
      expect(createdTilesByName.Ungrouped.tabId).toBeUndefined();

      const dashboardId = createResponse.body.data.id;

      const getResponse = await authRequest('get', `${BASE_URL}/${dashboardId}`).expect(200);
      expect(getResponse.body.data.containers).toEqual(containers);

      const updatedContainers = [
        {
          id: 'service-health',
          title: 'Service Health',
          collapsed: true,
          tabs: [
            { id: 'errors', title: 'Error Rate' },
            { id: 'latency', title: 'Latency' },
          ],
        },
      ];
      const reHomedUngrouped = { ...createdTilesByName.Ungrouped, containerId: 'service-health', tabId: 'errors' };
      const droppedContainerTile = { ...createdTilesByName['In Plain Group'], containerId: undefined, tabId: undefined };

      const updateResponse = await authRequest('put', `${BASE_URL}/${dashboardId}`)
        .send({
          name: 'Containers Round-Trip',
          tiles: [createdTilesByName['In Group, Tab A'], createdTilesByName['In Group, Tab B'], droppedContainerTile, reHomedUngrouped],
          tags: ['containers-test'],
          containers: updatedContainers,
        })
        .expect(200);

      expect(updateResponse.body.data.containers).toEqual(updatedContainers);
      const updatedTilesByName = Object.fromEntries(updateResponse.body.data.tiles.map((t: { name: string }) => [t.name, t]));
      expect(updatedTilesByName['In Plain Group'].containerId).toBeUndefined();
      expect(updatedTilesByName.Ungrouped).toMatchObject({ containerId: 'service-health', tabId: 'errors' });
    });

    it('round-trips a container with no optional fields set', async () => {
      const containers = [{ id: 'minimal', title: 'Minimal', collapsed: false }];

      const response = await post({
        name: 'Minimal Container Dashboard',
        tiles: [buildTile(traceSource()._id.toString())],
        containers,
      }).expect(200);

      expect(response.body.data.containers).toEqual(containers);
      const [container] = response.body.data.containers;
      expect(container.collapsible).toBeUndefined();
      expect(container.bordered).toBeUndefined();
      expect(container.tabs).toBeUndefined();
    });

    it('rejects a tile that references an unknown containerId', async () => {
      const response = await post({
        name: 'Bad Container Reference',
        tiles: [buildTile(traceSource()._id.toString(), { containerId: 'does-not-exist' })],
        containers: [{ id: 'real-container', title: 'Real', collapsed: false }],
      }).expect(400);

      expect(response.body.message).toContain('unknown containerId "does-not-exist"');
    });

    it('rejects a tile that references an unknown tabId', async () => {
      const response = await post({
        name: 'Bad Tab Reference',
        tiles: [buildTile(traceSource()._id.toString(), { containerId: 'service-health', tabId: 'ghost' })],
        containers: [serviceHealth([{ id: 'errors', title: 'Errors' }])],
      }).expect(400);

      expect(response.body.message).toContain('unknown tabId "ghost"');
    });

    it('rejects a tile that supplies tabId without containerId', async () => {
      const response = await post({
        name: 'Tab Without Container',
        tiles: [buildTile(traceSource()._id.toString(), { tabId: 'errors' })],
        containers: [serviceHealth([{ id: 'errors', title: 'Errors' }])],
      }).expect(400);

      expect(response.body.message).toContain('tabId requires containerId to be set');
    });

    it('rejects duplicate container ids', async () => {
      const response = await post({
        name: 'Duplicate Containers',
        tiles: [buildTile(traceSource()._id.toString())],
        containers: [
          { id: 'dupe', title: 'A', collapsed: false },
          { id: 'dupe', title: 'B', collapsed: false },
        ],
      }).expect(400);

      expect(response.body.message).toContain('Container IDs must be unique');
    });

    it('rejects duplicate tab ids within a container', async () => {
      const response = await post({
        name: 'Duplicate Tabs',
        tiles: [buildTile(traceSource()._id.toString())],
        containers: [
          serviceHealth([
            { id: 'errors', title: 'Errors' },
            { id: 'errors', title: 'Errors Two' },
          ]),
        ],
      }).expect(400);

      expect(response.body.message).toContain('Duplicate tab id "errors" in container "service-health"');
    });

    it('round-trips a dashboard with no containers (backward compat)', async () => {
      const response = await post({ name: 'No Containers', tiles: [buildTile(traceSource()._id.toString())] }).expect(200);

      expect(response.body.data.containers).toBeUndefined();

      const getResponse = await authRequest('get', `${BASE_URL}/${response.body.data.id}`).expect(200);
      expect(getResponse.body.data.containers).toBeUndefined();
    });

    it('normalizes an explicitly empty containers array to absent on read', async () => {
      const response = await post({
        name: 'Empty Containers Array',
        tiles: [buildTile(traceSource()._id.toString())],
        containers: [],
      }).expect(200);

      expect(response.body.data.containers).toBeUndefined();

      const getResponse = await authRequest('get', `${BASE_URL}/${response.body.data.id}`).expect(200);
      expect(getResponse.body.data.containers).toBeUndefined();
    });

    it('rejects duplicate container ids on PUT (update path)', async () => {
      const sourceId = traceSource()._id.toString();
      const createResponse = await post({
        name: 'PUT Duplicate Containers',
        tiles: [buildTile(sourceId)],
        containers: [
          { id: 'a', title: 'A', collapsed: false },
          { id: 'b', title: 'B', collapsed: false },
        ],
      }).expect(200);
      const dashboardId = createResponse.body.data.id;

      const response = await authRequest('put', `${BASE_URL}/${dashboardId}`)
        .send({
          name: 'PUT Duplicate Containers',
          tiles: [buildTile(sourceId)],
          tags: [],
          containers: [
            { id: 'dupe', title: 'A', collapsed: false },
            { id: 'dupe', title: 'B', collapsed: false },
          ],
        })
        .expect(400);

      expect(response.body.message).toContain('Container IDs must be unique');
    });

    it('rejects a tile with containerId set when the dashboard omits containers entirely', async () => {
      const response = await post({
        name: 'Tile with containerId, no containers field',
        tiles: [buildTile(traceSource()._id.toString(), { containerId: 'service-health' })],
      }).expect(400);
      expect(response.body.message).toContain('unknown containerId "service-health"');
    });

    it('does not require tabId when a tile is in a tabbed container (tile renders without a tab)', async () => {
      await post({
        name: 'Tabbed container with tile that has no tabId',
        tiles: [buildTile(traceSource()._id.toString(), { containerId: 'service-health' })],
        containers: [
          serviceHealth([
            { id: 'errors', title: 'Errors' },
            { id: 'latency', title: 'Latency' },
          ]),
        ],
      }).expect(200);
    });

    it('rejects an empty-string containerId or tabId on a tile', async () => {
      const sourceId = traceSource()._id.toString();
      const containerResp = await post({ name: 'Empty containerId', tiles: [buildTile(sourceId, { containerId: '' })] }).expect(400);
      expect(containerResp.body.message).toContain('tiles.0.containerId');

      const tabResp = await post({
        name: 'Empty tabId',
        tiles: [buildTile(sourceId, { containerId: 'service-health', tabId: '' })],
        containers: [serviceHealth([{ id: 'errors', title: 'Errors' }])],
      }).expect(400);
      expect(tabResp.body.message).toContain('tiles.0.tabId');
    });

    it('accepts a 256-char containerId, rejects 257', async () => {
      const sourceId = traceSource()._id.toString();
      const idAtMax = 'a'.repeat(256);
      const idTooLong = 'a'.repeat(257);

      await post({
        name: 'Containers id at boundary',
        tiles: [buildTile(sourceId, { containerId: idAtMax })],
        containers: [{ id: idAtMax, title: 'At boundary', collapsed: false }],
      }).expect(200);

      const overResp = await post({
        name: 'Containers id over boundary',
        tiles: [buildTile(sourceId, { containerId: idTooLong })],
        containers: [{ id: idTooLong, title: 'Over boundary', collapsed: false }],
      }).expect(400);
      expect(overResp.body.message).toContain('tiles.0.containerId');
    });

    it('accepts a 256-char tabId, rejects 257', async () => {
      const sourceId = traceSource()._id.toString();
      const tabAtMax = 'b'.repeat(256);
      const tabTooLong = 'b'.repeat(257);

      await post({
        name: 'Tab id at boundary',
        tiles: [buildTile(sourceId, { containerId: 'service-health', tabId: tabAtMax })],
        containers: [serviceHealth([{ id: tabAtMax, title: 'At boundary' }])],
      }).expect(200);

      const overResp = await post({
        name: 'Tab id over boundary',
        tiles: [buildTile(sourceId, { containerId: 'service-health', tabId: tabTooLong })],
        containers: [serviceHealth([{ id: tabTooLong, title: 'Over boundary' }])],
      }).expect(400);
      expect(overResp.body.message).toContain('tiles.0.tabId');
    });

    it('rejects a payload of 501 tiles', async () => {
      const sourceId = traceSource()._id.toString();
      const tooManyTiles = Array.from({ length: 501 }, (_, i) => buildTile(sourceId, { name: `Tile ${i}` }));

      const resp = await post({ name: 'Too many tiles', tiles: tooManyTiles }).expect(400);
      expect(resp.body.message).toContain('tiles');
    });

    it('preserves existing containers on PUT when the body omits the field', async () => {
      const sourceId = traceSource()._id.toString();
      const containers = [serviceHealth([{ id: 'errors', title: 'Errors' }])];

      const created = await post({
        name: 'Preserve containers on PUT',
        tiles: [buildTile(sourceId, { name: 'In container', containerId: 'service-health', tabId: 'errors' })],
        containers,
      }).expect(200);
      const dashboardId = created.body.data.id;
      const [createdTile] = created.body.data.tiles;

      const putResp = await authRequest('put', `${BASE_URL}/${dashboardId}`)
        .send({ name: 'Preserve containers on PUT', tiles: [createdTile], tags: [] })
        .expect(200);

      expect(putResp.body.data.containers).toEqual(containers);
      const [putTile] = putResp.body.data.tiles;
      expect(putTile.containerId).toBe('service-health');
      expect(putTile.tabId).toBe('errors');
    });

    it('rejects a PUT that references an unknown containerId when body omits containers', async () => {
      const sourceId = traceSource()._id.toString();
      const created = await post({
        name: 'PUT unknown containerId',
        tiles: [buildTile(sourceId, { name: 'Real tile' })],
        containers: [{ id: 'real', title: 'Real', collapsed: false }],
      }).expect(200);
      const dashboardId = created.body.data.id;

      const resp = await authRequest('put', `${BASE_URL}/${dashboardId}`)
        .send({
          name: 'PUT unknown containerId',
          tiles: [buildTile(sourceId, { name: 'Bad ref', containerId: 'does-not-exist' })],
          tags: [],
        })
        .expect(400);
      expect(resp.body.message).toContain('unknown containerId "does-not-exist"');
    });
  });

  describe('DELETE /:id', () => {
    it('should delete a dashboard', async () => {
      const dashboard = await createTestDashboard();

      await authRequest('delete', `${BASE_URL}/${dashboard._id}`).expect(200);

      expect(world.peer().stored('dashboards', dashboard._id)).toBeUndefined();
    });
  });

  describe('Authentication', () => {
    it('should require authentication for all endpoints', async () => {
      const unauthenticatedAgent = world.peer().anonymous;

      const testId = '507f1f77bcf86cd799439011';
      const routes = [
        { method: 'get', path: BASE_URL },
        { method: 'get', path: `${BASE_URL}/${testId}` },
        { method: 'post', path: BASE_URL },
        { method: 'put', path: `${BASE_URL}/${testId}` },
        { method: 'delete', path: `${BASE_URL}/${testId}` },
        { method: 'post', path: `${BASE_URL}/validate` },
      ] as const;

      for (const { method, path } of routes) {
        await unauthenticatedAgent[method](path).expect(401);
      }
    });
  });

  describe('POST /api/v2/dashboards/validate', () => {
    it('returns valid:true for a well-formed builder dashboard', async () => {
      const res = await authRequest('post', `${BASE_URL}/validate`).send({ name: 'D', tiles: [] });
      expect(res.status).toBe(200);
      expect(res.body.valid).toBe(true);
      expect(res.body.errors).toEqual([]);
    });

    it('returns valid:false with errors for a malformed body', async () => {
      const res = await authRequest('post', `${BASE_URL}/validate`).send({ tiles: 'nope' });
      expect(res.status).toBe(200);
      expect(res.body.valid).toBe(false);
      expect(res.body.errors.length).toBeGreaterThan(0);
    });

    it('returns a normalized body with zod defaults applied when valid', async () => {
      const res = await authRequest('post', `${BASE_URL}/validate`).send({ name: 'D', tiles: [] });
      expect(res.body.valid).toBe(true);
      expect(res.body.normalized).toMatchObject({ name: 'D', tiles: [] });
    });

    it('does not persist (dashboard count unchanged)', async () => {
      const before = world.peer().storedAll('dashboards').length;
      await authRequest('post', `${BASE_URL}/validate`).send({ name: 'D', tiles: [] });
      expect(world.peer().storedAll('dashboards').length).toBe(before);
    });
  });
});
