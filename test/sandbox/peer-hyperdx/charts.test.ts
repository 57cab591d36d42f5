/**
 * Port of hyperdx `packages/api/src/routers/external-api/__tests__/charts.int.test.ts` (b52a6fa8):
 * the cases decided before or without ClickHouse (authentication, validation, source look-up, the
 * Lucene parse of `where`). The cases that assert values computed from the ClickHouse rows the
 * real test inserts are listed in NOT-PORTABLE.md. Sources are created through the API.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { fixtures, newObjectId, usePeer } from './support.js';

const DEFAULT_END_TIME = Math.floor(Date.now() / 60000) * 60000;
const DEFAULT_START_TIME = DEFAULT_END_TIME - 3600 * 1000;

const createSeriesRequestPayload = (sourceId: string, overrides: Record<string, any> = {}) => {
  const defaults = {
    startTime: DEFAULT_START_TIME,
    endTime: DEFAULT_END_TIME,
    series: [{ sourceId, dataSource: 'events', aggFn: 'count', where: '', groupBy: [] }],
  };
  const result = { ...defaults, ...overrides, series: overrides.series ?? defaults.series };
  if (overrides.series) {
    result.series = result.series.map((s: Record<string, unknown>) => ({ sourceId, ...s }));
  }
  return result;
};

const peer = usePeer();
const BASE_URL = '/api/v2/charts/series';
const authRequest = (method: 'post', url: string) => peer().authRequest(method, url);

let logSource: { id: string };
beforeEach(async () => {
  const f = fixtures(peer().agent);
  const connection = await f.connection();
  logSource = await f.logSource(connection.id, { name: 'Logs', defaultTableSelectExpression: 'Timestamp, Body' });
});

describe('charts.int.test.ts > External API v2 Charts', () => {
  describe('POST /api/v2/charts/series', () => {
    it('should return 401 when user is not authenticated', async () => {
      await peer().anonymous.post(BASE_URL).expect(401);
    });

    it('should return 404 if sourceId is invalid or not found', async () => {
      const payload = {
        startTime: DEFAULT_START_TIME,
        endTime: DEFAULT_END_TIME,
        series: [{ sourceId: newObjectId(), aggFn: 'count', where: '', groupBy: [] }],
      };
      await authRequest('post', BASE_URL).send(payload).expect(404);
    });

    it('should return 400 if series array is missing or empty', async () => {
      await authRequest('post', BASE_URL).send({ startTime: DEFAULT_START_TIME, endTime: DEFAULT_END_TIME, series: [] }).expect(400);

      await authRequest('post', BASE_URL).send({ startTime: DEFAULT_START_TIME, endTime: DEFAULT_END_TIME }).expect(400);
    });

    it('should return 400 if invalid time range is provided', async () => {
      const payload = {
        startTime: 142415152,
        endTime: 5215152,
        series: [{ sourceId: logSource.id, aggFn: 'count', where: 'SeverityText:info', groupBy: ['ServiceName'] }],
      };
      await authRequest('post', BASE_URL).send(payload).expect(400);
    });

    it('should return 400 if series array exceeds max length (5)', async () => {
      const payload = createSeriesRequestPayload(logSource.id, { series: Array(6).fill({ aggFn: 'count', where: '', groupBy: [] }) });
      await authRequest('post', BASE_URL).send(payload).expect(400);
    });

    it('should return 400 if groupBy fields are inconsistent across series', async () => {
      const payload = createSeriesRequestPayload(logSource.id, {
        series: [
          { aggFn: 'count', where: '', groupBy: ['field1'] },
          { aggFn: 'count', where: '', groupBy: ['field2'] },
        ],
      });
      await authRequest('post', BASE_URL).send(payload).expect(400);
    });

    it('should return 400 for invalid aggFn', async () => {
      const payload = createSeriesRequestPayload(logSource.id, { series: [{ aggFn: 'invalid_function', where: '', groupBy: [] }] });
      await authRequest('post', BASE_URL).send(payload).expect(400);
    });

    it('should handle lucene query errors gracefully', async () => {
      const payload = createSeriesRequestPayload(logSource.id, { series: [{ aggFn: 'count', where: '(invalid query', groupBy: [] }] });
      const response = await authRequest('post', BASE_URL).send(payload).expect(500);
      expect(response.body).toHaveProperty('error');
    });
  });
});
