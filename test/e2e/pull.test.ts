/**
 * `obsync pull` end to end (issue 41 item 1), in-process against one HTTP sandbox: a tile moved in
 * the UI changes its x/y lines and nothing else (--check first writes nothing and exits 2), and a
 * plan afterwards shows no change; a threshold written as ${var:…} and a webhook's URL are
 * conflicts with file:line and both values (the URL masked), their file left whole; an object
 * deleted in the UI leaves its manifest unless --prune; an object made in the UI is written as a
 * new manifest only when --include-unmanaged selects it.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv } from 'ajv';
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
  port = sandboxPort(sandbox, 'self-hosted');
  dir = mkdtempSync(join(tmpdir(), 'obsync-pull-e2e-'));
});
afterAll(async () => {
  await port.close();
  await sandbox.close();
  rmSync(dir, { recursive: true, force: true });
});

const DASHBOARD = `# The checkout dashboard: owned by the payments team.
apiVersion: obsync/v1
kind: Dashboard
metadata:
  name: checkout # identity
spec:
  name: 'Checkout'
  tags: [payments]

  tiles:
    # the latency tile
    - key: p99
      name: "p99 latency"
      x: 0   # left
      y: 0
      w: 6
      h: 4
      config:
        displayType: line
        source: Traces
        select: [{aggFn: avg, valueExpression: Duration}]
`;

const ALERT = `apiVersion: obsync/v1
kind: Alert
metadata:
  name: checkout-slow
spec:
  dashboard: checkout
  tile: p99
  interval: 5m
  threshold: \${var:threshold}   # per environment
  thresholdType: above
  channel: {type: webhook, webhook: ops-webhook}
  name: Checkout slow
`;

const HOOK = `apiVersion: obsync/v1
kind: Webhook
metadata:
  name: pager
spec:
  name: pager
  service: generic
  url: \${env:PAGER_URL}
`;

const GONE = `apiVersion: obsync/v1
kind: Dashboard
metadata:
  name: gone
spec:
  name: Gone soon
  tiles: []
`;

function config(): string {
  return (
    `apiVersion: obsync/v1\nkind: Config\nmanifests: [manifests]\nstate: {backend: file, path: .obsync/state}\ntargets:\n  - name: ` +
    `t\n    variant: self-hosted\n    baseUrl: ${sandbox.url}\n    credentials: {apiKey: ${sandbox.credentials.apiKey}}\n    ` +
    `rateLimit: {requests: 1000, perSeconds: 1}\n    vars: {threshold: 900}\n`
  );
}

const PAGER_URL = 'https://hooks.example.com/pager/0123456789abcdef';
const run = (...args: string[]) => runCli(args, { cwd: dir, env: { PAGER_URL } });
const pullReport = new Ajv({ strict: true, allErrors: true }).compile(
  JSON.parse(readFileSync('docs/schema/pull-report.schema.json', 'utf8')) as object,
);
/** `pull --output json`, checked against its published schema. */
async function pullJson(...args: string[]) {
  const out = await run('pull', '--output', 'json', ...args);
  const doc = JSON.parse(out.stdout) as Record<string, unknown>;
  expect(pullReport(doc), JSON.stringify(pullReport.errors)).toBe(true);
  return { code: out.code, doc };
}
const read = (file: string) => readFileSync(join(dir, 'manifests', file), 'utf8');

async function liveDashboard(name: string) {
  const all = await collectionOf(port, 'Dashboard').list();
  const found = all.find((d) => d.name === name);
  if (!found) throw new Error(`no dashboard ${name}`);
  return found;
}

describe('obsync pull', () => {
  it('pulls a moved tile as its x/y lines, refuses literals over templates, prunes and adopts only when asked', {
    timeout: 120_000,
  }, async () => {
    mkdirSync(join(dir, 'manifests'), { recursive: true });
    writeFileSync(join(dir, 'obsync.yaml'), config());
    writeFileSync(join(dir, 'manifests/checkout.yaml'), DASHBOARD);
    writeFileSync(join(dir, 'manifests/alert.yaml'), ALERT);
    writeFileSync(join(dir, 'manifests/gone.yaml'), GONE);
    writeFileSync(join(dir, 'manifests/hook.yaml'), HOOK);
    const applied = await run('apply', '--auto-approve');
    expect(applied.code, applied.stderr + applied.stdout).toBe(0);
    expect((await run('pull', '--check')).code).toBe(0);

    // A tile moved in the UI.
    const checkout = await liveDashboard('Checkout');
    const tiles = checkout.tiles.map((t) => ({ ...t, x: 6, y: 2 }));
    await collectionOf(port, 'Dashboard').update(checkout.id, { ...checkout, tiles } as never);
    const check = await run('pull', '--check');
    expect(check.code, check.stdout + check.stderr).toBe(2);
    expect(check.stdout).toContain('manifests/checkout.yaml:14  Dashboard/checkout spec.tiles[0].x: 0 → 6');
    expect(read('checkout.yaml')).toBe(DASHBOARD);
    // The same as a document for scripts, and as annotations on the manifest's lines for a CI job.
    const asJson = await pullJson('--check');
    expect(asJson.code).toBe(2);
    expect(asJson.doc).toMatchObject({
      check: true,
      changes: true,
      summary: { files: 1, edits: 2, conflicts: 0, errors: 0 },
      files: [
        {
          file: 'manifests/checkout.yaml',
          status: 'changed',
          edits: [
            { address: 'Dashboard/checkout', line: 14, path: 'spec.tiles[0].x', op: 'set', before: 0, after: 6 },
            { address: 'Dashboard/checkout', line: 15, path: 'spec.tiles[0].y', op: 'set', before: 0, after: 2 },
          ],
        },
      ],
      conflicts: [],
    });
    const annotated = await run('pull', '--check', '--output', 'github');
    expect(annotated.code).toBe(2);
    expect(annotated.stdout).toContain('::notice file=manifests/checkout.yaml,line=14::Dashboard/checkout spec.tiles[0].x: 0 → 6 (live)');
    expect(read('checkout.yaml')).toBe(DASHBOARD);
    const pulled = await run('pull');
    expect(pulled.code, pulled.stdout + pulled.stderr).toBe(0);
    expect(read('checkout.yaml')).toBe(DASHBOARD.replace('x: 0   # left', 'x: 6   # left').replace('      y: 0\n', '      y: 2\n'));
    const plan = await run('plan', '--detailed-exitcode');
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
    expect((await run('pull', '--check')).code).toBe(0);

    // A threshold written as ${var:threshold}, changed in the UI: a conflict, never a literal.
    const alerts = await collectionOf(port, 'Alert').list();
    const alert = alerts.find((a) => a.name === 'Checkout slow');
    if (!alert) throw new Error('no alert');
    await collectionOf(port, 'Alert').update(alert.id, { ...alert, threshold: 1200 } as never);
    const conflict = await run('pull');
    expect(conflict.code).toBe(1);
    expect(conflict.stdout).toContain(
      'conflict: manifests/alert.yaml:9  Alert/checkout-slow spec.threshold (interpolated): manifest 900 (written ${var:threshold}), ' +
        'live 1200',
    );
    expect(read('alert.yaml')).toBe(ALERT);
    await collectionOf(port, 'Alert').update(alert.id, { ...alert, threshold: 900 } as never);

    // A sensitive field changed in the UI: a conflict whose two values are masked; neither URL is printed.
    const hooks = await collectionOf(port, 'Webhook').list();
    const hook = hooks.find((h) => h.name === 'pager');
    if (!hook) throw new Error('no webhook');
    const moved = 'https://hooks.example.com/pager/fedcba9876543210';
    await collectionOf(port, 'Webhook').update(hook.id, { name: hook.name, service: hook.service, url: moved });
    const secret = await run('pull');
    expect(secret.code).toBe(1);
    expect(secret.stdout).toContain('conflict: manifests/hook.yaml:8  Webhook/pager spec.url (sensitive)');
    expect(secret.stdout).toContain('spec.url (sensitive): manifest "(sensitive)", live "(sensitive)"');
    expect(secret.stdout + secret.stderr).not.toContain('fedcba9876543210');
    expect(secret.stdout + secret.stderr).not.toContain('0123456789abcdef');
    const secretJson = await pullJson();
    expect(secretJson.code).toBe(1);
    expect(secretJson.doc).toMatchObject({
      changes: false,
      conflicts: [
        {
          address: 'Webhook/pager',
          file: 'manifests/hook.yaml',
          line: 8,
          reason: 'sensitive',
          manifest: '(sensitive)',
          live: '(sensitive)',
        },
      ],
    });
    expect(JSON.stringify(secretJson.doc)).not.toMatch(/fedcba9876543210|0123456789abcdef/);
    const secretAnnotated = await run('pull', '--output', 'github');
    expect(secretAnnotated.stdout).toContain('::error file=manifests/hook.yaml,line=8::Webhook/pager spec.url (sensitive): ');
    expect(secretAnnotated.stdout).not.toMatch(/fedcba9876543210|0123456789abcdef/);
    expect(read('hook.yaml')).toBe(HOOK);
    await collectionOf(port, 'Webhook').update(hook.id, { name: hook.name, service: hook.service, url: PAGER_URL });

    // Deleted in the UI: reported, removed only with --prune (the file goes with its last document).
    const gone = await liveDashboard('Gone soon');
    await collectionOf(port, 'Dashboard').delete(gone.id);
    const kept = await run('pull');
    expect(kept.code, kept.stdout + kept.stderr).toBe(0);
    expect(kept.stdout).toContain(
      'note: Dashboard/gone (manifests/gone.yaml:1) was deleted on the service; pull --prune removes its manifest',
    );
    expect(read('gone.yaml')).toBe(GONE);
    const pruned = await run('pull', '--prune');
    expect(pruned.code, pruned.stdout + pruned.stderr).toBe(0);
    expect(existsSync(join(dir, 'manifests/gone.yaml'))).toBe(false);

    // Made in the UI: written only when selected, where export would put it; the next plan adopts it by name with no change.
    await collectionOf(port, 'Dashboard').create({ name: 'Made in the UI', tags: ['gitops'], tiles: [] });
    await collectionOf(port, 'Dashboard').create({ name: 'Scratch', tags: [], tiles: [] });
    expect((await run('pull', '--check')).code).toBe(0);
    const bad = await run('pull', '--include-unmanaged', 'colour=red');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("'colour=red' is not a selector term");
    const adopted = await run('pull', '--include-unmanaged', 'Dashboard,tag=gitops');
    expect(adopted.code, adopted.stdout + adopted.stderr).toBe(0);
    expect(adopted.stdout).toContain('Dashboard/made-in-the-ui');
    expect(read('dashboard/made-in-the-ui.yaml')).toContain('name: Made in the UI');
    expect(existsSync(join(dir, 'manifests/dashboard/scratch.yaml'))).toBe(false);
    const after = await run('plan', '--detailed-exitcode');
    expect(after.code, after.stdout + after.stderr).toBe(0);
  });
});
