/**
 * Variant-neutral request helpers over the transport: each variant supplies how to unwrap a
 * success body and how to read an error body. Responses are parsed with the wire schemas.
 */
import { hash } from 'node:crypto';
import type * as z from 'zod';
import { ApiError, requestLabel } from '../core/errors.js';
import { deepFreeze } from '../core/freeze.js';
import { StringTable } from '../core/intern.js';
import type { ItemMemo, KeptPage } from '../core/item-memo.js';
import { scrub } from '../core/scrub.js';
import type { CallOptions, ListOptions, RequestStats } from '../core/ports.js';
import { listItemSpans, utf8Text, type Span } from './list-items.js';
import { Pager, PagingInconsistent } from './paging.js';
import { queryString, type RequestInit, type Response } from './transport-types.js';

/** What sends a request: the HTTP transport, or the sandbox in-process (tests). */
export interface Requester {
  readonly stats: RequestStats;
  /** host[:port] named in errors (never credentials or query); absent in-process. */
  readonly host?: string;
  request(init: RequestInit): Promise<Response>;
  close(): Promise<void>;
}

export interface Envelope {
  /** The payload of a success body. */
  unwrap(body: unknown): unknown;
  /** The member of a success body that `unwrap` takes (a body without it is its own payload). */
  readonly listKey: string;
  /** Total count of a paginated list, when the variant reports it. */
  total(res: Response): number | undefined;
  /** The total as the body gives it (what a body's ETag vouches for; a header's total it does not). */
  bodyTotal?(res: Response): number | undefined;
  /** A readable message and request id from an error response. */
  describe(res: Response): { message: string; requestId?: string };
  /**
   * The error for a 404 that is the gateway's page for a route it does not serve, not the API's
   * answer for a missing object; undefined when it is not one. Such a 404 never means "gone".
   */
  unrouted?(init: RequestInit, res: Response): ApiError | undefined;
}

export const PAGE_SIZE = 1000;

export class Api {
  constructor(
    readonly transport: Requester,
    private readonly envelope: Envelope,
  ) {}

  async call<T>(init: RequestInit, schema: z.ZodType<T>): Promise<T> {
    const res = await this.transport.request(init);
    if (res.status >= 300) throw this.error(init, res);
    return this.parse(init, res, schema);
  }

  /** GET that answers null on 404. */
  async find<T>(path: string, schema: z.ZodType<T>, opts?: CallOptions): Promise<T | null> {
    const init: RequestInit = { method: 'GET', path, signal: opts?.signal };
    const res = await this.transport.request(init);
    if (res.status === 404 && !this.unrouted(init, res)) return null;
    if (res.status >= 300) throw this.error(init, res);
    return this.parse(init, res, schema);
  }

  /** DELETE that is satisfied by 404 (already gone). */
  async remove(path: string, opts?: CallOptions): Promise<void> {
    const init: RequestInit = { method: 'DELETE', path, signal: opts?.signal };
    const res = await this.transport.request(init);
    if (res.status === 404 && !this.unrouted(init, res)) return;
    if (res.status >= 300) throw this.error(init, res);
  }

  /**
   * Every page of a limit/offset list, de-duplicated by id (objects may shift between pages). The
   * pager ends the list where the service's answers agree it ends; a disagreement fails the read
   * (paging.ts): a partial list is never returned.
   */
  async listAll<T extends { id: string }>(path: string, item: z.ZodType<T>, opts?: ListOptions): Promise<T[]> {
    const byId = new Map<string, T>();
    const pager = new Pager(PAGE_SIZE);
    opts?.memo?.begin();
    for (;;) {
      const init: RequestInit = { method: 'GET', path, query: { limit: PAGE_SIZE, offset: pager.offset }, signal: opts?.signal };
      const page = await this.readPage(init, item, opts?.memo);
      for (const o of page.items) byId.set(o.id, o);
      try {
        if (pager.accept({ ids: page.items.map((o) => o.id), total: page.total }) === 'done') {
          opts?.memo?.commit();
          return [...byId.values()];
        }
      } catch (err) {
        if (err instanceof PagingInconsistent) throw this.pagingError(init, err);
        throw err;
      }
    }
  }

  async list<T>(path: string, item: z.ZodType<T>, opts?: ListOptions): Promise<T[]> {
    opts?.memo?.begin();
    const { items } = await this.readPage({ method: 'GET', path, signal: opts?.signal }, item, opts?.memo);
    opts?.memo?.commit();
    return items;
  }

  /**
   * One list body's items and the list's total as it gives it. With a memo (a daemon's), the page
   * is asked for conditionally when its last answer had an ETag: a 304 (the self-hosted server's
   * Express answers one when the body would be byte for byte the same) gives the kept items,
   * nothing sent, scanned or parsed. The body is released once its items are taken.
   */
  private async readPage<T>(
    init: RequestInit,
    item: z.ZodType<T>,
    memo: ItemMemo | undefined,
    conditional = true,
  ): Promise<{ items: T[]; total: number | undefined }> {
    const key = requestKey(init);
    const kept = conditional ? (memo?.keptPage(key) as KeptPage<T> | undefined) : undefined;
    const res = await this.transport.request(kept === undefined ? init : { ...init, ifNoneMatch: kept.etag });
    if (res.status === 304 && kept !== undefined && memo !== undefined) {
      // The 304's own total (its headers), else the one its body gave: a total from the last
      // answer's headers may be stale. A short page whose answer gave a total only in headers the
      // 304 no longer carries is asked for again in full: without a total, a short page ends the
      // list, and it may be short of rows the service could not serialise, not the last.
      const total = this.envelope.total(res) ?? kept.bodyTotal;
      const limit = init.query?.limit;
      const short = typeof limit === 'number' && kept.items.length < limit;
      if (total === undefined && kept.hadTotal && short) return this.readPage(init, item, memo, false);
      memo.reusePage(key, kept);
      return { items: [...kept.items], total };
    }
    if (res.status >= 300) throw this.error(init, res);
    const hashes: string[] | undefined = memo ? [] : undefined;
    const items = this.parseList(init, res, item, memo, hashes);
    const total = this.envelope.total(res);
    const etag = res.headers.etag;
    if (memo && hashes?.length === items.length && typeof etag === 'string' && ENTITY_TAG.test(etag))
      memo.keepPage(key, { etag, hashes, items, bodyTotal: this.envelope.bodyTotal?.(res), hadTotal: total !== undefined });
    res.release?.();
    return { items, total };
  }

  /**
   * A list body's items. With a memo, each item is found in the raw bytes, and decoded and parsed
   * only when the memo has not seen its bytes (see core/item-memo.ts), the hash of each item's
   * bytes going into `hashes`; without one, the body is parsed whole.
   */
  private parseList<T>(init: RequestInit, res: Response, item: z.ZodType<T>, memo?: ItemMemo, hashes?: string[]): T[] {
    const spans = memo ? listItemSpans(res.bytes, this.envelope.listKey) : null;
    const items = memo && spans ? this.parseItems(init, res, item, spans, memo, hashes) : undefined;
    if (items) return items;
    if (hashes) hashes.length = 0;
    // Not a list the scanner can split, or an item that is not JSON: the whole body, with its errors.
    const payload = this.envelope.unwrap(res.body);
    if (!Array.isArray(payload)) throw this.invalid(init, res, 'expected a list');
    const parsed = payload.map((raw, i) => this.parseItem(init, res, item, raw, i));
    // Shared strings pay off only in items kept from read to read (a daemon's): a one-shot read drops them after its plan.
    if (memo) {
      const strings = new StringTable();
      for (const one of parsed) strings.internAll(one);
    }
    return parsed;
  }

  /** Undefined when an item is not JSON. An item the memo keeps is frozen: the next reads hand out the same object. */
  private parseItems<T>(
    init: RequestInit,
    res: Response,
    item: z.ZodType<T>,
    spans: readonly Span[],
    memo: ItemMemo,
    hashes: string[] | undefined,
  ): T[] | undefined {
    const out: T[] = [];
    const { bytes } = res;
    // The items share their strings (the team id, the source and webhook ids they name, ...): kept
    // from read to read, 10,000 items held 10,000 copies of each.
    const strings = new StringTable();
    try {
      for (let i = 0; i < spans.length; i++) {
        const { from, to } = spans[i] as Span;
        const parse = () => deepFreeze(strings.internAll(this.parseItem(init, res, item, jsonItem(utf8Text(bytes, from, to)), i)));
        const itemHash = hash('sha256', bytes.subarray(from, to), 'base64');
        hashes?.push(itemHash);
        // One collection's memo holds only what this collection's schema parsed.
        out.push(memo.take(itemHash, parse) as T);
      }
    } catch (err) {
      if (err instanceof SyntaxError) return undefined;
      throw err;
    }
    return out;
  }

  private parseItem<T>(init: RequestInit, res: Response, item: z.ZodType<T>, raw: unknown, i: number): T {
    const parsed = item.safeParse(raw);
    if (!parsed.success)
      throw this.invalid(init, res, `item ${i}: ${parsed.error.issues[0]?.path.join('.') ?? ''} ${parsed.error.issues[0]?.message ?? ''}`);
    return parsed.data;
  }

  private parse<T>(init: RequestInit, res: Response, schema: z.ZodType<T>): T {
    const parsed = schema.safeParse(this.envelope.unwrap(res.body));
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw this.invalid(init, res, issue ? `${issue.path.join('.')}: ${issue.message}` : 'unexpected shape');
    }
    return parsed.data;
  }

  private pagingError(init: RequestInit, err: PagingInconsistent): ApiError {
    const host = this.transport.host;
    return new ApiError({
      method: init.method,
      path: init.path,
      host,
      status: 200,
      retryable: false,
      code: 'API_PAGING',
      message: `${requestLabel({ ...init, host })}: the service's paging is inconsistent: ${err.message}; obsync does not plan from a partial list`,
      hint: 'a partial list would make objects look deleted (duplicates, or a prune taking along what it never saw): check the service, or a proxy or cache in front of it, and run again',
      cause: err,
    });
  }

  private invalid(init: RequestInit, res: Response, what: string): ApiError {
    const host = this.transport.host;
    const page = htmlPage(res);
    if (page)
      return new ApiError({
        method: init.method,
        path: init.path,
        host,
        status: res.status,
        retryable: false,
        bodyExcerpt: page,
        code: 'API_HTML',
        message: `${requestLabel({ ...init, host })}: the server answered HTTP ${res.status} with ${page}, not the API's JSON — probably not the API`,
        hint: 'check the target baseUrl (the API origin, not a web console or a login page in front of it) and, hosted, its paths',
      });
    return new ApiError({
      method: init.method,
      path: init.path,
      host,
      status: res.status,
      retryable: false,
      bodyExcerpt: res.text,
      code: 'API_RESPONSE',
      message: `${requestLabel({ ...init, host })}: the service answered with an unexpected body (${what})`,
      hint: 'is the target baseUrl / variant right?',
    });
  }

  private unrouted(init: RequestInit, res: Response): ApiError | undefined {
    return res.status === 404 ? this.envelope.unrouted?.(init, res) : undefined;
  }

  error(init: RequestInit, res: Response): ApiError {
    const unrouted = this.unrouted(init, res);
    if (unrouted) return unrouted;
    if (res.status >= 300 && res.status < 400) return redirectError(init, res, this.transport.host);
    // Scrubbed before the envelope cuts an excerpt from it: a cut secret would no longer match.
    const page = htmlPage(res);
    const { message, requestId } = page
      ? { message: page, requestId: undefined }
      : this.envelope.describe({ ...res, text: scrub(res.text) });
    return new ApiError({
      method: init.method,
      path: init.path,
      host: this.transport.host,
      status: res.status,
      retryable: res.status === 429 || res.status >= 500,
      bodyExcerpt: message,
      ...(requestId ? { requestId } : {}),
      ...(res.status === 401
        ? { hint: 'the credentials were refused: check the target credentials (OBSYNC_* environment or obsync.yaml)' }
        : {}),
    });
  }
}

/** One item's JSON; a SyntaxError sends the caller back to parsing the whole body. */
function jsonItem(text: string): unknown {
  return JSON.parse(text) as unknown;
}

/**
 * A 3xx: obsync does not follow redirects for API calls (a redirect would carry the credentials to
 * wherever it points, and a POST would not survive it), so it says where the server pointed: only
 * origin and path, never the query (a sign-in redirect may carry tokens there).
 */
function redirectError(init: RequestInit, res: Response, host: string | undefined): ApiError {
  const raw = res.headers.location;
  const location = Array.isArray(raw) ? raw[0] : raw;
  let where = 'no Location header';
  if (location !== undefined) {
    try {
      const url = new URL(location, 'http://relative.invalid');
      where = url.origin === 'http://relative.invalid' ? url.pathname : `${url.origin}${url.pathname}`;
    } catch {
      where = 'an unreadable Location';
    }
  }
  return new ApiError({
    method: init.method,
    path: init.path,
    ...(host ? { host } : {}),
    status: res.status,
    retryable: false,
    code: 'API_REDIRECT',
    message: `${requestLabel({ ...init, host })}: the server answered HTTP ${res.status}, a redirect to ${where}; obsync does not follow redirects for API calls`,
    hint: 'set the target baseUrl to the address the API really answers on (often https:// instead of http://, or without a path prefix); a redirect to a sign-in page means something in front of the API wants a browser login',
  });
}

/** `an HTML page ("Sign in")` when the body is a web page rather than the API's JSON; undefined otherwise. */
export function htmlPage(res: Response): string | undefined {
  const type = res.headers['content-type'];
  const html =
    /text\/html/i.test(Array.isArray(type) ? type.join(',') : (type ?? '')) || /^\s*<(!doctype html|html|head|body)\b/i.test(res.text);
  if (!html) return undefined;
  const title = /<title[^>]*>([^<]{0,200})<\/title>/i.exec(res.text)?.[1]?.trim().replace(/\s+/g, ' ');
  return title ? `an HTML page ("${scrub(title).slice(0, 80)}")` : 'an HTML page';
}

/** What a kept page is found by: the request's path and query. */
function requestKey(init: RequestInit): string {
  return init.path + queryString(init.query);
}

/**
 * An entity tag as RFC 9110 §8.8.3 writes it (ASCII only), and not long: one that is not is never sent back (a
 * header undici refuses would fail every read of the list, and the service's tag is kept in memory).
 */
const ENTITY_TAG = /^(W\/)?"[\x21\x23-\x7e]{0,200}"$/;
