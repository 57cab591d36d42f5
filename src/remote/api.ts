/**
 * Variant-neutral request helpers over the transport: each variant supplies how to unwrap a
 * success body and how to read an error body. Responses are parsed with the wire schemas.
 */
import type * as z from 'zod';
import type { ApiError } from '../core/errors.js';
import type { ItemMemo, KeptPage } from '../core/item-memo.js';
import { type CallOptions, eitherExpected, type ListOptions, type RequestStats } from '../core/ports.js';
import { invalidBodyError, pagingError, responseError } from './api-errors.js';
import type { Envelope } from './envelope.js';
import { parseList } from './list-body.js';
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

  /** As `call`, the whole body parsed (not the envelope's unwrapped member): a search page's `nextCursor` sits beside its `data`. */
  async callWhole<T>(init: RequestInit, schema: z.ZodType<T>): Promise<T> {
    const res = await this.transport.request(init);
    if (res.status >= 300) throw this.error(init, res);
    return this.parse(init, res, schema, false);
  }

  /** GET that answers null on 404. */
  async find<T>(path: string, schema: z.ZodType<T>, opts?: CallOptions): Promise<T | null> {
    // Its 404 is an answer (absent), not a failure: the request's span says so too.
    const absent = this.absent('GET', path);
    const init: RequestInit = { method: 'GET', path, signal: opts?.signal, expected: eitherExpected<Response>(opts?.expected, absent) };
    const res = await this.transport.request(init);
    if (absent(res)) return null;
    if (res.status >= 300) throw this.error(init, res);
    return this.parse(init, res, schema);
  }

  /** DELETE that is satisfied by 404 (already gone). */
  async remove(path: string, opts?: CallOptions): Promise<void> {
    const absent = this.absent('DELETE', path);
    const init: RequestInit = { method: 'DELETE', path, signal: opts?.signal, expected: eitherExpected<Response>(opts?.expected, absent) };
    const res = await this.transport.request(init);
    if (absent(res)) return;
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
      const init: RequestInit = {
        method: 'GET',
        path,
        query: { limit: PAGE_SIZE, offset: pager.offset },
        signal: opts?.signal,
        expected: opts?.expected,
      };
      const page = await this.readPage(init, item, opts?.memo);
      for (const o of page.items) byId.set(o.id, o);
      try {
        if (pager.accept({ ids: page.items.map((o) => o.id), total: page.total }) === 'done') {
          opts?.memo?.commit();
          return [...byId.values()];
        }
      } catch (err) {
        if (err instanceof PagingInconsistent) throw pagingError(init, this.transport.host, err);
        throw err;
      }
    }
  }

  async list<T>(path: string, item: z.ZodType<T>, opts?: ListOptions): Promise<T[]> {
    opts?.memo?.begin();
    const { items } = await this.readPage({ method: 'GET', path, signal: opts?.signal, expected: opts?.expected }, item, opts?.memo);
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
    const items = parseList({ init, res, envelope: this.envelope, host: this.transport.host }, item, memo, hashes);
    const total = this.envelope.total(res);
    const etag = res.headers.etag;
    if (memo && hashes?.length === items.length && typeof etag === 'string' && ENTITY_TAG.test(etag))
      memo.keepPage(key, { etag, hashes, items, bodyTotal: this.envelope.bodyTotal?.(res), hadTotal: total !== undefined });
    res.release?.();
    return { items, total };
  }

  private parse<T>(init: RequestInit, res: Response, schema: z.ZodType<T>, unwrap = true): T {
    const parsed = schema.safeParse(unwrap ? this.envelope.unwrap(res.body) : res.body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw invalidBodyError(init, res, this.transport.host, issue ? `${issue.path.join('.')}: ${issue.message}` : 'unexpected shape');
    }
    return parsed.data;
  }

  /** The service's answer that the object at `path` does not exist: a 404 that is not a gateway's page for an unknown route. */
  private absent(method: RequestInit['method'], path: string): (res: Response) => boolean {
    return (res) => res.status === 404 && !this.unrouted({ method, path }, res);
  }

  private unrouted(init: RequestInit, res: Response): ApiError | undefined {
    return res.status === 404 ? this.envelope.unrouted?.(init, res) : undefined;
  }

  error(init: RequestInit, res: Response): ApiError {
    return this.unrouted(init, res) ?? responseError(init, res, this.transport.host, this.envelope);
  }
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
