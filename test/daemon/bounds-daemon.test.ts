/**
 * `obsync run` under issue 24 items 7 and 10: SIGHUP reconciles now instead of killing the
 * daemon; a manifest that cannot be read (a broken link) makes the daemon keep its last good state
 * and neither apply nor prune; a steady stream of file changes cannot starve the watch trigger.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { assertBuilt, spawnCli } from '../support/cli.js';
import { httpStatus, sandboxDashboards, until as waitUntil, untilListening } from '../support/wait.js';

let sandbox: SandboxHandle;
let dir: string;
let child: ChildProcess | undefined;
let output = '';
let exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

const until = <T>(what: string, probe: () => Promise<T | undefined> | T | undefined) =>
  waitUntil(what, probe, { context: () => output.slice(-4000) });

const dashboard = (name: string, display = name) =>
  `apiVersion: obsync/v1\nkind: Dashboard\nmetadata: {name: ${name}}\nspec:\n  name: ${display}\n  tiles: []\n`;
const runs = () => (output.match(/"msg":"run finished"/g) ?? []).length;
const names = async () => (await sandboxDashboards(sandbox)).map((d) => d.name);

/** Starts `obsync run`; resolves with its health URL (it listens on a port the system picks). */
async function start(extra: string[]): Promise<string> {
  child = spawnCli(['run', '--listen', '127.0.0.1:0', '--schedule', '0 0 1 1 *', ...extra], { cwd: dir });
  output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const proc = child;
  exited = new Promise((r) => proc.once('exit', (code, signal) => r({ code, signal })));
  return untilListening(() => output, 'the health address');
}

beforeAll(() => assertBuilt());

beforeEach(async () => {
  sandbox = await startSandbox({ port: 0, rateLimit: 'off' });
  dir = mkdtempSync(join(tmpdir(), 'obsync-daemon-bounds-'));
  mkdirSync(join(dir, 'manifests'));
  writeFileSync(join(dir, 'manifests/a.yaml'), dashboard('alpha'));
  writeFileSync(join(dir, 'manifests/b.yaml'), dashboard('beta'));
  writeFileSync(
    join(dir, 'obsync.yaml'),
    `apiVersion: obsync/v1\nkind: Config\nmanifests: [manifests]\ntargets:\n  - {name: sb, variant: self-hosted, baseUrl: ` +
      `"${sandbox.url}", credentials: {apiKey: ${sandbox.credentials.apiKey}}, rateLimit: {requests: 1000, perSeconds: 1}, retries: ` +
      `0}\n`,
  );
});

afterEach(async () => {
  if (child && child.exitCode === null && child.signalCode === null) {
    child.kill('SIGKILL');
    await exited;
  }
  child = undefined;
  await sandbox.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('obsync run and SIGHUP', () => {
  it('reconciles every target now (manifests read afresh) and keeps running', async () => {
    await start(['--no-watch']);
    await until('the start-up run', () => (runs() >= 1 ? true : undefined));
    writeFileSync(join(dir, 'manifests/c.yaml'), dashboard('gamma'));
    child?.kill('SIGHUP');
    await until('the run SIGHUP asked for', async () => ((await names()).includes('gamma') ? true : undefined));
    expect(output).toMatch(/"signal":"SIGHUP","targets":\["sb"\],"msg":"reconcile requested"/);
    expect(child?.exitCode).toBeNull();
    child?.kill('SIGTERM');
    expect(await exited).toEqual({ code: 0, signal: null });
  });
});

describe('obsync run and a manifest that cannot be read', () => {
  it('keeps the last good state: a broken link neither applies nor prunes, and readiness says why', async () => {
    const url = await start(['--no-watch', '--prune']);
    await until('the start-up run', () => (runs() >= 1 ? true : undefined));
    expect((await names()).sort()).toEqual(['alpha', 'beta']);
    rmSync(join(dir, 'manifests/b.yaml'));
    symlinkSync('..data/b.yaml', join(dir, 'manifests/b.yaml'));
    writeFileSync(join(dir, 'manifests/a.yaml'), dashboard('alpha', 'Alpha renamed'));
    const before = runs();
    child?.kill('SIGHUP');
    await until('the run after the link broke', () => (runs() > before ? true : undefined));
    expect(output).toMatch(/"event":"manifests-invalid".*"code":"broken-link".*"msg":"manifests invalid"/);
    expect(await httpStatus(`${url}/readyz`)).toBe(503);
    // /readyz needs no token: a code, never the reason's text (that is on the token-guarded /api/status).
    expect(JSON.parse(await (await fetch(`${url}/readyz`)).text())).toMatchObject({
      targets: { sb: { code: 'failing', error: 'manifests-invalid' } },
    });
    // Neither the edit of a.yaml is applied nor beta pruned.
    expect((await names()).sort()).toEqual(['alpha', 'beta']);
  });
});

describe('obsync run and a stream of file changes', () => {
  it('runs while the changes keep coming, at the latest ten debounces after the first', async () => {
    await start(['--debounce', '300']);
    await until('the start-up run', () => (runs() >= 1 ? true : undefined));
    let n = 0;
    // A tool rewriting a manifest more often than the debounce, for as long as it takes.
    const writer = setInterval(() => writeFileSync(join(dir, 'manifests/a.yaml'), dashboard('alpha', `Alpha ${++n}`)), 100);
    try {
      await until('a run while the writes go on', async () =>
        (await names()).some((name) => /^Alpha \d+$/.test(name)) ? true : undefined,
      );
    } finally {
      clearInterval(writer);
    }
    expect(output).toMatch(/"msg":"manifests changed"/);
  });
});
