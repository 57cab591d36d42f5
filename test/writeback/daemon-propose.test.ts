/**
 * `drift: propose` end to end (issue 41): `obsync run` reads a clone of a real Git repository (as
 * git-sync gives it), writes to the sandbox, and proposes to a loopback GitHub. A tile moved in
 * the UI is not put back: one pull request with the x line changed and nothing else; once merged
 * (and synced), the daemon writes nothing and closes its proposal. A dashboard made in the UI with
 * the opt-in tag is proposed as a new manifest (one without it is not), and adopted once merged. A
 * threshold changed in the UI
 * and then in Git is applied by neither side: the proposal names the field with both values.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServicePort } from '../../src/core/ports.js';
import { collectionOf } from '../../src/kinds/registry.js';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { assertBuilt } from '../support/cli.js';
import { startDaemon, type RunningDaemon } from '../support/daemon.js';
import { fakeForge, type FakeForge } from '../support/fake-forge.js';
import { git, makeRemote, type Remote } from '../support/git-repos.js';
import { until } from '../support/wait.js';
import { sandboxPort } from '../support/world.js';

const TOKEN = 'ghp_daemonProposeToken0123456789abcdef';
const BRANCH = 'obsync/propose/t';

const DASHBOARD = `apiVersion: obsync/v1
kind: Dashboard
metadata:
  name: checkout
spec:
  name: Checkout
  tiles:
    - key: p99
      name: p99 latency   # the one tile
      x: 0
      y: 0
      w: 6
      h: 4
      config: {displayType: line, source: Traces, select: [{aggFn: avg, valueExpression: Duration}]}
`;

const ALERT = `apiVersion: obsync/v1
kind: Alert
metadata:
  name: slow
spec:
  name: Checkout slow
  dashboard: checkout
  tile: p99
  interval: 5m
  threshold: 500
  thresholdType: above
  channel: {type: webhook, webhook: hook}
`;

const HOOK = `apiVersion: obsync/v1
kind: Webhook
metadata:
  name: hook
spec:
  name: hook
  service: generic
  url: https://hooks.example.com/checkout
`;

let sandbox: SandboxHandle;
let port: ServicePort;
let forge: FakeForge;
let remote: Remote;
let project: string;
let someone: string;
let daemon: RunningDaemon;

function config(): string {
  return `apiVersion: obsync/v1
kind: Config
manifests: [manifests]
state: {backend: file, path: .obsync/state}
defaults:
  drift: propose
  writeBack:
    repository: ${remote.url}
    branch: main
    author: {name: obsync bot, email: bot@example.com}
    forge: {type: github, apiUrl: "${forge.apiUrl}", project: acme/obs, token: "\${env:GH_TOKEN}"}
    include: tag=gitops
targets:
  - name: t
    variant: self-hosted
    baseUrl: ${sandbox.url}
    credentials: {apiKey: ${sandbox.credentials.apiKey}}
    rateLimit: {requests: 1000, perSeconds: 1}
`;
}

beforeAll(async () => {
  assertBuilt();
  sandbox = await startSandbox({ port: 0, rateLimit: 'off' });
  port = sandboxPort(sandbox, 'self-hosted');
  forge = await fakeForge('github', { token: TOKEN, project: 'acme/obs' });
  remote = makeRemote({ 'README.md': 'observability\n' });
  someone = remote.clone('someone');
  remote.commitFiles(
    someone,
    {
      'obsync.yaml': config(),
      '.gitignore': '.obsync/\n',
      'manifests/checkout.yaml': DASHBOARD,
      'manifests/alert.yaml': ALERT,
      'manifests/hook.yaml': HOOK,
    },
    'manifests',
  );
  project = remote.clone('project');
});

afterAll(async () => {
  await daemon?.stop();
  await port?.close();
  await forge?.close();
  await sandbox?.close();
  remote?.dispose();
});

/** Runs the daemon once more (SIGHUP) and waits for that run to finish. */
async function runOnce(): Promise<Record<string, unknown>> {
  const before = daemon.events('run-finished').length;
  daemon.child.kill('SIGHUP');
  return until('the run to finish', () => daemon.events('run-finished')[before], { timeoutMs: 60_000, context: daemon.output });
}

/** What git-sync does: the daemon's manifests follow main. */
function sync(): void {
  git(project, 'pull', '--quiet', '--ff-only', 'origin', 'main');
}

async function liveDashboard(name: string) {
  const found = (await collectionOf(port, 'Dashboard').list()).find((o) => o.name === name);
  if (!found) throw new Error(`no dashboard ${name}`);
  return found;
}

async function liveAlert(name: string) {
  const found = (await collectionOf(port, 'Alert').list()).find((o) => o.name === name);
  if (!found) throw new Error(`no alert ${name}`);
  return found;
}

async function status(): Promise<{ proposal?: { url?: string; objects: string[]; conflicts: number } | null; state: string }> {
  const doc = (await (await fetch(`${daemon.url}/api/status`)).json()) as { targets: { proposal?: null; state: string }[] };
  const [target] = doc.targets;
  if (!target) throw new Error('no target in /api/status');
  return target;
}

describe('obsync run with drift: propose', () => {
  it('proposes a UI edit instead of reverting it, closes the proposal once merged, and decides no conflict', {
    timeout: 180_000,
  }, async () => {
    daemon = await startDaemon(project, ['--no-watch', '--schedule', '0 0 1 1 *'], { GH_TOKEN: TOKEN });
    const first = await until('the first run', () => daemon.events('run-finished')[0], { timeoutMs: 60_000, context: daemon.output });
    expect(first.result, daemon.output()).toBe('success');
    expect(forge.stored).toEqual([]);

    // A tile moved in the UI: proposed, not put back.
    const checkout = await liveDashboard('Checkout');
    await collectionOf(port, 'Dashboard').update(checkout.id, { ...checkout, tiles: checkout.tiles.map((t) => ({ ...t, x: 6 })) } as never);
    const proposing = await runOnce();
    expect(proposing.result, daemon.output()).toBe('success');
    expect(daemon.events('healed')).toEqual([]);
    expect((await liveDashboard('Checkout')).tiles[0]?.x).toBe(6);
    const [opened] = daemon.events('proposal');
    expect(opened).toMatchObject({ outcome: 'opened', branch: BRANCH, objects: ['Dashboard/checkout'] });
    expect(remote.show(BRANCH, 'manifests/checkout.yaml')).toBe(DASHBOARD.replace('      x: 0\n', '      x: 6\n'));
    expect(remote.show(BRANCH, 'manifests/alert.yaml')).toBe(ALERT);
    const [pr] = forge.stored;
    expect(pr).toMatchObject({ head: BRANCH, base: 'main', open: true });
    expect(pr?.body).toContain('Dashboard/checkout');
    expect(forge.violations).toEqual([]);
    expect(await status()).toMatchObject({
      state: 'drifted',
      proposal: { url: opened?.url, objects: ['Dashboard/checkout'], conflicts: 0 },
    });
    const page = await (await fetch(`${daemon.url}/`)).text();
    expect(page).toContain('apply; drift is proposed to Git, not put back (drift: propose)');
    expect(page).toContain(`<a href="${String(opened?.url)}" rel="noreferrer">`);
    expect(page).toContain('<code>Dashboard/checkout</code> (not put back while open)');

    // Merged by a person, synced: the daemon writes nothing and closes its proposal.
    git(someone, 'fetch', '--quiet', 'origin');
    git(someone, 'merge', '--quiet', '--ff-only', `origin/${BRANCH}`);
    git(someone, 'push', '--quiet', 'origin', 'HEAD:refs/heads/main');
    sync();
    const merged = await runOnce();
    expect(merged.result, daemon.output()).toBe('success');
    expect(merged.counts).toMatchObject({ create: 0, update: 0, delete: 0 });
    expect(daemon.events('proposal').at(-1)).toMatchObject({ outcome: 'closed' });
    expect(forge.stored[0]?.open).toBe(false);
    expect(remote.tip(BRANCH)).toBeUndefined();
    expect(await status()).toMatchObject({ state: 'in-sync', proposal: null });

    // A dashboard made in the UI with the opt-in tag: proposed as a new manifest; merged, it is adopted.
    await collectionOf(port, 'Dashboard').create({ name: 'Made in the UI', tags: ['gitops'], tiles: [] });
    await collectionOf(port, 'Dashboard').create({ name: 'Not for Git', tags: ['scratch'], tiles: [] });
    await runOnce();
    const made = daemon.events('proposal').at(-1);
    expect(made).toMatchObject({ outcome: 'opened', objects: ['Dashboard/made-in-the-ui'] });
    expect(remote.show(BRANCH, 'manifests/dashboard/made-in-the-ui.yaml')).toContain('name: Made in the UI');
    expect(forge.stored.find((p) => p.open)?.body).toContain('Dashboard/made-in-the-ui in manifests/dashboard/made-in-the-ui.yaml');
    git(someone, 'fetch', '--quiet', 'origin');
    git(someone, 'merge', '--quiet', '--ff-only', `origin/${BRANCH}`);
    git(someone, 'push', '--quiet', 'origin', 'HEAD:refs/heads/main');
    sync();
    const adopted = await runOnce();
    expect(adopted.counts, daemon.output()).toMatchObject({ adopted: 1, create: 0 });
    expect(daemon.events('proposal').at(-1)).toMatchObject({ outcome: 'closed' });

    // The threshold changed in the UI (proposed), then in Git: neither side is applied; the proposal names the field.
    const alert = await liveAlert('Checkout slow');
    await collectionOf(port, 'Alert').update(alert.id, { ...alert, threshold: 700 } as never);
    await runOnce();
    expect(daemon.events('proposal').at(-1)).toMatchObject({ outcome: 'opened', objects: ['Alert/slow'] });
    git(someone, 'pull', '--quiet', '--ff-only', 'origin', 'main');
    writeFileSync(join(someone, 'manifests/alert.yaml'), ALERT.replace('threshold: 500', 'threshold: 300'));
    git(someone, 'commit', '--quiet', '-am', 'lower the threshold');
    git(someone, 'push', '--quiet', 'origin', 'HEAD:refs/heads/main');
    sync();
    const conflicted = await runOnce();
    expect(conflicted.result, daemon.output()).toBe('success');
    expect((await liveAlert('Checkout slow')).threshold).toBe(700);
    expect(daemon.events('proposal').at(-1)).toMatchObject({ outcome: 'conflicted', objects: ['Alert/slow'] });
    const open = forge.stored.find((p) => p.open);
    expect(open?.body).toContain('manifests/alert.yaml:1 threshold (Alert/slow): Git: 300, service: 700');
    expect((await status()).proposal?.conflicts).toBeGreaterThan(0);

    // The token is nowhere: not in the daemon's output, a commit, or a request body.
    expect(daemon.output()).not.toContain(TOKEN);
    expect(git(remote.bare, 'log', '--all', '--format=%B%an%ae')).not.toContain(TOKEN);
    expect(JSON.stringify(forge.requests.map((r) => r.body))).not.toContain(TOKEN);
    expect(readFileSync(join(project, 'manifests/alert.yaml'), 'utf8')).toContain('threshold: 300');
  });
});
