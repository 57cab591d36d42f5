/** A daemon's list reads ask conditionally (If-None-Match): a 304 hands out the kept items, nothing else changes. */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { ApiError } from '../core/errors.js';
import { ItemMemo } from '../core/item-memo.js';
import type { RequestStats } from '../core/ports.js';
import { Api, PAGE_SIZE, type Requester } from './api.js';
import { selfHostedEnvelope } from './selfhosted.js';
import { responseOf } from './response.js';
import type { RequestInit, Response } from './transport-types.js';

const item = z.object({ id: z.string(), name: z.string() });
type Item = z.infer<typeof item>;

function items(n: number, from = 0, suffix = ''): Item[] {
  return Array.from({ length: n }, (_, i) => ({ id: `id-${from + i}`, name: `object ${from + i}${suffix}` }));
}

interface Served {
  /** The list as the service holds it now. */
  list: Item[];
  /** Answered with an ETag (a valid one unless `etag` says which). */
  etag?: (body: string) => string | undefined;
  /** X-Total-Count on every answer, on full answers only (a proxy dropped it from 304s), or never (default). */
  totalHeader?: 'always' | 'not-on-304';
  /** The total also in the body's `meta` (default: yes). */
  meta?: boolean;
  /** Fail the request for this offset with a 500. */
  failAt?: number;
  /** Answer 304 whatever was asked. */
  always304?: boolean;
  /** An object counted in the total but left out of its page (HyperDX drops rows it cannot serialise). */
  unserialisable?: string;
}

/** A self-hosted service over a list, paged like the real one, with Express's conditional GETs. */
function service(served: Served): Requester & { asked: (string | undefined)[]; statuses: number[] } {
  const asked: (string | undefined)[] = [];
  const statuses: number[] = [];
  const reply = (init: RequestInit): Response => {
    asked.push(init.ifNoneMatch);
    const offset = Number(init.query?.offset ?? 0);
    if (served.failAt === offset) return responseOf(500, {}, Buffer.from('{"message":"down"}'));
    const paged = init.query !== undefined;
    const page = (paged ? served.list.slice(offset, offset + Number(init.query?.limit)) : served.list).filter(
      (o) => o.id !== served.unserialisable,
    );
    const body = JSON.stringify(paged && served.meta !== false ? { data: page, meta: { total: served.list.length } } : { data: page });
    const tag = (served.etag ?? ((b) => `W/"${createHash('sha1').update(b).digest('base64').slice(0, 27)}"`))(body);
    const headers: Response['headers'] = {};
    if (tag !== undefined) headers.etag = tag;
    const total = { 'x-total-count': String(served.list.length) };
    if (served.always304 || (tag !== undefined && init.ifNoneMatch === tag))
      return responseOf(304, served.totalHeader === 'always' ? { ...headers, ...total } : headers, Buffer.alloc(0));
    return responseOf(200, served.totalHeader ? { ...headers, ...total } : headers, Buffer.from(body));
  };
  return {
    stats: {} as RequestStats,
    asked,
    statuses,
    request(init) {
      const res = reply(init);
      statuses.push(res.status);
      return Promise.resolve(res);
    },
    close: () => Promise.resolve(),
  };
}

describe('conditional list reads', () => {
  it('a second read of an unchanged list sends the ETag, gets 304 and hands out the same objects in order', async () => {
    const served: Served = { list: items(50) };
    const svc = service(served);
    const api = new Api(svc, selfHostedEnvelope);
    const memo = new ItemMemo();
    const first = await api.list('/api/v2/dashboards', item, { memo });
    const second = await api.list('/api/v2/dashboards', item, { memo });
    expect(svc.asked[0]).toBeUndefined();
    expect(svc.asked[1]).toMatch(/^W\/"/);
    expect(svc.statuses).toEqual([200, 304]);
    expect(second).toEqual(served.list);
    expect(second).not.toBe(first);
    second.forEach((o, i) => expect(o).toBe(first[i]));
    // A change on the service: answered in full, the unchanged items still the same objects.
    served.list = [...served.list.slice(0, 10), { id: 'id-10', name: 'renamed' }, ...served.list.slice(11)];
    const third = await api.list('/api/v2/dashboards', item, { memo });
    expect(svc.statuses.at(-1)).toBe(200);
    expect(third).toEqual(served.list);
    expect(third[10]).not.toBe(first[10]);
    expect(third[9]).toBe(first[9]);
    // And the next read asks with the new tag.
    await api.list('/api/v2/dashboards', item, { memo });
    expect(svc.statuses.at(-1)).toBe(304);
    expect(memo.size).toBe(50);
  });

  it('asks each page of a paged list conditionally, and never ends the list on a total its 304s do not vouch for', async () => {
    // The total in headers only: a page's body (and so its ETag) stays the same when objects are added after it.
    for (const totalHeader of ['always', 'not-on-304'] as const) {
      const served: Served = { list: items(2 * PAGE_SIZE), totalHeader, meta: false };
      const svc = service(served);
      const api = new Api(svc, selfHostedEnvelope);
      const memo = new ItemMemo();
      await api.listAll('/api/v2/alerts', item, { memo });
      expect(svc.statuses).toEqual([200, 200]);
      served.list = [...served.list, ...items(500, 2 * PAGE_SIZE)];
      const got = await api.listAll('/api/v2/alerts', item, { memo });
      // Both full pages unchanged (304); the 500 new objects on a third page, read in full.
      expect(svc.statuses.slice(2)).toEqual([304, 304, 200]);
      expect(got.map((o) => o.id)).toEqual(served.list.map((o) => o.id));
    }
    // The total in the body: the 304 of an unchanged body vouches for it (a short page then does not end the list early).
    const served: Served = { list: items(PAGE_SIZE + 20) };
    const svc = service(served);
    const api = new Api(svc, selfHostedEnvelope);
    const memo = new ItemMemo();
    await api.listAll('/api/v2/alerts', item, { memo });
    const got = await api.listAll('/api/v2/alerts', item, { memo });
    expect(svc.statuses).toEqual([200, 200, 304, 304]);
    expect(got.map((o) => o.id)).toEqual(served.list.map((o) => o.id));
  });

  it('never ends a list at a short page on a total the 304 does not give: asks for that page again in full', async () => {
    // Totals in headers only; the first page one row short of full (a row the service cannot serialise).
    for (const totalHeader of ['always', 'not-on-304'] as const) {
      const served: Served = { list: items(PAGE_SIZE + 500), totalHeader, meta: false, unserialisable: 'id-7' };
      const svc = service(served);
      const api = new Api(svc, selfHostedEnvelope);
      const memo = new ItemMemo();
      const first = await api.listAll('/api/v2/alerts', item, { memo });
      expect(first).toHaveLength(PAGE_SIZE + 499);
      const again = await api.listAll('/api/v2/alerts', item, { memo });
      expect(again.map((o) => o.id)).toEqual(first.map((o) => o.id));
      // With the total on the 304 both pages are 304s; without it, each short page is read again in full.
      expect(svc.statuses.slice(2)).toEqual(totalHeader === 'always' ? [304, 304] : [304, 200, 304, 200]);
      again.forEach((o, i) => expect(o).toBe(first[i]));
    }
  });

  it('a 304 stands for the page whose tag was sent, even when an overlapping read kept a newer one meanwhile', async () => {
    const v1 = items(3);
    const v2 = items(3, 0, ' (renamed)');
    const served: Served = { list: v1 };
    const svc = service(served);
    // Answers held back until released, in an order the test chooses.
    const held: (() => void)[] = [];
    const gated: Requester = {
      ...svc,
      request: (init) => new Promise((resolve) => held.push(() => void svc.request(init).then(resolve))),
    };
    const api = new Api(gated, selfHostedEnvelope);
    const memo = new ItemMemo();
    const read = (label: string) => api.list(`/api/v2/dashboards`, item, { memo }).then((got) => ({ label, got }));
    const first = read('first');
    held.shift()?.();
    await first;
    // Read A asks with the first tag; read B too. The service changes, A is answered in full and
    // keeps the new page; the service changes back, and B's 304 vouches for the first page.
    const a = read('a');
    const b = read('b');
    await Promise.resolve();
    served.list = v2;
    held.shift()?.();
    expect((await a).got).toEqual(v2);
    served.list = v1;
    held.shift()?.();
    expect((await b).got).toEqual(v1);
    expect(svc.statuses).toEqual([200, 200, 304]);
  });

  it('never takes a 304 it did not ask for as "unchanged": the read fails', async () => {
    const api = new Api(service({ list: items(3), always304: true }), selfHostedEnvelope);
    await expect(api.list('/api/v2/dashboards', item, { memo: new ItemMemo() })).rejects.toBeInstanceOf(ApiError);
    await expect(api.list('/api/v2/dashboards', item)).rejects.toThrow(/304/);
  });

  it('never sends back an ETag that is not a well-formed entity tag, nor asks conditionally without a memo', async () => {
    for (const bad of ['W/"has space"', '"ctl\u0001"', 'unquoted', `"${'x'.repeat(201)}"`]) {
      const svc = service({ list: items(3), etag: () => bad });
      const api = new Api(svc, selfHostedEnvelope);
      const memo = new ItemMemo();
      await api.list('/api/v2/dashboards', item, { memo });
      await api.list('/api/v2/dashboards', item, { memo });
      expect(svc.asked).toEqual([undefined, undefined]);
    }
    const svc = service({ list: items(3) });
    const api = new Api(svc, selfHostedEnvelope);
    await api.list('/api/v2/dashboards', item);
    await api.list('/api/v2/dashboards', item);
    expect(svc.asked).toEqual([undefined, undefined]);
  });

  it('a read that fails half-way keeps the last complete read: the next one asks with its tags again', async () => {
    const served: Served = { list: items(PAGE_SIZE + 5) };
    const svc = service(served);
    const api = new Api(svc, selfHostedEnvelope);
    const memo = new ItemMemo();
    const first = await api.listAll('/api/v2/alerts', item, { memo });
    served.failAt = PAGE_SIZE;
    await expect(api.listAll('/api/v2/alerts', item, { memo })).rejects.toBeInstanceOf(ApiError);
    served.failAt = undefined;
    const again = await api.listAll('/api/v2/alerts', item, { memo });
    expect(svc.statuses.slice(-2)).toEqual([304, 304]);
    again.forEach((o, i) => expect(o).toBe(first[i]));
  });
});
