/**
 * Issue 24 item 6 (pages): a service whose paging lies — a total of 1e12, every offset answered
 * with the first page, a list cut short of its total — fails the read in a bounded number of
 * requests; it never yields a partial list, which would let a prune delete a dashboard together
 * with a hand-made alert the partial list did not show.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/core/errors.js';
import { startProxy, type Proxy, type ProxiedRequest, type ProxyReply } from '../support/proxy.js';
import { alertYaml, dashboardYaml, TrustHarness } from '../support/reconcile.js';

let h: TrustHarness;
let proxy: Proxy;

/** Rewrites the sandbox's answer to `GET /api/v2/alerts…` (the real page, parsed) before obsync sees it. */
type Lie = (page: { data: { id: string; name?: string | null }[]; meta: { total: number } }, offset: number) => unknown;
let lie: Lie | undefined;

async function alertsThroughLie(req: ProxiedRequest): Promise<ProxyReply | undefined> {
  if (!lie || req.method !== 'GET' || !req.url.startsWith('/api/v2/alerts?')) return undefined;
  const real = await fetch(`${h.sandbox.url}${req.url}`, { headers: { authorization: req.headers.authorization ?? '' } });
  const body = lie((await real.json()) as Parameters<Lie>[0], Number(new URL(req.url, 'http://x').searchParams.get('offset')));
  return { status: 200, body: JSON.stringify(body) };
}

const alertLists = () => proxy.arrivals.filter((r) => r.url.startsWith('/api/v2/alerts?')).length;

/** From now on the alert lists lie (requests counted from here). */
function lying(how: Lie): void {
  proxy.arrivals.length = 0;
  lie = how;
}

beforeEach(async () => {
  lie = undefined;
  h = await TrustHarness.start({
    via: async (sandbox) => {
      proxy = await startProxy(sandbox.url, alertsThroughLie);
      return proxy.url;
    },
  });
  h.manifests({
    'keep.yaml': dashboardYaml('keep', 'Keep', [{ key: 'lat' }]) + '---\n' + alertYaml('keep-slow', 'keep', 'lat'),
    'doomed.yaml': dashboardYaml('doomed', 'Doomed', [{ key: 'lat' }, { key: 'err' }]),
  });
  expect((await h.run()).apply?.summary.failed).toBe(0);
});

afterEach(async () => {
  await h.close();
  await proxy.close();
});

describe('a service whose paging lies', () => {
  it('a list cut short of its total fails the read: the prune whose cascade it hid does not happen', async () => {
    const handMade = await h.handMadeAlert(await h.dashboard('Doomed'), 'err', 'Made by hand');
    h.manifests({ 'keep.yaml': dashboardYaml('keep', 'Keep', [{ key: 'lat' }]) + '---\n' + alertYaml('keep-slow', 'keep', 'lat') });
    // The hand-made alert "is on a later page" that never comes.
    lying((page) => ({ data: page.data.filter((a) => a.id !== handMade.id), meta: { ...page.meta, total: page.meta.total + 5000 } }));

    const run = h.run({ prune: true });
    const err = await run.then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).code).toBe('API_PAGING');
    expect((err as ApiError).message).toMatch(
      new RegExp(
        String.raw`^GET \/api\/v2\/alerts on 127\.0\.0\.1:\d+: the service's paging is inconsistent: the service announced 5002 ` +
          String.raw`objects and its pages ran out after 1; obsync does not plan from a partial list$`,
      ),
    );
    expect((await h.dashboards()).map((d) => d.name)).toContain('Doomed');
    lie = undefined;
    expect((await h.alerts()).map((a) => a.id)).toContain(handMade.id);
  });

  it('a total of 1e12 fails at the first page, not after 58,595 requests', async () => {
    lying((page) => ({ ...page, meta: { ...page.meta, total: 1e12 } }));
    await expect(h.run({ mode: 'plan' })).rejects.toThrow(
      /the service announced 1000000000000 objects, more than obsync reads of one kind \(100000\)/,
    );
    expect(alertLists()).toBe(1);
  });

  it('a service that answers every offset with the first page fails at the second', async () => {
    // One thousand alerts on every page, whatever the offset: a full first page asks for a second.
    let template: unknown;
    lying((page) => {
      template ??= page.data[0];
      return {
        data: Array.from({ length: 1000 }, (_, i) => ({ ...(template as object), id: `6${String(i).padStart(23, '0')}` })),
        meta: { total: 2500 },
      };
    });
    await expect(h.run({ mode: 'plan' })).rejects.toThrow(/the page at offset 1000 holds only objects of earlier pages/);
    expect(alertLists()).toBe(2);
  });
});
