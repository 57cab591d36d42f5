/**
 * Issue 13, item 11: Ctrl-C during apply exited 130 in silence. Now the first Ctrl-C says it is
 * stopping, lets the request under way finish, starts nothing new, prints what was done and
 * skipped, releases the lock and exits 130; a second one exits at once, and the next run
 * resolves what was abandoned. Before any change, Ctrl-C stops at once: nothing applied.
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { assertBuilt, runCli, spawnCli } from '../support/cli.js';
import { startProxy, type Proxy } from '../support/proxy.js';
import { sandboxDashboards, until } from '../support/wait.js';

let sandbox: SandboxHandle;
let proxy: Proxy;
let dir: string;
let child: ChildProcess | undefined;
let output = '';
/** Requests of this method are held this long before they reach the sandbox. */
let hold: { method: string; ms: number } | null = null;
/** The first request of this method is answered 429 with this Retry-After. */
let throttleFirst: { method: string; seconds: number } | null = null;

const NAMES = ['alpha', 'beta', 'gamma', 'delta'];

beforeAll(() => assertBuilt());

beforeEach(async () => {
  sandbox = await startSandbox({ port: 0, rateLimit: 'off' });
  hold = null;
  throttleFirst = null;
  proxy = await startProxy(sandbox.url, async (req) => {
    if (throttleFirst && req.method === throttleFirst.method) {
      const seconds = throttleFirst.seconds;
      throttleFirst = null;
      return { status: 429, headers: { 'retry-after': String(seconds) }, body: '{"message":"Too many requests"}' };
    }
    if (hold && req.method === hold.method) await new Promise((r) => setTimeout(r, hold?.ms));
    return undefined;
  });
  dir = mkdtempSync(join(tmpdir(), 'obsync-hostile-sigint-'));
  mkdirSync(join(dir, 'manifests'));
  for (const name of NAMES)
    writeFileSync(
      join(dir, `manifests/${name}.yaml`),
      `apiVersion: obsync/v1\nkind: Dashboard\nmetadata: {name: ${name}}\nspec: {name: ${name}, tiles: []}\n`,
    );
  writeFileSync(
    join(dir, 'obsync.yaml'),
    `apiVersion: obsync/v1\nkind: Config\nmanifests: [manifests]\ndefaults: {concurrency: 1}\ntargets:\n  - {name: s, variant: ` +
      `self-hosted, baseUrl: "${proxy.url}", credentials: {apiKey: ${sandbox.credentials.apiKey}}, rateLimit: {requests: 1000, ` +
      `perSeconds: 1}, retries: 0}\n`,
  );
});

afterEach(async () => {
  if (child && child.exitCode === null) {
    child.kill('SIGKILL');
    await new Promise((r) => child?.once('exit', r));
  }
  child = undefined;
  await proxy.close();
  await sandbox.close();
  rmSync(dir, { recursive: true, force: true });
});

function startApply(): Promise<number | null> {
  output = '';
  child = spawnCli(['apply', '--auto-approve'], { cwd: dir });
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const c = child;
  return new Promise((resolve) => c.once('exit', (code) => resolve(code)));
}

const posts = () => proxy.arrivals.filter((r) => r.method === 'POST').length;
const lockFiles = () =>
  existsSync(join(dir, '.obsync/state')) ? readdirSync(join(dir, '.obsync/state')).filter((f) => f.endsWith('.lock')) : [];
const names = async () => (await sandboxDashboards(sandbox)).map((d) => d.name).sort();
const wait = <T>(what: string, probe: () => Promise<T | undefined> | T | undefined) => until(what, probe, { context: () => output });

describe('Ctrl-C during apply', () => {
  it('first: says it is stopping, finishes the request under way, starts nothing new, reports, releases the lock, exits 130', async () => {
    hold = { method: 'POST', ms: 1_500 };
    const exited = startApply();
    await wait('the first create to reach the server', () => (posts() === 1 ? true : undefined));
    child?.kill('SIGINT');
    expect(await exited).toBe(130);
    expect(output).toContain('Stopping: waiting for 1 in-flight request(s) to finish (press Ctrl-C again to abandon them)…');
    expect(output).toMatch(/Dashboard\/alpha: created \[id=/);
    expect(output).toContain(
      'Interrupted: 1 change(s) applied, 0 failed, 3 not started; the inventory lock is released. Run apply again to finish.',
    );
    // The counts say it was interrupted, not that it failed (issue 40.5).
    expect(output).toContain('Apply interrupted: 1 created, 0 updated, 0 deleted, 0 failed, 0 refused, 0 skipped, 3 not started.');
    expect(output).not.toContain('finished with errors');
    expect(posts()).toBe(1);
    expect(await names()).toEqual(['alpha']);
    expect(lockFiles()).toEqual([]);

    hold = null;
    const again = await runCli(['apply', '--auto-approve'], { cwd: dir });
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('3 created');
    expect(await names()).toEqual([...NAMES].sort());
  });

  it('first, while the step under way waits out a 429: the wait and its retry still finish', async () => {
    throttleFirst = { method: 'POST', seconds: 2 };
    const exited = startApply();
    await wait('the throttled create', () => (posts() === 1 ? true : undefined));
    child?.kill('SIGINT');
    expect(await exited).toBe(130);
    expect(output).toContain('Stopping: waiting for 1 in-flight request(s) to finish');
    expect(output).toContain('Interrupted: 1 change(s) applied, 0 failed, 3 not started');
    expect(await names()).toEqual(['alpha']);
  });

  it('second: abandons the request under way and exits at once; the next run resolves it without a duplicate', async () => {
    hold = { method: 'POST', ms: 4_000 };
    const exited = startApply();
    await wait('the first create to reach the server', () => (posts() === 1 ? true : undefined));
    child?.kill('SIGINT');
    await wait('the stopping notice', () => (output.includes('Stopping: waiting for 1 in-flight request(s)') ? true : undefined));
    child?.kill('SIGINT');
    expect(await exited).toBe(130);
    expect(output).toContain('Abandoned 1 in-flight request(s): they may or may not have been applied; the next run resolves them.');
    // The abandoned create still lands on the server after the client has gone.
    await wait('the abandoned create to land', async () => ((await names()).includes('alpha') ? true : undefined));

    hold = null;
    const again = await runCli(['apply', '--auto-approve'], { cwd: dir });
    expect(again.code).toBe(0);
    expect(await names()).toEqual([...NAMES].sort());
  });

  it('before any change (while planning): stops at once, applies nothing, releases the lock', async () => {
    hold = { method: 'GET', ms: 3_000 };
    const exited = startApply();
    await wait('the plan to start reading', () => (proxy.arrivals.length > 0 ? true : undefined));
    child?.kill('SIGINT');
    expect(await exited).toBe(130);
    expect(output).toContain('Interrupted: nothing was applied.');
    // The reads were cut short: the lists queued behind the first never reached the server.
    expect(proxy.arrivals).toHaveLength(1);
    expect(posts()).toBe(0);
    expect(lockFiles()).toEqual([]);
  });
});
