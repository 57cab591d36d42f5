/**
 * Issue 13, item 12: after the manifest root was replaced (`mv`, git-sync's link swap) the daemon
 * never saw another change and stayed not-ready until the next cron tick. The watcher now
 * follows the root: a replaced, re-linked or late-appearing root is watched again at once.
 * The schedule here never fires during a test, so only the watcher can make these runs happen.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, it } from 'vitest';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { assertBuilt, spawnCli } from '../support/cli.js';
import { httpStatus, sandboxDashboards, until as waitUntil, untilListening } from '../support/wait.js';

let sandbox: SandboxHandle;
let dir: string;
let child: ChildProcess | undefined;
let output = '';

const until = <T>(what: string, probe: () => Promise<T | undefined> | T | undefined) =>
  waitUntil(what, probe, { context: () => output.slice(-4000) });
const manifest = (tags: string) =>
  `apiVersion: obsync/v1\nkind: Dashboard\nmetadata: {name: checkout}\nspec: {name: Checkout, tags: [${tags}], tiles: []}\n`;

function tree(path: string, tags: string): void {
  mkdirSync(path, { recursive: true });
  writeFileSync(join(path, 'checkout.yaml'), manifest(tags));
}

/** Starts the daemon on a port it picks itself, and answers the address it logged. */
async function start(): Promise<string> {
  output = '';
  child = spawnCli(['run', '--listen', '127.0.0.1:0', '--debounce', '200', '--schedule', '0 0 1 1 *'], { cwd: dir });
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  return untilListening(() => output);
}

const tagsNow = async () => (await sandboxDashboards(sandbox)).find((d) => d.name === 'Checkout')?.tags.join(',');
const applied = (tags: string) => until(`tags [${tags}] applied`, async () => ((await tagsNow()) === tags ? true : undefined));
const ready = (url: string) => until('ready', async () => ((await httpStatus(`${url}/readyz`)) === 200 ? true : undefined));

beforeAll(() => assertBuilt());

beforeEach(async () => {
  sandbox = await startSandbox({ port: 0, rateLimit: 'off' });
  dir = mkdtempSync(join(tmpdir(), 'obsync-hostile-watch-'));
  const c = sandbox.credentials;
  writeFileSync(
    join(dir, 'obsync.yaml'),
    `apiVersion: obsync/v1\nkind: Config\nmanifests: [root]\ntargets:\n  - {name: sb, variant: self-hosted, baseUrl: "${sandbox.url}", ` +
      `credentials: {apiKey: ${c.apiKey}}, rateLimit: {requests: 1000, perSeconds: 1}, retries: 0}\n`,
  );
});

afterEach(async () => {
  if (child && child.exitCode === null) {
    child.kill('SIGKILL');
    await new Promise((r) => child?.once('exit', r));
  }
  child = undefined;
  await sandbox.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("the daemon's watcher", () => {
  it('follows a root replaced by mv, and sees edits in the new tree', async () => {
    tree(join(dir, 'root'), 'v1');
    const url = await start();
    await applied('v1');
    await ready(url);
    tree(join(dir, 'new'), 'v2');
    renameSync(join(dir, 'root'), join(dir, 'root.old'));
    renameSync(join(dir, 'new'), join(dir, 'root'));
    await applied('v2');
    await ready(url);
    const file = join(dir, 'root/checkout.yaml');
    writeFileSync(file, readFileSync(file, 'utf8').replace('v2', 'v3'));
    await applied('v3');
  });

  it("follows git-sync's atomic swap of the root link", async () => {
    tree(join(dir, '.git/worktrees/aaa'), 'v1');
    symlinkSync(join(dir, '.git/worktrees/aaa'), join(dir, 'root'));
    const url = await start();
    await applied('v1');
    tree(join(dir, '.git/worktrees/bbb'), 'v2');
    symlinkSync(join(dir, '.git/worktrees/bbb'), join(dir, 'root.tmp'));
    renameSync(join(dir, 'root.tmp'), join(dir, 'root'));
    await applied('v2');
    await ready(url);
    writeFileSync(join(dir, '.git/worktrees/bbb/checkout.yaml'), manifest('v3'));
    await applied('v3');
  });

  it('sees a ConfigMap update (kubelet swaps the ..data link inside the mounted root)', async () => {
    const mount = join(dir, 'root');
    tree(join(mount, '..2024_01_01_00_00_00.1'), 'v1');
    symlinkSync('..2024_01_01_00_00_00.1', join(mount, '..data'));
    symlinkSync('..data/checkout.yaml', join(mount, 'checkout.yaml'));
    const url = await start();
    await applied('v1');
    await ready(url);
    tree(join(mount, '..2024_01_01_00_01_00.2'), 'v2');
    symlinkSync('..2024_01_01_00_01_00.2', join(mount, '..data_tmp'));
    renameSync(join(mount, '..data_tmp'), join(mount, '..data'));
    rmSync(join(mount, '..2024_01_01_00_00_00.1'), { recursive: true });
    await applied('v2');
  });

  it('watches a root that appears after start-up, and turns ready', async () => {
    const url = await start();
    await until('the first (invalid) run', () => (/"msg":"run finished"/.test(output) ? true : undefined));
    tree(join(dir, 'root'), 'v1');
    await applied('v1');
    await ready(url);
  });
});
