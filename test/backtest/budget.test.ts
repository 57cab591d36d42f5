/**
 * Issue 26, "Prove it": the budget holds. A plan that creates 40 alerts, each on its own tile
 * query, against a sandbox that enforces a rate limit (10 requests per 2 s, the self-hosted
 * limit's shape scaled down so the test waits seconds, not minutes), with the client pacing at
 * that limit: the plan makes no more series requests than its budget, says which alerts it
 * skipped and why, and never meets a 429.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServicePort } from '../../src/core/ports.js';
import { Secret } from '../../src/core/secret.js';
import { reconcile } from '../../src/engine/reconcile.js';
import { SELECT_ALL } from '../../src/engine/selection.js';
import { memoryInventory } from '../../src/inventory/memory-store.js';
import { loadManifests } from '../../src/manifests/load.js';
import { createServicePort } from '../../src/remote/index.js';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';

const LIMIT = { limit: 10, windowMs: 2_000 };
const ALERTS = 40;
const BUDGET = 20;

let sandbox: SandboxHandle;
let port: ServicePort;
let dir: string;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, rateLimit: { selfHosted: LIMIT } });
  port = createServicePort({
    name: 'budget',
    variant: 'self-hosted',
    baseUrl: sandbox.url,
    apiKey: new Secret(sandbox.credentials.apiKey),
    concurrency: 4,
    timeoutMs: 20_000,
    retries: 0,
    pacing: LIMIT,
    embedded: false,
  });
  dir = mkdtempSync(join(tmpdir(), 'obsync-budget-'));
  mkdirSync(join(dir, 'm'));
  const tiles = Array.from(
    { length: ALERTS },
    (_, i) =>
      `    - {key: t${i}, name: t${i}, x: ${(i % 4) * 6}, y: ${Math.floor(i / 4) * 4}, w: 6, h: 4, config: {displayType: line, source: ` +
      `Logs, select: [{aggFn: count, where: 'ServiceName:svc-${i}'}]}}`,
  ).join('\n');
  const alerts = Array.from(
    { length: ALERTS },
    (_, i) =>
      `apiVersion: obsync/v1\nkind: Alert\nmetadata: {name: a${String(i).padStart(2, '0')}}\nspec: {dashboard: many, tile: t${i}, ` +
      `threshold: 50, thresholdType: above, interval: 1h, channel: {type: webhook, webhook: ops-slack}, name: a${i}}\n`,
  ).join('---\n');
  writeFileSync(
    join(dir, 'm', 'all.yaml'),
    `apiVersion: obsync/v1\nkind: Dashboard\nmetadata: {name: many}\nspec:\n  name: Many\n  tiles:\n${tiles}\n---\n${alerts}`,
  );
});

afterAll(async () => {
  await port.close();
  await sandbox.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the backtest budget', () => {
  it('holds for a plan of 40 changed alerts: no more series requests than the budget, the rest skipped by name, no 429', async () => {
    const { resources, diagnostics } = loadManifests([join(dir, 'm')], { env: {} });
    expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    sandbox.clearRequests();
    const report = await reconcile({
      mode: 'plan',
      port,
      inventory: memoryInventory('budget'),
      desired: resources,
      selection: SELECT_ALL,
      prune: false,
      maxDeletes: 10,
      concurrency: 4,
      backtest: { windowMs: 7 * 86_400_000, window: '7d', budget: BUDGET, perAlert: 6, now: new Date(Date.UTC(2026, 10, 26, 12)) },
    });
    const log = sandbox.requests();
    const series = log.filter((r) => r.method === 'POST' && r.path.endsWith('/charts/series'));
    expect(series).toHaveLength(BUDGET);
    expect(log.filter((r) => r.status === 429)).toEqual([]);
    expect(report.requests.throttled).toBe(0);
    expect(report.plan.errored).toBe(false);
    expect(report.plan.backtest).toMatchObject({
      budget: BUDGET,
      requests: BUDGET,
      alerts: ALERTS,
      skipped: ALERTS - BUDGET,
      needed: ALERTS,
    });

    const alerts = report.plan.steps.filter((s) => s.kind === 'Alert');
    expect(alerts).toHaveLength(ALERTS);
    const evaluated = alerts.filter((s) => s.backtest?.status === 'ok');
    const skipped = alerts.filter((s) => s.backtest?.status === 'skipped');
    expect(evaluated.map((s) => s.name)).toEqual(Array.from({ length: BUDGET }, (_, i) => `a${String(i).padStart(2, '0')}`));
    expect(skipped).toHaveLength(ALERTS - BUDGET);
    for (const s of skipped) expect(s.backtest?.reason).toContain(`budget of ${BUDGET} series requests is spent`);
    for (const s of evaluated) expect(s.backtest).toMatchObject({ evaluated: 168, requests: 1 });
    // Not every alert of the 20 fires, and not none: the counts come from the data.
    const firing = evaluated.map((s) => s.backtest?.firing ?? 0);
    expect(firing.some((f) => f > 0)).toBe(true);
  });
});
