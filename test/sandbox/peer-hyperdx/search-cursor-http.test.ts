/**
 * Cursor paging of `POST /api/v2/search` over HTTP, newer than b52a6fa8: the route's behaviour
 * (hyperdx v2/search.ts and v2/utils/search.ts @ 0ffe81b0) — `cursor: "start"`, `nextCursor` until
 * null, the two cursor errors as 400 `{message}`. The vendor has no integration test of it in the
 * index (its search.int.test.ts there, @ 52ee76db, predates cursors); these cases are the sandbox's,
 * each asserting what the route's code does.
 */
import { describe, expect, it } from 'vitest';
import { encodeSearchCursor, fingerprintQuery } from '../../../src/sandbox/domain/search-cursor.js';
import { fixtures, usePeer } from './support.js';

const peer = usePeer();
const END_MS = Math.floor(Date.now() / 60000) * 60000;
const iso = (ms: number) => new Date(ms).toISOString();
const HOURS_2 = { startTime: iso(END_MS - 2 * 3600_000), endTime: iso(END_MS) };

async function logSourceId(): Promise<string> {
  const f = fixtures(peer().agent);
  const connection = await f.connection();
  return (await f.logSource(connection.id, { defaultTableSelectExpression: 'Timestamp, Body' })).id;
}

const search = (body: Record<string, unknown>) => peer().authRequest('post', '/api/v2/search').send(body);

describe('v2/search.ts @ 0ffe81b0 > cursor paging over HTTP', () => {
  it('walks every window to a null nextCursor and answers the rows offset paging answers, each once', async () => {
    const sourceId = await logSourceId();
    const whole = await search({ sourceId, ...HOURS_2, maxResults: 2000 }).expect(200);
    expect(whole.body.nextCursor).toBeNull();
    const walked: unknown[] = [];
    let cursor: unknown = 'start';
    let pages = 0;
    // Bounded: a server that never ends the walk fails the count below instead of looping.
    while (typeof cursor === 'string' && pages < 20) {
      const page = await search({ sourceId, ...HOURS_2, maxResults: 40, cursor }).expect(200);
      expect(page.body.rows).toBe(page.body.data.length);
      walked.push(...page.body.data);
      cursor = page.body.nextCursor;
      pages += 1;
    }
    // 15 rows in the 15m window (a short page that is not the end), then 105 in the 6h window: 40, 40, 25.
    expect(pages).toBe(4);
    expect(walked).toEqual(whole.body.data);
  });

  it('answers a cursor changed query with 400 "Cursor does not match this query. Start a new search."', async () => {
    const sourceId = await logSourceId();
    const first = await search({ sourceId, ...HOURS_2, maxResults: 5, cursor: 'start' }).expect(200);
    const res = await search({ sourceId, ...HOURS_2, maxResults: 5, where: 'Body:x', cursor: first.body.nextCursor }).expect(400);
    expect(res.body).toEqual({ message: 'Cursor does not match this query. Start a new search.' });
  });

  it('answers a malformed cursor with 400 "Cursor is malformed." before looking up the source', async () => {
    const res = await search({ sourceId: '000000000000000000000000', ...HOURS_2, cursor: 'not-a-cursor' }).expect(400);
    expect(res.body).toEqual({ message: 'Cursor is malformed.' });
  });

  it('answers a window past the range as a query mismatch, 400 with the route message', async () => {
    const sourceId = await logSourceId();
    const fp = fingerprintQuery({ sourceId, where: '', whereLanguage: 'lucene', select: '', orderBy: '' });
    const cursor = encodeSearchCursor({ windowIndex: 9, offset: 0, ...HOURS_2 }, fp);
    const res = await search({ sourceId, ...HOURS_2, cursor }).expect(400);
    expect(res.body).toEqual({ message: 'Cursor refers to a page outside the current time range' });
  });

  it('ignores offset in a cursor walk and answers nextCursor null to an offset request', async () => {
    const sourceId = await logSourceId();
    const walk = await search({ sourceId, ...HOURS_2, maxResults: 3, offset: 7, cursor: 'start' }).expect(200);
    const plain = await search({ sourceId, ...HOURS_2, maxResults: 3 }).expect(200);
    expect(walk.body.data).toEqual(plain.body.data);
    expect(typeof walk.body.nextCursor).toBe('string');
    expect(plain.body.nextCursor).toBeNull();
  });

  it('rejects a cursor longer than 1024 characters as a body validation 400', async () => {
    const sourceId = await logSourceId();
    const res = await search({ sourceId, ...HOURS_2, cursor: 'x'.repeat(1025) }).expect(400);
    expect(res.body).toHaveProperty('message');
  });
});
