/**
 * End to end: the real CLI as a child process against the real sandbox server over loopback,
 * on both API variants.
 */
import { collectionOf } from '../../src/kinds/registry.js';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { assertBuilt, runCli } from '../support/cli.js';

let sandbox: SandboxHandle;
let dir: string;
const PASSWORD = 'e2e-very-secret-password-91';

function config(url: string): string {
  const c = sandbox.credentials;
  return `apiVersion: obsync/v1
kind: Config
manifests: [kinds, team, extra.yaml]
state: {backend: file, path: .obsync/state}
defaults: {target: hosted}
targets:
  - name: hosted
    variant: hosted
    baseUrl: ${url}
    organizationId: ${c.organizationId}
    serviceId: ${c.serviceId}
    credentials: {keyId: ${c.keyId}, keySecret: "\${env:KEY_SECRET}"}
    rateLimit: {requests: 1000, perSeconds: 1}
  - name: selfhosted
    variant: self-hosted
    baseUrl: ${url}
    credentials: {apiKey: ${c.apiKey}}
    rateLimit: {requests: 1000, perSeconds: 1}
`;
}

const EXTRA_PIPE = `apiVersion: obsync/v1
kind: Pipe
metadata: {name: events-s3}
spec:
  name: events-s3
  source:
    objectStorage:
      authentication: IAM_USER
      accessKey: {accessKeyId: AKIAEXAMPLE, secretKey: "\${env:S3_SECRET}"}
`;

function env(extra: Record<string, string> = {}): Record<string, string> {
  return { KEY_SECRET: sandbox.credentials.keySecret, S3_SECRET: PASSWORD, ...extra };
}

beforeAll(() => assertBuilt());

beforeEach(async () => {
  sandbox = await startSandbox({ port: 0, rateLimit: 'off', pipeTransitionMs: 20 });
  dir = mkdtempSync(join(tmpdir(), 'obsync-e2e-'));
  cpSync('config-examples/kinds', join(dir, 'kinds'), { recursive: true });
  cpSync('config-examples/team', join(dir, 'team'), { recursive: true });
  cpSync('config-examples/obsync.schema.json', join(dir, 'obsync.schema.json'));
  writeFileSync(join(dir, 'obsync.yaml'), config(sandbox.url));
  writeFileSync(join(dir, 'extra.yaml'), EXTRA_PIPE);
  return async () => {
    await sandbox.close();
    rmSync(dir, { recursive: true, force: true });
  };
});

function allText(dirPath: string): string {
  let out = '';
  for (const entry of readdirSync(dirPath, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) out += readFileSync(join(entry.parentPath, entry.name), 'utf8');
  }
  return out;
}

describe('obsync plan/apply, hosted variant', () => {
  it('plans, applies, converges, and never prints or stores a secret', async () => {
    const plan = await runCli(['plan', '--detailed-exitcode'], { cwd: dir, env: env() });
    expect(plan.code).toBe(2);
    expect(plan.stdout).toMatch(/\+ Dashboard\/checkout/);
    const apply = await runCli(['apply', '--auto-approve'], { cwd: dir, env: env() });
    expect(apply.stderr).not.toMatch(/^error/m);
    expect(apply.code).toBe(0);
    expect(apply.stdout).toMatch(/Apply complete: \d+ created, \d+ updated, 0 deleted(, \d+ adopted)?, 0 failed/);
    const again = await runCli(['plan', '--detailed-exitcode'], { cwd: dir, env: env() });
    expect(again.stdout).toContain('No changes.');
    expect(again.code).toBe(0);
    for (const text of [plan.stdout, plan.stderr, apply.stdout, apply.stderr, again.stdout, allText(join(dir, '.obsync'))]) {
      expect(text).not.toContain(PASSWORD);
      expect(text).not.toContain(sandbox.credentials.keySecret);
    }
    expect(plan.stdout).toContain('(sensitive)');
  });

  it('re-sends a secret only when it rotates', async () => {
    await runCli(['apply', '--auto-approve'], { cwd: dir, env: env() });
    const rotated = await runCli(['plan', '--only', 'Pipe/events-s3'], { cwd: dir, env: env({ S3_SECRET: 'rotated-secret-value' }) });
    expect(rotated.stdout).toMatch(/~ Pipe\/events-s3/);
    expect(rotated.stdout).toMatch(/source\.objectStorage\.accessKey.*\(sensitive\)/);
    expect(rotated.stdout).not.toContain('rotated-secret-value');
  });

  it('refuses to apply without --auto-approve when not on a terminal, and writes nothing', async () => {
    sandbox.clearRequests();
    const res = await runCli(['apply'], { cwd: dir, env: env() });
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/--auto-approve/);
    expect(sandbox.requests().filter((r) => r.method !== 'GET')).toEqual([]);
  });

  it('applies a saved plan, refusing the steps whose object moved since planning', async () => {
    await runCli(['apply', '--auto-approve'], { cwd: dir, env: env() });
    const file = join(dir, 'team/dashboards/checkout.yaml');
    writeFileSync(file, readFileSync(file, 'utf8').replace('tags: [payments, checkout]', 'tags: [payments, checkout, saved-plan]'));
    const kinds = join(dir, 'kinds/dashboard.yaml');
    writeFileSync(kinds, readFileSync(kinds, 'utf8').replace('name: Example service', 'name: Example service v2'));
    const saved = await runCli(['plan', '--out', 'plan.json'], { cwd: dir, env: env() });
    expect(saved.code).toBe(0);
    // Someone edits the checkout dashboard on the service between plan and apply.
    const port = await import('../../src/remote/index.js');
    const { Secret } = await import('../../src/core/secret.js');
    const c = sandbox.credentials;
    const client = port.createServicePort({
      name: 'x',
      variant: 'hosted',
      baseUrl: sandbox.url,
      organizationId: c.organizationId,
      serviceId: c.serviceId,
      keyId: c.keyId,
      keySecret: new Secret(c.keySecret),
      paths: { observability: 'observability', pipes: 'pipes' },
      concurrency: 1,
      timeoutMs: 5000,
      retries: 0,
      pacing: { limit: 0, windowMs: 1 },
      embedded: false,
    });
    const live = (await collectionOf(client, 'Dashboard').list()).find((d) => d.name === 'Checkout service');
    if (!live) throw new Error('checkout dashboard missing');
    await collectionOf(client, 'Dashboard').update(live.id, { name: live.name, tiles: live.tiles as never, tags: ['edited-by-hand'] });
    await client.close();
    const apply = await runCli(['apply', 'plan.json', '--auto-approve'], { cwd: dir, env: env() });
    expect(apply.code).toBe(1);
    expect(apply.stderr).toMatch(/Dashboard\/checkout: refused.*changed since the plan/);
    expect(apply.stderr).toMatch(/Dashboard\/example-service: updated/);
  });

  it('prunes only what it owns, after a backup, and only with --prune', async () => {
    await runCli(['apply', '--auto-approve'], { cwd: dir, env: env() });
    rmSync(join(dir, 'kinds/alert.yaml'));
    const noPrune = await runCli(['apply', '--auto-approve'], { cwd: dir, env: env() });
    expect(noPrune.code).toBe(0);
    expect(noPrune.stderr).not.toMatch(/deleted/);
    expect(noPrune.stdout).toMatch(/Alert\/example-error-logs/);
    const prune = await runCli(['apply', '--auto-approve', '--prune'], { cwd: dir, env: env() });
    expect(prune.code).toBe(0);
    expect(prune.stderr).toMatch(/Alert\/example-error-logs: deleted/);
    const backups = readdirSync(join(dir, '.obsync/state/backups'), { recursive: true }).map(String);
    expect(backups.some((b) => b.includes('example-error-logs'))).toBe(true);
  });

  it('shows what a prune deletes along, keeps a delete back for an unowned alert, and lets it go with --prune-cascade', async () => {
    await runCli(['apply', '--auto-approve'], { cwd: dir, env: env() });
    const c = sandbox.credentials;
    const { createServicePort } = await import('../../src/remote/index.js');
    const { Secret } = await import('../../src/core/secret.js');
    const client = createServicePort({
      name: 'x',
      variant: 'hosted',
      baseUrl: sandbox.url,
      organizationId: c.organizationId,
      serviceId: c.serviceId,
      keyId: c.keyId,
      keySecret: new Secret(c.keySecret),
      paths: { observability: 'observability', pipes: 'pipes' },
      concurrency: 1,
      timeoutMs: 5000,
      retries: 0,
      pacing: { limit: 0, windowMs: 1 },
      embedded: false,
    });
    const dashboard = (await collectionOf(client, 'Dashboard').list()).find((d) => d.name === 'Example service');
    const webhook = (await collectionOf(client, 'Webhook').list()).find((w) => w.name === 'ops-slack');
    const tile = dashboard?.tiles.find((t) => t.name === 'Requests');
    if (!dashboard || !webhook || !tile) throw new Error('example dashboard, tile or webhook missing');
    const handMade = await collectionOf(client, 'Alert').create({
      source: 'tile',
      dashboardId: dashboard.id,
      tileId: tile.id,
      name: 'Hand-made requests alert',
      threshold: 1,
      thresholdType: 'above',
      interval: '5m',
      channels: [{ type: 'webhook', webhookId: webhook.id }],
    });
    await client.close();
    rmSync(join(dir, 'kinds/dashboard.yaml'));
    rmSync(join(dir, 'kinds/alert.yaml'));

    const kept = await runCli(['apply', '--auto-approve', '--prune'], { cwd: dir, env: env() });
    expect(kept.stdout).toMatch(/Prune kept 1 object\(s\) back/);
    expect(kept.stdout).toMatch(/Dashboard\/example-service: not deleted: .*Hand-made requests alert.*--prune-cascade/);
    expect(kept.stderr).not.toMatch(/Dashboard\/example-service: deleted/);

    const cascade = await runCli(['apply', '--auto-approve', '--prune', '--prune-cascade'], { cwd: dir, env: env() });
    expect(cascade.stdout).toMatch(/the service also deletes Alert 'Hand-made requests alert' \(id [^,]+, NOT owned by obsync\)/);
    // The summary lines count what the service deletes along: the hand-made alert (the owned ones have their own steps).
    expect(cascade.stdout).toMatch(
      /^Plan: 0 to create, 0 to update, \d+ to delete \(and 1 the service deletes with them\), \d+ unchanged\.$/m,
    );
    expect(cascade.stdout).toMatch(
      /^Apply complete: 0 created, 0 updated, \d+ deleted \(and 1 the service deleted with them\), 0 failed, 0 refused, 0 skipped\.$/m,
    );
    expect(cascade.stderr).toMatch(/Dashboard\/example-service: deleted/);
    expect(kept.code).toBe(1);
    expect(allText(join(dir, '.obsync/state/backups'))).toContain(handMade.id);
  });

  it('stops at an invalid manifest with its position and makes no request', async () => {
    writeFileSync(join(dir, 'team/broken.yaml'), 'apiVersion: obsync/v1\nkind: Alert\nmetadata: {name: broken}\nspec:\n  treshold: 5\n');
    sandbox.clearRequests();
    const res = await runCli(['apply', '--auto-approve'], { cwd: dir, env: env() });
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/broken\.yaml:5:3/);
    expect(res.stderr).toMatch(/did you mean 'threshold'/);
    expect(sandbox.requests().filter((r) => r.method !== 'GET')).toEqual([]);
  });
});

describe('obsync plan/apply, self-hosted variant', () => {
  it('applies dashboards and alerts and converges', async () => {
    const paths = ['team/dashboards', 'team/alerts', 'kinds/dashboard.yaml', 'kinds/alert.yaml'];
    const apply = await runCli(['apply', ...paths, '--target', 'selfhosted', '--auto-approve'], { cwd: dir, env: env() });
    expect(apply.stderr).not.toMatch(/^error/m);
    expect(apply.code).toBe(0);
    const again = await runCli(['plan', ...paths, '--target', 'selfhosted', '--detailed-exitcode'], { cwd: dir, env: env() });
    expect(again.stdout).toContain('No changes.');
    expect(again.code).toBe(0);
  });

  it('says clearly that pipes need the hosted variant', async () => {
    const res = await runCli(['plan', 'team/pipes', '--target', 'selfhosted'], { cwd: dir, env: env() });
    expect(res.code).toBe(1);
    expect(res.stdout + res.stderr).toMatch(/cannot manage Pipe/);
  });
});
