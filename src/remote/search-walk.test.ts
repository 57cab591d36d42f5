/** A search walk follows the service's cursor to its end, within its budget, never twice over one cursor, and fails on a refused cursor. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../core/errors.js';
import type { RequestStats, SearchQuery } from '../core/ports.js';
import { Api, type Requester } from './api.js';
import { responseOf } from './response.js';
import { searchRows } from './search-walk.js';
import { selfHostedEnvelope } from './selfhosted.js';
import type { RequestInit } from './transport-types.js';

const QUERY: SearchQuery = {
  sourceId: '69b46cb0d964ce2d0b9506a8',
  startTime: '2026-05-10T00:00:00.000Z',
  endTime: '2026-05-10T01:00:00.000Z',
  where: '',
  whereLanguage: 'lucene',
  select: 'Body',
  maxResults: 3,
};

type Body = { cursor?: string; offset?: number; maxResults: number };
type Answer = { status: number; body: unknown };

/** A service answering `answer(request body, n-th request)`; it records what it was sent. */
function service(answer: (body: Body, n: number) => Answer): Requester & { sent: Body[] } {
  const sent: Body[] = [];
  return {
    stats: {} as RequestStats,
    sent,
    request(init: RequestInit) {
      const body = init.body as Body;
      sent.push(body);
      const a = answer(body, sent.length - 1);
      return Promise.resolve(responseOf(a.status, {}, Buffer.from(JSON.stringify(a.body))));
    },
    close: () => Promise.resolve(),
  };
}

const walk = (svc: Requester, maxRequests: number, query = QUERY) =>
  searchRows(new Api(svc, selfHostedEnvelope), '/api/v2/search', query, { maxRequests });

const rows = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => ({ Body: `${prefix}${i}` }));

/** A cursor service over windows of rows (as hyperdx pages: a window's pages, then the next window's). */
function windowed(windows: number[], pageSize: number): (body: Body) => Answer {
  return (body) => {
    const [w, o] = body.cursor === 'start' || body.cursor === undefined ? [0, 0] : (JSON.parse(body.cursor) as [number, number]);
    const data = rows(`w${w}-`, windows[w] ?? 0).slice(o, o + pageSize);
    const next = data.length >= pageSize ? [w, o + data.length] : w + 1 < windows.length ? [w + 1, 0] : null;
    return { status: 200, body: { data, rows: data.length, nextCursor: next && JSON.stringify(next) } };
  };
}

describe('search walks', () => {
  it('reads every row of every window exactly once, through short and empty pages, when the budget allows', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.nat({ max: 8 }), { minLength: 1, maxLength: 6 }),
        fc.integer({ min: 1, max: 4 }),
        async (windows, size) => {
          const svc = service(windowed(windows, size));
          const out = await walk(svc, 1000, { ...QUERY, maxResults: size });
          expect(out.complete).toBe(true);
          expect(out.rows).toEqual(windows.flatMap((n, w) => rows(`w${w}-`, n)));
          expect(svc.sent[0]).toMatchObject({ cursor: 'start' });
          expect(new Set(svc.sent.map((b) => b.cursor)).size).toBe(svc.sent.length);
        },
      ),
      { numRuns: 50 },
    );
  });

  it('stops at the request budget and says the rows are incomplete', async () => {
    const svc = service((_, n) => ({ status: 200, body: { data: rows(`p${n}-`, 3), nextCursor: `c${n}` } }));
    const out = await walk(svc, 4);
    expect(svc.sent).toHaveLength(4);
    expect(out).toMatchObject({ complete: false, requests: 4 });
    expect(out.rows).toHaveLength(12);
  });

  it('stops once it holds the rows the caller needs, through short pages, and says whether the service had more', async () => {
    const svc = service(windowed([2, 0, 5, 4], 3));
    const out = await searchRows(new Api(svc, selfHostedEnvelope), '/api/v2/search', QUERY, { maxRequests: 50, maxRows: 5 });
    // 2 (short), 0 (empty), then 3 of the third window: 5 rows held, the walk not over.
    expect(svc.sent).toHaveLength(3);
    expect(out).toMatchObject({ complete: false, requests: 3 });
    expect(out.rows).toEqual([...rows('w0-', 2), ...rows('w2-', 3)]);
    const all = await searchRows(new Api(service(windowed([2], 3)), selfHostedEnvelope), '/api/v2/search', QUERY, {
      maxRequests: 50,
      maxRows: 5,
    });
    expect(all).toMatchObject({ complete: true, requests: 1 });
  });

  it('fails, without a further request, when the service answers the same cursor twice', async () => {
    const svc = service(() => ({ status: 200, body: { data: rows('r', 3), nextCursor: 'same' } }));
    const err = await walk(svc, 50).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ code: 'API_PAGING' });
    expect((err as Error).message).toMatch(/page 2 answered a cursor the walk had already sent/);
    expect(svc.sent.map((b) => b.cursor)).toEqual(['start', 'same']);
  });

  it('fails on INVALID_CURSOR and CURSOR_QUERY_MISMATCH without restarting, naming the page', async () => {
    for (const [message, code] of [
      ['Cursor is malformed.', 'SEARCH_INVALID_CURSOR'],
      ['Cursor does not match this query. Start a new search.', 'SEARCH_CURSOR_QUERY_MISMATCH'],
      ['Cursor refers to a page outside the current time range', 'SEARCH_CURSOR_QUERY_MISMATCH'],
    ] as const) {
      const svc = service((body) =>
        body.cursor === 'start' ? { status: 200, body: { data: rows('r', 3), nextCursor: 'c1' } } : { status: 400, body: { message } },
      );
      const err = await walk(svc, 50).catch((e: unknown) => e);
      expect(err).toMatchObject({ code, status: 400 });
      expect((err as Error).message).toContain('for page 2');
      expect(svc.sent).toHaveLength(2);
    }
  });

  it("passes a 400 to the first request on as the service's own error (a bad query, not a cursor)", async () => {
    const svc = service(() => ({ status: 400, body: { message: 'endTime must be greater than startTime' } }));
    const err = await walk(svc, 5).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'API', status: 400 });
  });

  it('reads a service without cursors by offset until a short page, and stops incomplete at its offset cap', async () => {
    const old = (total: number) => (body: Body) => {
      const offset = body.offset ?? 0;
      return { status: 200, body: { data: rows('r', total).slice(offset, offset + body.maxResults), rows: 0 } };
    };
    const svc = service(old(7));
    expect(await walk(svc, 10)).toMatchObject({ complete: true, requests: 3, rows: rows('r', 7) });
    expect(svc.sent.map((b) => b.offset)).toEqual([undefined, 3, 6]);

    const capped = await walk(service(old(30_000)), 10, { ...QUERY, maxResults: 2000 });
    expect(capped).toMatchObject({ complete: false, requests: 6 });
    expect(capped.rows).toHaveLength(12_000);
  });
});
