/**
 * Issue 27: `obsync run` applies a declared rename like the CLI. The refactor lands as a file
 * change; the daemon moves the dashboard (with its renamed tile key) and the renamed alert — one
 * `moved` event each, nothing created or deleted, the ids kept — and a later run moves nothing.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeAll, expect, it } from 'vitest';
import type { ServicePort } from '../../src/core/ports.js';
import { collectionOf } from '../../src/kinds/registry.js';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { assertBuilt, spawnCli } from '../support/cli.js';
import { afterRefactor, beforeRefactor } from '../support/renames.js';
import { until as waitUntil } from '../support/wait.js';
import { sandboxPort } from '../support/world.js';

let sandbox: SandboxHandle | undefined;
let port: ServicePort | undefined;
let dir: string | undefined;
let child: ChildProcess | undefined;
let output = '';

const until = <T>(what: string, probe: () => Promise<T | undefined> | T | undefined) =>
  waitUntil(what, probe, { timeoutMs: 25_000, context: () => output.slice(-4000) });

beforeAll(() => assertBuilt());

afterEach(async () => {
  if (child && child.exitCode === null) {
    child.kill('SIGKILL');
    await new Promise((r) => child?.once('exit', r));
  }
  await port?.close();
  await sandbox?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The manifests become these files, as a checkout would leave them (the watched folder itself stays). */
function manifests(root: string, files: Record<string, string>): void {
  mkdirSync(join(root, 'manifests'), { recursive: true });
  for (const entry of readdirSync(join(root, 'manifests'))) rmSync(join(root, 'manifests', entry), { recursive: true, force: true });
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, 'manifests', name)), { recursive: true });
    writeFileSync(join(root, 'manifests', name), text);
  }
}

interface LogLine {
  msg?: string;
  event?: string;
  address?: string;
  from?: string;
  parts?: { from: string; to: string }[];
  id?: string;
  action?: string;
}

function lines(): LogLine[] {
  return output
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as LogLine);
}

const finishedRuns = () => lines().filter((l) => l.msg === 'run finished').length;

it('applies a declared rename like the CLI: one moved event per object, nothing created or deleted, the ids kept', async () => {
  sandbox = await startSandbox({ port: 0, rateLimit: 'off' });
  port = sandboxPort(sandbox, 'self-hosted');
  const root = mkdtempSync(join(tmpdir(), 'obsync-daemon-renames-'));
  dir = root;
  writeFileSync(
    join(root, 'obsync.yaml'),
    `apiVersion: obsync/v1\nkind: Config\nmanifests: [manifests]\ntargets:\n  - name: sb\n    variant: self-hosted\n    baseUrl: ` +
      `${sandbox.url}\n    credentials: {apiKey: ${sandbox.credentials.apiKey}}\n    rateLimit: {requests: 1000, perSeconds: 1}\n`,
  );
  manifests(root, beforeRefactor());
  child = spawnCli(['run', '--listen', '127.0.0.1:0', '--debounce', '300', '--schedule', '0 0 1 1 *'], { cwd: root });
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const live = async () => {
    const dashboards = await collectionOf(port as ServicePort, 'Dashboard').list();
    const alerts = await collectionOf(port as ServicePort, 'Alert').list();
    return {
      dashboards: dashboards.map((d) => [d.id, d.tiles.map((t) => t.id)]),
      alerts: alerts.map((a) => [a.id, a.dashboardId, a.tileId]).sort(),
    };
  };
  await until('the start-up run', () => (finishedRuns() === 1 ? true : undefined));
  const before = await live();
  expect(before.alerts).toHaveLength(2);

  const startup = lines().length;
  manifests(root, afterRefactor(true));
  await until('two moved events', () => (lines().filter((l) => l.event === 'moved').length === 2 ? true : undefined));
  await until('the run to finish', () => (finishedRuns() >= 2 ? true : undefined));
  const moved = lines().filter((l) => l.event === 'moved');
  const byAddress = (a: { address?: string }, b: { address?: string }) => ((a.address ?? '') < (b.address ?? '') ? -1 : 1);
  expect(moved.map((l) => ({ address: l.address, from: l.from, parts: l.parts, msg: l.msg })).sort(byAddress)).toEqual([
    { address: 'Alert/checkout-latency-high', from: 'Alert/checkout-p99', parts: undefined, msg: 'object moved' },
    { address: 'Dashboard/checkout-service', from: 'Dashboard/checkout', parts: [{ from: 'p99', to: 'latency' }], msg: 'object moved' },
  ]);
  const since = lines().slice(startup);
  // Writes are events too: the one update of the renamed dashboard, no create, no delete.
  const writes = new Set(['created', 'updated', 'deleted']);
  expect(since.filter((l) => writes.has(l.event ?? '')).map((l) => `${l.event ?? ''} ${l.address ?? ''}`)).toEqual([
    'updated Dashboard/checkout-service',
  ]);
  expect(await live()).toEqual(before);

  // A later run (any file change) has nothing left to move.
  const runs = finishedRuns();
  writeFileSync(join(root, 'manifests', 'notes.yaml'), '# a comment only\n');
  await until('another run', () => (finishedRuns() > runs ? true : undefined));
  expect(lines().filter((l) => l.event === 'moved')).toHaveLength(2);
  expect(await live()).toEqual(before);
});
