import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Pager, PagingInconsistent, totalMargin, type Page } from './paging.js';

/** A service's answer to `GET ?limit&offset`, the n-th request of the read. */
type Server = (offset: number, limit: number, request: number) => Page;

type Outcome = { ok: true; ids: Set<string>; requests: number } | { ok: false; problem: string; requests: number };

/** Reads a list from `server` as Api.listAll does. */
function read(server: Server, limit: number, maxPages: number): Outcome {
  const pager = new Pager(limit, maxPages);
  const ids = new Set<string>();
  for (let request = 0; ; request += 1) {
    // A pager that asked for more than maxPages pages would be a bug: stop the test instead of looping.
    if (request > maxPages) throw new Error(`more than ${maxPages} requests`);
    const page = server(pager.offset, limit, request);
    for (const id of page.ids) ids.add(id);
    try {
      if (pager.accept(page) === 'done') return { ok: true, ids, requests: request + 1 };
    } catch (err) {
      if (err instanceof PagingInconsistent) return { ok: false, problem: err.problem, requests: request + 1 };
      throw err;
    }
  }
}

const rowsOf = (n: number, prefix = 'r') => Array.from({ length: n }, (_, i) => `${prefix}${i}`);

function honest(rows: readonly string[], withTotal: boolean): Server {
  return (offset, limit) => ({ ids: rows.slice(offset, offset + limit), total: withTotal ? rows.length : undefined });
}

const limits = fc.integer({ min: 1, max: 7 });
const maxPagesArb = fc.integer({ min: 1, max: 30 });

describe('reading a paged list', () => {
  it('reads an honest list exactly, with or without a total, whatever the page size', () => {
    fc.assert(
      fc.property(limits, maxPagesArb, fc.boolean(), fc.nat(), (limit, maxPages, withTotal, seed) => {
        // Below the cap: the last page of a list without a total is seen to be short (or empty).
        const n = seed % (limit * maxPages);
        const rows = rowsOf(n);
        const out = read(honest(rows, withTotal), limit, maxPages);
        expect(out).toMatchObject({ ok: true });
        if (out.ok) expect([...out.ids].sort()).toEqual([...rows].sort());
        // One request per page, plus at most the empty page that shows the end.
        expect(out.requests).toBeLessThanOrEqual(Math.floor(n / limit) + 1);
      }),
    );
  });

  it('keeps reading past pages short of rows the service counts but cannot serialise (HyperDX drops them from data)', () => {
    fc.assert(
      fc.property(limits, fc.integer({ min: 0, max: 60 }), fc.array(fc.nat(), { maxLength: 10 }), (limit, n, dropped) => {
        const rows = rowsOf(n);
        const gone = new Set(dropped.map((d) => `r${d % Math.max(1, n)}`));
        const visible = rows.filter((r) => !gone.has(r));
        const server: Server = (offset, l) => ({ ids: rows.slice(offset, offset + l).filter((r) => !gone.has(r)), total: rows.length });
        const out = read(server, limit, 100);
        if (out.ok) {
          // A success misses nothing it could have seen, except behind a page that came back empty
          // (a whole page of unserialisable rows), and then no more than the margin.
          const missed = visible.filter((r) => !out.ids.has(r));
          expect(missed.length).toBeLessThanOrEqual(totalMargin(rows.length));
        } else expect(out.problem).toBe('short-of-total');
      }),
    );
  });

  it('fails a service that ignores offset instead of returning its first page as the whole list', () => {
    fc.assert(
      fc.property(limits, fc.integer({ min: 1, max: 200 }), fc.boolean(), (limit, n, withTotal) => {
        const rows = rowsOf(n);
        const out = read((_offset, l) => ({ ids: rows.slice(0, l), total: withTotal ? n : undefined }), limit, 1000);
        if (out.ok) expect(out.ids.size).toBe(n);
        else expect(['repeated', 'short-of-total']).toContain(out.problem);
      }),
    );
  });

  it('fails a total that lies by more than the margin, either way, within a bounded number of requests', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 40 }),
        maxPagesArb,
        fc.integer({ min: 0, max: 150 }),
        fc.integer({ min: 0, max: 10_000 }),
        (limit, maxPages, n, total) => {
          const rows = rowsOf(n);
          const out = read((offset, l) => ({ ids: rows.slice(offset, offset + l), total }), limit, maxPages);
          expect(out.requests).toBeLessThanOrEqual(maxPages);
          if (!out.ok) return;
          // Accepted: the total was close enough to what was served, and everything served up to the
          // point where the total said the list ends was read.
          expect(Math.abs(out.ids.size - total)).toBeLessThanOrEqual(totalMargin(total));
          expect([...out.ids]).toEqual(rows.slice(0, out.ids.size));
        },
      ),
    );
  });

  it('stops a list that never runs dry (fresh full pages for ever, a growing total) at the page cap', () => {
    fc.assert(
      fc.property(limits, maxPagesArb, fc.constantFrom('none', 'growing', 'huge'), (limit, maxPages, totalKind) => {
        const server: Server = (offset, l, request) => ({
          ids: rowsOf(l, `p${request}-`),
          total: totalKind === 'none' ? undefined : totalKind === 'growing' ? offset + 2 * l : limit * maxPages + 1,
        });
        const out = read(server, limit, maxPages);
        expect(out.ok).toBe(false);
        expect(out.requests).toBeLessThanOrEqual(maxPages);
      }),
    );
  });

  it('reads a list that grows while it is read (objects created meanwhile) to its end, keeping every object that was there', () => {
    fc.assert(
      fc.property(
        limits,
        fc.integer({ min: 0, max: 40 }),
        fc.integer({ min: 0, max: 3 }),
        fc.boolean(),
        (limit, n, perRequest, withTotal) => {
          const rows = rowsOf(n);
          const server: Server = (offset, l) => {
            for (let i = 0; i < perRequest; i += 1) rows.push(`new${rows.length}`);
            return { ids: rows.slice(offset, offset + l), total: withTotal ? rows.length : undefined };
          };
          const out = read(server, limit, 200);
          if (out.ok) for (const r of rowsOf(n)) expect(out.ids.has(r)).toBe(true);
          else expect(['exceeds-total', 'too-many-pages']).toContain(out.problem);
        },
      ),
    );
  });

  it('never pages for ever, whatever the pages say (any sequence of ids, repeats, empties and totals)', () => {
    const page = fc.record({
      ids: fc.array(fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'), { maxLength: 8 }),
      total: fc.option(fc.oneof(fc.integer({ min: -5, max: 50 }), fc.constant(1e12), fc.double()), { nil: undefined }),
    });
    fc.assert(
      fc.property(limits, maxPagesArb, fc.array(page, { minLength: 1, maxLength: 40 }), (limit, maxPages, pages) => {
        const out = read((_o, _l, request) => pages[request % pages.length] ?? { ids: [], total: undefined }, limit, maxPages);
        expect(out.requests).toBeLessThanOrEqual(maxPages);
      }),
    );
  });

  it('names each inconsistency', () => {
    const first = (server: Server, limit = 2, maxPages = 10) => read(server, limit, maxPages);
    expect(first(() => ({ ids: ['a', 'b'], total: 1e12 }))).toMatchObject({ ok: false, problem: 'too-many-pages', requests: 1 });
    expect(first(() => ({ ids: ['a', 'b'], total: -1 }))).toMatchObject({ ok: false, problem: 'bad-total' });
    expect(first(() => ({ ids: ['a', 'b'], total: 2.5 }))).toMatchObject({ ok: false, problem: 'bad-total' });
    expect(first(() => ({ ids: ['a', 'b'], total: undefined }))).toMatchObject({ ok: false, problem: 'repeated', requests: 2 });
    expect(first((o) => ({ ids: o === 0 ? ['a', 'b'] : [], total: 15 }))).toMatchObject({ ok: false, problem: 'short-of-total' });
    expect(first(() => ({ ids: rowsOf(30), total: 3 }), 30)).toMatchObject({ ok: false, problem: 'exceeds-total', requests: 1 });
    // A page longer than the limit: the service does not page, and that was the whole list.
    expect(first(() => ({ ids: rowsOf(5), total: undefined }))).toMatchObject({ ok: true, requests: 1 });
  });
});
