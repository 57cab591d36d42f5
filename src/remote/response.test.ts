/** A response's body released once a list has been read from it: its memory goes, the items and other buffers stay whole. */
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { ItemMemo } from '../core/item-memo.js';
import type { RequestStats } from '../core/ports.js';
import { Api, type Requester } from './api.js';
import { selfHostedEnvelope } from './selfhosted.js';
import { releaseBytes } from './body-bytes.js';
import { responseOf } from './response.js';
import type { RequestInit, Response } from './transport-types.js';

const item = z.object({ id: z.string(), name: z.string(), tags: z.array(z.string()) });

/** A body of its own (as the transport reads one: larger than Node's pool, never a slice of it). */
function ownBody(value: unknown): Buffer {
  const text = JSON.stringify(value);
  const out = Buffer.allocUnsafeSlow(Buffer.byteLength(text));
  out.write(text);
  return out;
}

function items(n: number, from = 0): { id: string; name: string; tags: string[] }[] {
  return Array.from({ length: n }, (_, i) => ({ id: `id-${from + i}`, name: `dashboard ${from + i} ✓`, tags: ['a', `t${i % 7}`] }));
}

/** Answers each request with the next body, and keeps every response it gave. */
function scripted(bodies: Buffer[], headers: (i: number) => Response['headers'] = () => ({})): Requester & { given: Response[] } {
  const given: Response[] = [];
  const stats = {} as RequestStats;
  return {
    stats,
    given,
    request(_init: RequestInit) {
      const i = given.length;
      const body = bodies[i];
      if (!body) throw new Error(`no body for request ${i}`);
      const res = responseOf(200, headers(i), body);
      given.push(res);
      return Promise.resolve(res);
    },
    close: () => Promise.resolve(),
  };
}

describe('releasing a response body', () => {
  it('detaches a buffer the bytes span whole, and the response refuses to be read after', () => {
    const body = ownBody({ data: items(3) });
    const res = responseOf(200, {}, body);
    expect((res.body as { data: unknown[] }).data).toHaveLength(3);
    res.release?.();
    expect(body.byteLength).toBe(0);
    expect(() => res.bytes).toThrow(/released/);
    expect(() => res.text).toThrow(/released/);
    expect(() => res.body).toThrow(/released/);
    expect(() => res.release?.()).not.toThrow();
  });

  it("never detaches a buffer the bytes share with others (a slice, Node's pool of small Buffers): the others keep their bytes", () => {
    const shared = Buffer.allocUnsafeSlow(26);
    shared.write('{"data":[]}and other bytes');
    const slice = shared.subarray(0, 11);
    const neighbour = shared.subarray(11);
    releaseBytes(slice);
    expect(slice.toString()).toBe('{"data":[]}');
    expect(neighbour.toString()).toBe('and other bytes');
    const pooled = Buffer.from('{"data":[1]}');
    const other = Buffer.from('another pooled buffer');
    releaseBytes(pooled);
    expect(other.toString()).toBe('another pooled buffer');
    expect(pooled.toString()).toBe('{"data":[1]}');
  });

  it('a list read through the item memo releases its body; the items it answers owe nothing to those bytes', async () => {
    const want = items(500);
    const body = ownBody({ data: want });
    const requester = scripted([body]);
    const api = new Api(requester, selfHostedEnvelope);
    const got = await api.list('/api/v2/dashboards', item, { memo: new ItemMemo() });
    expect(body.byteLength).toBe(0);
    expect(() => requester.given[0]?.bytes).toThrow(/released/);
    expect(got).toEqual(want);
  });

  it('a list read whole (no memo) releases its body too', async () => {
    const want = items(50);
    const body = ownBody({ data: want });
    const api = new Api(scripted([body]), selfHostedEnvelope);
    expect(await api.list('/api/v2/dashboards', item)).toEqual(want);
    expect(body.byteLength).toBe(0);
  });

  it('a paged list releases each page after its total was read from the body (a proxy dropped X-Total-Count)', async () => {
    const all = items(1500);
    const pages = [ownBody({ data: all.slice(0, 1000), meta: { total: 1500 } }), ownBody({ data: all.slice(1000), meta: { total: 1500 } })];
    const api = new Api(scripted(pages), selfHostedEnvelope);
    expect(await api.listAll('/api/v2/dashboards', item, { memo: new ItemMemo() })).toEqual(all);
    for (const page of pages) expect(page.byteLength).toBe(0);
  });

  it('a body that fails to parse is not released: its error quotes it', async () => {
    const body = ownBody({ data: [{ id: 1 }] });
    const api = new Api(scripted([body]), selfHostedEnvelope);
    await expect(api.list('/api/v2/dashboards', item, { memo: new ItemMemo() })).rejects.toThrow(/item 0/);
    expect(body.byteLength).toBeGreaterThan(0);
  });
});
