/**
 * Issue 48 end to end, in-process against one HTTP sandbox: the UI owns a dashboard's tile
 * positions (defaults.ignore in obsync.yaml), so a tile moved in the UI plans as 0 changes and is
 * shown as ignored, while a tile renamed in the same edit is still planned and healed without
 * moving the tile back. The target's mark is on every object obsync wrote, and never in a plan or
 * an export: an export planned again shows no change. A rule that names no field is an error with
 * a did-you-mean, in obsync.yaml and in a manifest.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServicePort } from '../../src/core/ports.js';
import { collectionOf } from '../../src/kinds/registry.js';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { runCli } from '../support/cli.js';
import { sandboxPort } from '../support/world.js';

let sandbox: SandboxHandle;
let port: ServicePort;
let dir: string;
beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, rateLimit: 'off' });
  // The UI's view: a client without the mark.
  port = sandboxPort(sandbox, 'self-hosted');
  dir = mkdtempSync(join(tmpdir(), 'obsync-ignore-e2e-'));
});
afterAll(async () => {
  await port.close();
  await sandbox.close();
  rmSync(dir, { recursive: true, force: true });
});

const TAG = 'managed-by-obsync';
const LINE = 'Managed in Git by obsync: edits here are reverted.';

function config(ignore = '["tiles[*].x", "tiles[*].y"]'): string {
  return `apiVersion: obsync/v1
kind: Config
manifests: [manifests]
state: {backend: file, path: .obsync/state}
defaults:
  ignore: {Dashboard: ${ignore}}
targets:
  - name: t
    variant: self-hosted
    baseUrl: ${sandbox.url}
    credentials: {apiKey: ${sandbox.credentials.apiKey}}
    rateLimit: {requests: 1000, perSeconds: 1}
    mark: {tag: ${TAG}, description: "${LINE}"}
`;
}

const MANIFESTS =
  `apiVersion: obsync/v1
kind: Dashboard
metadata: {name: checkout}
spec:
  name: Checkout
  tags: [payments]
  tiles:
    - {key: p99, name: p99 latency, x: 0, y: 0, w: 6, h: 4, config: {displayType: line, source: Traces, select: [{aggFn: avg, ` +
  `valueExpression: Duration}]}}
    - {key: errors, name: Errors, x: 6, y: 0, w: 6, h: 4, config: {displayType: number, source: Traces, select: [{aggFn: count}]}}
---
apiVersion: obsync/v1
kind: Alert
metadata: {name: checkout-slow}
spec: {dashboard: checkout, tile: p99, name: Checkout slow, note: Page payments., threshold: 900, thresholdType: above, interval: 5m, ` +
  `channel: {type: webhook, webhook: ops-webhook}}
`;

const run = (args: string[], cwd = dir) => runCli(args, { cwd });

async function live() {
  const dashboard = (await collectionOf(port, 'Dashboard').list()).find((d) => d.name === 'Checkout');
  const alert = (await collectionOf(port, 'Alert').list()).find((a) => a.name === 'Checkout slow');
  if (!dashboard || !alert) throw new Error('not found');
  return { dashboard, alert };
}

describe('ignore rules and the mark', () => {
  it('a UI edit of an ignored field plans as 0 changes and is shown; the rest of the edit is healed; the mark never shows', {
    timeout: 60_000,
  }, async () => {
    mkdirSync(join(dir, 'manifests'), { recursive: true });
    writeFileSync(join(dir, 'obsync.yaml'), config());
    writeFileSync(join(dir, 'manifests/checkout.yaml'), MANIFESTS);
    const applied = await run(['apply', '--auto-approve']);
    expect(applied.code, applied.stderr + applied.stdout).toBe(0);
    const marked = await live();
    expect(marked.dashboard.tags).toEqual(['payments', TAG]);
    expect(marked.alert.note).toBe(`Page payments.\n\n${LINE}`);

    // The UI moves one tile (ignored) and renames the other (not ignored).
    const [p99, errors] = marked.dashboard.tiles;
    if (!p99 || !errors) throw new Error('no tiles');
    const tiles = [
      { ...p99, x: 6, y: 4 },
      { ...errors, name: 'Errors (UI)' },
    ];
    await collectionOf(port, 'Dashboard').update(marked.dashboard.id, { ...marked.dashboard, tiles } as never);
    const drift = await run(['plan', '--detailed-exitcode', '--no-color']);
    expect(drift.code, drift.stdout + drift.stderr).toBe(2);
    expect(drift.stdout).toContain('~ tiles.errors.name: "Errors (UI)" → "Errors"');
    expect(drift.stdout).toContain('= tiles.p99.x: ignored by rule tiles[*].x (defaults.ignore.Dashboard)');
    expect(drift.stdout).toContain('Plan: 0 to create, 1 to update, 0 to delete');
    expect(drift.stdout).not.toContain(TAG);
    expect((await run(['apply', '--auto-approve'])).code).toBe(0);
    const healed = await live();
    expect(healed.dashboard.tiles.map((t) => [t.name, t.x, t.y])).toEqual([
      ['p99 latency', 6, 4],
      ['Errors', 6, 0],
    ]);
    expect(healed.dashboard.tags).toEqual(['payments', TAG]);

    const json = await run(['plan', '--detailed-exitcode', '--output', 'json']);
    expect(json.code, json.stdout + json.stderr).toBe(0);
    const doc = JSON.parse(json.stdout) as { resource_changes: { obsync_address: string; ignored?: { path: string; rule: string }[] }[] };
    const ignored = doc.resource_changes.find((c) => c.obsync_address === 'Dashboard/checkout')?.ignored;
    expect(ignored?.map((c) => [c.path, c.rule])).toEqual([
      ['tiles.p99.x', 'tiles[*].x'],
      ['tiles.p99.y', 'tiles[*].y'],
    ]);
    expect(json.stdout).not.toContain(TAG);
    expect(json.stdout).not.toContain('Managed in Git');
  });

  it('the mark is kept out of an export, and the export plans as 0 changes', { timeout: 60_000 }, async () => {
    const exported = await run(['export', '--kind', 'Dashboard,Alert', '--out-dir', 'exported']);
    expect(exported.code, exported.stderr).toBe(0);
    const texts = readdirSync(join(dir, 'exported'), { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile() && e.name.endsWith('.yaml'))
      .map((e) => readFileSync(join(e.parentPath, e.name), 'utf8'))
      .join('\n');
    expect(texts).toContain('Checkout');
    expect(texts).not.toContain(TAG);
    expect(texts).not.toContain('Managed in Git');
    // Another project (its own state) over the export: it adopts the same objects, with no change.
    const other = join(dir, 'other');
    mkdirSync(other, { recursive: true });
    writeFileSync(join(other, 'obsync.yaml'), config().replace('manifests: [manifests]', 'manifests: [../exported]'));
    const plan = await run(['plan', '--output', 'json'], other);
    expect(plan.code, plan.stderr).toBe(0);
    const doc = JSON.parse(plan.stdout) as { resource_changes: { obsync_address: string; changes: unknown[] }[] };
    const mine = doc.resource_changes.filter((c) => /^(Dashboard|Alert)\//.test(c.obsync_address));
    expect(mine.length).toBeGreaterThanOrEqual(2);
    for (const c of mine) expect(c.changes, c.obsync_address).toEqual([]);
  });

  it('a rule that names no field is an error with a did-you-mean, in obsync.yaml and in a manifest', { timeout: 30_000 }, async () => {
    writeFileSync(join(dir, 'obsync.yaml'), config('["tiles[*].xx"]'));
    const bad = await run(['validate']);
    expect(bad.code).toBe(1);
    expect(bad.stdout + bad.stderr).toContain("Dashboard has no field spec.tiles[*].xx — did you mean 'x'?");
    writeFileSync(join(dir, 'obsync.yaml'), config());
    writeFileSync(
      join(dir, 'manifests/checkout.yaml'),
      MANIFESTS.replace('metadata: {name: checkout}', 'metadata: {name: checkout, ignore: [savedFilterValue]}'),
    );
    const manifest = await run(['plan']);
    expect(manifest.code).toBe(1);
    expect(manifest.stdout + manifest.stderr).toMatch(/manifests\/checkout\.yaml:3:\d+.*did you mean 'savedFilterValues'\?/);
  });
});
