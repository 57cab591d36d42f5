/**
 * Port of hyperdx `packages/api/src/routers/external-api/__tests__/search.int.test.ts` (b52a6fa8):
 * validation, time range, source and connection look-ups, error envelopes, and the row-shape and
 * paging cases that hold for any rows (the sandbox answers synthetic, deterministic rows, one per
 * minute, newest first). The cases that filter or count the rows the real test inserts into
 * ClickHouse are listed in NOT-PORTABLE.md.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { fixtures, usePeer } from './support.js';

const DEFAULT_END_TIME = Math.floor(Date.now() / 60000) * 60000;
const DEFAULT_START_TIME = DEFAULT_END_TIME - 3600 * 1000;
const iso = (ms: number) => new Date(ms).toISOString();

const peer = usePeer();
const search = (body: Record<string, unknown>) => peer().authRequest('post', '/api/v2/search').send(body);

let logSource: { id: string };
beforeEach(async () => {
  const f = fixtures(peer().agent);
  const connection = await f.connection();
  logSource = await f.logSource(connection.id, { name: 'Logs', defaultTableSelectExpression: 'Timestamp, SeverityText, Body' });
});

describe('search.int.test.ts > External API v2 Search', () => {
  it('returns 400 when sourceId is missing', async () => {
    const res = await search({ startTime: iso(DEFAULT_START_TIME), endTime: iso(DEFAULT_END_TIME) });
    expect(res.status).toBe(400);
    expect(res.body).toHaveProperty('message');
  });

  it('returns 400 when sourceId is not a valid ObjectId', async () => {
    const res = await search({ sourceId: 'not-an-objectid', startTime: iso(DEFAULT_START_TIME), endTime: iso(DEFAULT_END_TIME) });
    expect(res.status).toBe(400);
    expect(res.body).toHaveProperty('message');
  });

  it('returns 400 when startTime is not a valid ISO string', async () => {
    const res = await search({ sourceId: logSource.id, startTime: 'not-a-date', endTime: iso(DEFAULT_END_TIME) });
    expect(res.status).toBe(400);
    expect(res.body).toHaveProperty('message');
  });

  it('returns 400 when startTime is after endTime', async () => {
    const res = await search({ sourceId: logSource.id, startTime: iso(DEFAULT_END_TIME), endTime: iso(DEFAULT_START_TIME) });
    expect(res.status).toBe(400);
    expect(res.body).toHaveProperty('message');
  });

  it('returns 400 when where exceeds 8192 characters', async () => {
    const res = await search({
      sourceId: logSource.id,
      startTime: iso(DEFAULT_START_TIME),
      endTime: iso(DEFAULT_END_TIME),
      where: 'x'.repeat(8 * 1024 + 1),
    });
    expect(res.status).toBe(400);
    expect(res.body).toHaveProperty('message');
  });

  it('returns 400 when select exceeds 4096 characters', async () => {
    const res = await search({
      sourceId: logSource.id,
      startTime: iso(DEFAULT_START_TIME),
      endTime: iso(DEFAULT_END_TIME),
      select: 'x'.repeat(4 * 1024 + 1),
    });
    expect(res.status).toBe(400);
    expect(res.body).toHaveProperty('message');
  });

  it('returns 400 when offset exceeds 10000', async () => {
    const res = await search({
      sourceId: logSource.id,
      startTime: iso(DEFAULT_START_TIME),
      endTime: iso(DEFAULT_END_TIME),
      offset: 10_001,
    });
    expect(res.status).toBe(400);
    expect(res.body).toHaveProperty('message');
  });

  it('returns 400 when maxResults exceeds 2000', async () => {
    const res = await search({
      sourceId: logSource.id,
      startTime: iso(DEFAULT_START_TIME),
      endTime: iso(DEFAULT_END_TIME),
      maxResults: 9999,
    });
    expect(res.status).toBe(400);
    expect(res.body).toHaveProperty('message');
  });

  it('returns 401 when no auth token is provided', async () => {
    const res = await peer()
      .anonymous.post('/api/v2/search')
      .send({ sourceId: logSource.id, startTime: iso(DEFAULT_START_TIME), endTime: iso(DEFAULT_END_TIME) });
    expect(res.status).toBe(401);
  });

  it('returns 404 when sourceId does not exist', async () => {
    const res = await search({ sourceId: '000000000000000000000000', startTime: iso(DEFAULT_START_TIME), endTime: iso(DEFAULT_END_TIME) });
    expect(res.status).toBe(404);
    expect(res.body).toHaveProperty('message');
  });

  it('returns 404 when the connection for a source no longer exists', async () => {
    const f = fixtures(peer().agent);
    const deadConn = await f.connection({ name: 'Dead Connection' });
    const orphanSource = await f.logSource(deadConn.id, { name: 'Orphan' });
    await peer().authRequest('delete', `/api/v2/connections/${deadConn.id}`).expect(200);

    const res = await search({ sourceId: orphanSource.id, startTime: iso(DEFAULT_START_TIME), endTime: iso(DEFAULT_END_TIME) });
    expect(res.status).toBe(404);
    expect(res.body).toHaveProperty('message');
  });

  it('returns rows from the source with default settings', async () => {
    const res = await search({ sourceId: logSource.id, startTime: iso(DEFAULT_START_TIME), endTime: iso(DEFAULT_END_TIME) });

    expect(res.status).toBe(200);
    expect(res.body).toHaveProperty('data');
    expect(res.body).toHaveProperty('rows');
    expect(Array.isArray(res.body.data)).toBe(true);
    expect(res.body.data.length).toBeGreaterThan(0);
    expect(res.body.rows).toBe(res.body.data.length);
  });

  it('returns flat row objects with column names as top-level keys (not a nested envelope)', async () => {
    const res = await search({
      sourceId: logSource.id,
      startTime: iso(DEFAULT_START_TIME),
      endTime: iso(DEFAULT_END_TIME),
      select: 'Timestamp,SeverityText,Body',
    });

    expect(res.status).toBe(200);
    expect(res.body.data.length).toBeGreaterThan(0);
    for (const row of res.body.data) {
      expect(typeof row.Timestamp).toBe('string');
      expect(typeof row.SeverityText).toBe('string');
      expect(typeof row.Body).toBe('string');
      expect(row).not.toHaveProperty('meta');
      expect(row).not.toHaveProperty('statistics');
    }
  });

  it('returns exactly the requested select columns and no others', async () => {
    const res = await search({
      sourceId: logSource.id,
      startTime: iso(DEFAULT_START_TIME),
      endTime: iso(DEFAULT_END_TIME),
      select: 'Timestamp,SeverityText,Body',
    });

    expect(res.status).toBe(200);
    expect(res.body.data.length).toBeGreaterThan(0);
    for (const row of res.body.data) {
      expect(Object.keys(row).sort()).toEqual(['Body', 'SeverityText', 'Timestamp']);
    }
  });

  it('respects maxResults', async () => {
    const res = await search({ sourceId: logSource.id, startTime: iso(DEFAULT_START_TIME), endTime: iso(DEFAULT_END_TIME), maxResults: 1 });

    expect(res.status).toBe(200);
    expect(res.body.data.length).toBeLessThanOrEqual(1);
  });

  it('respects offset for pagination with deterministic DESC timestamp ordering', async () => {
    const page1 = await search({
      sourceId: logSource.id,
      startTime: iso(DEFAULT_START_TIME),
      endTime: iso(DEFAULT_END_TIME),
      maxResults: 2,
      offset: 0,
      select: 'Timestamp,SeverityText,Body',
    });
    const page2 = await search({
      sourceId: logSource.id,
      startTime: iso(DEFAULT_START_TIME),
      endTime: iso(DEFAULT_END_TIME),
      maxResults: 1,
      offset: 1,
      select: 'Timestamp,SeverityText,Body',
    });

    expect(page1.status).toBe(200);
    expect(page2.status).toBe(200);
    expect(page1.body.data.length).toBe(2);
    expect(page2.body.data.length).toBe(1);
    expect(page2.body.data[0].Body).toBe(page1.body.data[1].Body);
    expect(page2.body.data[0].Timestamp).toBe(page1.body.data[1].Timestamp);
  });

  it('uses { message } envelope for 4xx errors', async () => {
    const res = await search({ sourceId: 'not-an-objectid' });
    expect(res.status).toBe(400);
    expect(res.body).toHaveProperty('message');
    expect(typeof res.body.message).toBe('string');
    expect(res.body.message.length).toBeGreaterThan(0);
    expect(res.body).not.toHaveProperty('error');
  });

  it('uses { message } envelope for 404 errors', async () => {
    const res = await search({ sourceId: '000000000000000000000000', startTime: iso(DEFAULT_START_TIME), endTime: iso(DEFAULT_END_TIME) });
    expect(res.status).toBe(404);
    expect(res.body).toHaveProperty('message');
    expect(typeof res.body.message).toBe('string');
    expect(res.body).not.toHaveProperty('error');
  });

  it('returns 400 when whereLanguage is not lucene or sql', async () => {
    const res = await search({
      sourceId: logSource.id,
      startTime: iso(DEFAULT_START_TIME),
      endTime: iso(DEFAULT_END_TIME),
      whereLanguage: 'graphql',
    });
    expect(res.status).toBe(400);
    expect(res.body).toHaveProperty('message');
  });

  it('returns 400 when select contains a semicolon', async () => {
    const res = await search({
      sourceId: logSource.id,
      startTime: iso(DEFAULT_START_TIME),
      endTime: iso(DEFAULT_END_TIME),
      select: 'Timestamp; DROP TABLE otel_logs',
    });
    expect(res.status).toBe(400);
    expect(res.body).toHaveProperty('message');
  });

  it('returns 400 when select contains a SELECT subquery', async () => {
    const res = await search({
      sourceId: logSource.id,
      startTime: iso(DEFAULT_START_TIME),
      endTime: iso(DEFAULT_END_TIME),
      select: '(SELECT max(Timestamp) FROM system.tables)',
    });
    expect(res.status).toBe(400);
    expect(res.body).toHaveProperty('message');
  });

  it('accepts maxResults at the upper boundary of 2000', async () => {
    const res = await search({
      sourceId: logSource.id,
      startTime: iso(DEFAULT_START_TIME),
      endTime: iso(DEFAULT_END_TIME),
      maxResults: 2000,
    });
    expect(res.status).toBe(200);
    expect(res.body).toHaveProperty('data');
  });

  it('accepts offset at the upper boundary of 10000', async () => {
    const res = await search({ sourceId: logSource.id, startTime: iso(DEFAULT_START_TIME), endTime: iso(DEFAULT_END_TIME), offset: 10000 });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([]);
  });

  it('returns 404 when sourceId belongs to a different team', async () => {
    const other = fixtures(peer().otherTeam);
    const otherConnection = await other.connection({ name: 'Other Team Connection' });
    const otherSource = await other.logSource(otherConnection.id, { name: 'Other Team Source' });

    const res = await search({ sourceId: otherSource.id, startTime: iso(DEFAULT_START_TIME), endTime: iso(DEFAULT_END_TIME) });

    expect(res.status).toBe(404);
    expect(res.body).toHaveProperty('message');
  });
});
