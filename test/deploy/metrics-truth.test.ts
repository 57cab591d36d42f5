/**
 * `obsync_resources` tells the state after the run's apply: the objects the first run created are
 * in sync at once, not drifted until the next run (what the plan before the apply saw). And
 * `obsync_drift_total` counts drift events only: a first apply creates, it finds no drift.
 */
import type { ChildProcess } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { assertBuilt, spawnCli } from '../support/cli.js';
import { sandboxDashboards, until, untilListening } from '../support/wait.js';

let sandbox: SandboxHandle;
let dir: string;
let child: ChildProcess | undefined;
let output = '';

beforeEach(async () => {
  assertBuilt();
  sandbox = await startSandbox({ port: 0, rateLimit: 'off' });
  dir = mkdtempSync(join(tmpdir(), 'obsync-metrics-'));
  cpSync('config-examples/team/dashboards', join(dir, 'manifests'), { recursive: true });
  writeFileSync(
    join(dir, 'obsync.yaml'),
    `apiVersion: obsync/v1\nkind: Config\nmanifests: [manifests]\ntargets:\n  - {name: sb, variant: self-hosted, baseUrl: ` +
      `"${sandbox.url}", rateLimit: {requests: 1000, perSeconds: 1}}\n`,
  );
});

afterEach(async () => {
  if (child && child.exitCode === null) {
    child.kill('SIGKILL');
    await new Promise((r) => child?.once('exit', r));
  }
  await sandbox.close();
  rmSync(dir, { recursive: true, force: true });
});

it('reports the objects the first run created as in sync after that run, and no drift', async () => {
  child = spawnCli(['run', '--listen', '127.0.0.1:0', '--no-watch'], { cwd: dir, env: { OBSYNC_API_KEY: sandbox.credentials.apiKey } });
  output = '';
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  await until('the first run', () => (/"msg":"run finished"/.test(output) ? true : undefined), { context: () => output });
  expect(output).toMatch(/"result":"success"/);
  const created = (await sandboxDashboards(sandbox)).length;
  expect(created).toBeGreaterThan(0);
  const url = await untilListening(() => output);
  const metrics = await (await fetch(`${url}/metrics`)).text();
  expect(metrics).toMatch(new RegExp(`obsync_resources\\{target="sb",kind="Dashboard",state="in_sync"\\} ${created}\\n`));
  expect(metrics).toMatch(/obsync_resources\{target="sb",kind="Dashboard",state="drifted"\} 0\n/);
  // Creating what the manifests declare is no drift: no drift event, and the counter agrees.
  expect(output).not.toMatch(/"event":"drift"/);
  expect(metrics).not.toMatch(/^obsync_drift_total\{/m);
});
