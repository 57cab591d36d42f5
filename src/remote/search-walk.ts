/**
 * Every page of a raw-row search (`POST /api/v2/search`). A service with search cursors (hyperdx
 * after b52a6fa8, v2/search.ts @ 0ffe81b0) is walked by them: `cursor: "start"`, then each
 * `nextCursor` until it is null — never stopping at a short page, since a page holds one time
 * window and a window may hold fewer rows than the page size. A service without them (no
 * `nextCursor` in its answer, b52a6fa8) is read by offset, up to its offset cap.
 *
 * A walk never sends the same cursor twice (a service that answers one again fails the walk
 * instead of looping) and never sends more requests than the caller's budget: a walk the budget
 * ends is answered as incomplete, never as all the rows.
 *
 * A cursor the service refuses fails the walk; it is not restarted. The query of every page is
 * the same and its range is pinned, so CURSOR_QUERY_MISMATCH means the service changed under the
 * walk; INVALID_CURSOR for a cursor the service itself minted means its cursor format changed (an
 * upgrade) or the walk passed the cursor's offset cap (10,000), which a restart meets again after
 * spending the budget a second time. Either way the rows so far are not all the rows, and the
 * caller must say so rather than answer them.
 */
import * as z from 'zod';
import { ApiError, requestLabel } from '../core/errors.js';
import type { CallOptions, SearchQuery, SearchRows } from '../core/ports.js';
import { type JsonObject, jsonObject } from '../core/wire.js';
import type { Api } from './api.js';

export const CURSOR_START = 'start';
/** The service's offset cap (v2/search.ts `offset` max). */
const MAX_OFFSET = 10_000;

const searchPage = z.object({
  data: z.array(jsonObject),
  nextCursor: z.string().min(1).nullable().optional(),
});
export type SearchPage = z.infer<typeof searchPage>;

/** What the next request carries. */
export type Position = { cursor: string } | { offset: number };

export class RepeatedCursor extends Error {
  constructor(readonly page: number) {
    super(`page ${page} answered a cursor the walk had already sent`);
  }
}

/** The walk's state: what to ask next, and whether it is over (pure; search-walk.test.ts). */
export class SearchWalk {
  readonly rows: JsonObject[] = [];
  requests = 0;
  #next: Position | null = { cursor: CURSOR_START };
  /** Offset paging reached the service's cap with rows left: the walk stops incomplete. */
  #capped = false;
  readonly #sent = new Set<string>();

  constructor(
    private readonly pageSize: number,
    private readonly maxRequests: number,
    /** The caller needs no more rows than this: the walk stops once it holds them (still incomplete if the service had more). */
    private readonly maxRows = Number.POSITIVE_INFINITY,
  ) {}

  /** The next request's position, or null when the walk is over (done, out of budget, or holding the rows the caller needs). */
  next(): Position | null {
    return this.requests < this.maxRequests && !this.#capped && this.rows.length < this.maxRows ? this.#next : null;
  }

  get complete(): boolean {
    return this.#next === null;
  }

  accept(sent: Position, page: SearchPage): void {
    this.requests += 1;
    if ('cursor' in sent) this.#sent.add(sent.cursor);
    this.rows.push(...page.data);
    if (page.nextCursor === undefined) {
      this.#next = this.#byOffset(sent, page.data.length);
      return;
    }
    if (page.nextCursor !== null && this.#sent.has(page.nextCursor)) throw new RepeatedCursor(this.requests);
    this.#next = page.nextCursor === null ? null : { cursor: page.nextCursor };
  }

  /** A service without cursors: the next offset while pages are full (the first request's offset is 0, its cursor ignored). */
  #byOffset(sent: Position, served: number): Position | null {
    const offset = ('offset' in sent ? sent.offset : 0) + served;
    if (served < this.pageSize) return null;
    // Past the service's cap the rest cannot be read: the offset stays pending, the walk incomplete.
    if (offset > MAX_OFFSET) this.#capped = true;
    return { offset };
  }
}

/** Reads every page of the search within the budget; a refused or repeated cursor fails with a typed ApiError. */
export async function searchRows(
  api: Api,
  path: string,
  query: SearchQuery,
  opts: CallOptions & { maxRequests: number; maxRows?: number },
): Promise<SearchRows> {
  const walk = new SearchWalk(query.maxResults, opts.maxRequests, opts.maxRows);
  for (let at = walk.next(); at !== null; at = walk.next()) {
    const init = { method: 'POST', path, body: { ...query, ...at }, idempotent: true, retries: opts.retries, signal: opts.signal } as const;
    let page: SearchPage;
    try {
      page = await api.callWhole(init, searchPage);
    } catch (err) {
      throw 'cursor' in at && at.cursor !== CURSOR_START ? cursorRefused(err, path, walk.requests + 1) : err;
    }
    try {
      walk.accept(at, page);
    } catch (err) {
      if (!(err instanceof RepeatedCursor)) throw err;
      throw new ApiError({
        method: 'POST',
        path,
        status: 200,
        retryable: false,
        code: 'API_PAGING',
        message:
          `${requestLabel({ method: 'POST', path })}: the service's search paging is inconsistent: ${err.message}; ` +
          'obsync does not answer a partial search',
        hint: 'the service repeats a page: report it to its operators; a shorter time range needs fewer pages',
      });
    }
  }
  return { rows: walk.rows, complete: walk.complete, requests: walk.requests };
}

/** A 400 to a cursor the service minted: INVALID_CURSOR or CURSOR_QUERY_MISMATCH (the route tells them apart by message only). */
function cursorRefused(err: unknown, path: string, page: number): unknown {
  if (!(err instanceof ApiError) || err.status !== 400) return err;
  const mismatch = /does not match this query|outside the current time range/i.test(err.bodyExcerpt);
  const malformed = /cursor is malformed/i.test(err.bodyExcerpt);
  if (!mismatch && !malformed) return err;
  const refusal = mismatch
    ? {
        code: 'SEARCH_CURSOR_QUERY_MISMATCH',
        vendorCode: 'CURSOR_QUERY_MISMATCH',
        hint: 'the service no longer reads the walk as the same query (was it upgraded or reconfigured mid-walk?): run it again',
      }
    : {
        code: 'SEARCH_INVALID_CURSOR',
        vendorCode: 'INVALID_CURSOR',
        hint:
          'the service changed its cursor format, or the walk passed its offset cap of 10000 rows in one window: ' +
          'run it again, or narrow the time range',
      };
  return new ApiError({
    method: err.method,
    path,
    ...(err.host === undefined ? {} : { host: err.host }),
    status: 400,
    retryable: false,
    bodyExcerpt: err.bodyExcerpt,
    code: refusal.code,
    message:
      `${requestLabel({ method: err.method, path, host: err.host })}: the service refused the cursor it answered for page ${page} ` +
      `(${refusal.vendorCode}: ${err.bodyExcerpt}); the search was not completed`,
    hint: refusal.hint,
    cause: err,
  });
}
