/**
 * Issue 50, item 6: a series answer matching none of the asked series or buckets read as a
 * confident "0 of 2016 windows" instead of "unavailable". A proxy in front of the sandbox answers
 * the plan's series requests with the sandbox's own rows, moved half a window, or renamed to
 * another series: the backtest says it is unavailable and why; the honest answer is evaluated.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Backtest } from '../../src/core/backtest.js';
import type { JsonObject } from '../../src/core/wire.js';
import { startProxy, type Proxy, type ProxiedRequest, type ProxyReply } from '../support/proxy.js';
import { alertYaml, dashboardYaml, TrustHarness } from '../support/reconcile.js';

const BACKTEST = { windowMs: 86_400_000, window: '1d', budget: 20, perAlert: 6, now: new Date(Date.UTC(2026, 10, 26, 12, 3, 17)) };

let h: TrustHarness;
let proxy: Proxy;
let rewrite: ((row: JsonObject) => JsonObject) | undefined;

/** The sandbox's real answer to a series request, each row rewritten before obsync sees it. */
async function seriesThroughRewrite(req: ProxiedRequest): Promise<ProxyReply | undefined> {
  if (!rewrite || req.method !== 'POST' || !req.url.endsWith('/charts/series')) return undefined;
  const real = await fetch(`${h.sandbox.url}${req.url}`, {
    method: 'POST',
    headers: { authorization: req.headers.authorization ?? '', 'content-type': 'application/json' },
    body: req.body,
  });
  const body = (await real.json()) as { data: JsonObject[] };
  return { status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ data: body.data.map(rewrite) }) };
}

beforeAll(async () => {
  h = await TrustHarness.start({
    via: async (sandbox) => {
      proxy = await startProxy(sandbox.url, seriesThroughRewrite);
      return proxy.url;
    },
  });
  h.manifests({ 'd.yaml': `${dashboardYaml('svc', 'Service', [{ key: 'lat' }])}---\n${alertYaml('svc-slow', 'svc', 'lat')}` });
});
afterAll(async () => {
  await h.close();
  await proxy.close();
});

async function backtest(): Promise<Backtest | undefined> {
  const report = await h.run({ mode: 'plan', backtest: BACKTEST });
  return report.plan.steps.find((s) => s.address === 'Alert/svc-slow')?.backtest;
}

describe('a series answer that answers another question', () => {
  it('is evaluated when honest', async () => {
    rewrite = undefined;
    expect(await backtest()).toMatchObject({ status: 'ok', evaluated: 288 });
  });

  it.each([
    ['moved half a window', (row: JsonObject): JsonObject => ({ ...row, ts_bucket: (row.ts_bucket as number) + 150_000 })],
    ['of another series', (row: JsonObject): JsonObject => ({ ts_bucket: row.ts_bucket ?? 0, group: [], 'series_3.data': '1' })],
  ])('is unavailable, with the reason, when every row is %s', async (_label, how) => {
    rewrite = how;
    const got = await backtest();
    expect(got?.status).toBe('unavailable');
    expect(got?.reason).toContain('the chart series answer does not answer the request');
    expect(got).not.toHaveProperty('evaluated');
  });
});
