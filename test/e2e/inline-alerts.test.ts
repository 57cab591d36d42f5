/**
 * Issue 49: an Alert with `source: inline` and its own `chart` (a tile config) end to end on the
 * self-hosted sandbox, in process: plan and apply create it (backtested and charted like a tile
 * alert, its chart being the tile), the next plan is empty (the list
 * leaves `chartConfig` out, so obsync reads inline alerts again by id), a change made on the
 * service is drift the next apply puts back, and an export adopted in a fresh project plans to
 * no change.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { runCli } from '../support/cli.js';

let sandbox: SandboxHandle;
const dirs: string[] = [];

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, rateLimit: 'off' });
});
afterAll(async () => {
  await sandbox.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const ALERTS = `apiVersion: obsync/v1
kind: Alert
metadata: {name: checkout-errors}
spec:
  source: inline
  name: Checkout errors
  chart:
    source: Logs
    displayType: line
    select: [{aggFn: count, where: "SeverityText:error"}]
    groupBy: ServiceName
  where: "ServiceName:checkout"
  interval: 5m
  threshold: 10
  thresholdType: above
  channel: {type: webhook, webhook: ops-slack}
---
apiVersion: obsync/v1
kind: Alert
metadata: {name: rows-per-minute}
spec:
  source: inline
  name: Rows per minute
  chart:
    configType: sql
    connection: Default
    displayType: number
    sqlTemplate: SELECT count() FROM otel_logs
  interval: 1m
  threshold: 0
  thresholdType: equal
  channel: {type: webhook, webhook: ops-slack}
`;

function project(manifests: string | null) {
  const dir = mkdtempSync(join(tmpdir(), 'obsync-inline-'));
  dirs.push(dir);
  const c = sandbox.credentials;
  writeFileSync(
    join(dir, 'obsync.yaml'),
    `apiVersion: obsync/v1\nkind: Config\nmanifests: [manifests]\nstate: {backend: file, path: .obsync/state}\ntargets:\n  - name: ` +
      `t\n    variant: self-hosted\n    credentials: {apiKey: ${c.apiKey}}\n    baseUrl: ${sandbox.url}\n`,
  );
  mkdirSync(join(dir, 'manifests'));
  if (manifests !== null) writeFileSync(join(dir, 'manifests', 'alerts.yaml'), manifests);
  return Object.assign((...args: string[]) => runCli(args, { cwd: dir }), { dir });
}

async function api(method: string, path: string, body?: unknown): Promise<{ status: number; data: unknown }> {
  const res = await fetch(`${sandbox.url}/api/v2${path}`, {
    method,
    headers: { authorization: `Bearer ${sandbox.credentials.apiKey}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, data: ((await res.json()) as { data: unknown }).data };
}

describe('inline alerts as code (self-hosted)', () => {
  it('plan, apply, an empty next plan, drift put back, and an adopted export that plans to no change', { timeout: 60_000 }, async () => {
    const obsync = project(ALERTS);
    const plan = await obsync('plan', '--detailed-exitcode', '--backtest', '1d', '--preview-dir', 'previews', '--output', 'json');
    expect(plan.code, plan.stderr).toBe(2);
    const changes = (JSON.parse(plan.stdout) as { resource_changes: { obsync_address: string; backtest?: Record<string, unknown> }[] })
      .resource_changes;
    expect(changes.map((c) => c.obsync_address).sort()).toEqual(['Alert/checkout-errors', 'Alert/rows-per-minute']);
    // Backtested like a tile alert (issue 49): its chart is the tile, its chart-level where joined to the series'.
    expect(changes.find((c) => c.obsync_address === 'Alert/checkout-errors')?.backtest).toMatchObject({ status: 'ok', evaluated: 288 });
    expect(changes.find((c) => c.obsync_address === 'Alert/rows-per-minute')?.backtest).toMatchObject({
      status: 'unavailable',
      reason: expect.stringContaining('Raw SQL'),
    });
    expect(plan.stderr).toMatch(/preview: Alert\/checkout-errors: previews\/backtest-checkout-errors\.svg/);
    expect(readFileSync(join(obsync.dir, 'previews', 'backtest-checkout-errors.svg'), 'utf8')).toContain('threshold above 10');
    const apply = await obsync('apply', '--auto-approve');
    expect(apply.code, apply.stderr).toBe(0);

    const listed = ((await api('GET', '/alerts')).data as { id: string; source: string; name: string }[]).filter(
      (a) => a.source === 'inline',
    );
    expect(listed.map((a) => a.name).sort()).toEqual(['Checkout errors', 'Rows per minute']);
    const errorsId = listed.find((a) => a.name === 'Checkout errors')?.id ?? '';
    const created = (await api('GET', `/alerts/${errorsId}`)).data as { chartConfig: Record<string, unknown> } & Record<string, unknown>;
    expect(created.chartConfig).toMatchObject({
      displayType: 'line',
      groupBy: 'ServiceName',
      where: 'ServiceName:checkout',
      whereLanguage: 'lucene',
      select: [{ aggFn: 'count', where: 'SeverityText:error' }],
    });
    expect(created.chartConfig).not.toHaveProperty('configType');

    const again = await obsync('plan', '--detailed-exitcode');
    expect(again.code, again.stdout).toBe(0);

    // Drift: someone widens the chart's filter on the service.
    const { id: _id, teamId: _t, state: _s, createdAt: _c, updatedAt: _u, channel: _ch, ...body } = created;
    const changed = await api('PUT', `/alerts/${errorsId}`, { ...body, chartConfig: { ...created.chartConfig, where: 'ServiceName:*' } });
    expect(changed.status).toBe(200);
    const drift = await obsync('plan', '--detailed-exitcode');
    expect(drift.code).toBe(2);
    expect(drift.stdout).toContain('chart');
    expect((await obsync('apply', '--auto-approve')).code).toBe(0);
    expect(((await api('GET', `/alerts/${errorsId}`)).data as typeof created).chartConfig.where).toBe('ServiceName:checkout');

    const fresh = project(null);
    const exported = await fresh('export', '--kind', 'Alert', '--adopt');
    expect(exported.code, exported.stderr).toBe(0);
    const roundTrip = await fresh('plan', '--detailed-exitcode');
    expect(roundTrip.code, roundTrip.stdout + roundTrip.stderr).toBe(0);
  });
});
