/**
 * `obsync run` as a child process against the sandbox: start-up run, file edits applied, a burst
 * of writes giving one run, report-only mode, last good state on broken manifests, API failure and
 * recovery, probes and metrics, SIGTERM within the deadline.
 */
import type { ChildProcess } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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

const until = <T>(what: string, probe: () => Promise<T | undefined> | T | undefined) =>
  waitUntil(what, probe, { context: () => output.slice(-4000) });

function config(): string {
  const c = sandbox.credentials;
  return `apiVersion: obsync/v1
kind: Config
manifests: [manifests]
targets:
  - name: sb
    variant: self-hosted
    baseUrl: ${sandbox.url}
    credentials: {apiKey: ${c.apiKey}}
    rateLimit: {requests: 1000, perSeconds: 1}
    retries: 0
    timeoutSeconds: 2
`;
}

/** Starts the daemon on a port it picks itself, and answers the address it logged. */
async function start(extra: string[] = []): Promise<{ url: string }> {
  child = spawnCli(['run', '--listen', '127.0.0.1:0', '--debounce', '300', '--schedule', '*/5 * * * *', ...extra], { cwd: dir });
  output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  return { url: await untilListening(() => output) };
}

const status = (url: string, path: string) => httpStatus(`${url}${path}`);
const dashboards = () => sandboxDashboards(sandbox);

const runs = () => (output.match(/"msg":"run finished"/g) ?? []).length;

beforeAll(() => assertBuilt());

beforeEach(async () => {
  sandbox = await startSandbox({ port: 0, rateLimit: 'off' });
  dir = mkdtempSync(join(tmpdir(), 'obsync-daemon-'));
  cpSync('config-examples/team/dashboards', join(dir, 'manifests'), { recursive: true });
  writeFileSync(join(dir, 'obsync.yaml'), config());
});

afterEach(async () => {
  if (child && child.exitCode === null) {
    child.kill('SIGKILL');
    await new Promise((r) => child?.once('exit', r));
  }
  await sandbox.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('obsync run', () => {
  it('reconciles at start-up, applies a file edit, collapses a burst into one run, and stops on SIGTERM', async () => {
    const { url } = await start();
    await until('the start-up run', async () => ((await dashboards()).some((d) => d.name === 'Checkout service') ? true : undefined));
    await until('readiness', async () => ((await status(url, '/readyz')) === 200 ? true : undefined));
    expect(await status(url, '/livez')).toBe(200);
    // The start-up run waited for the election (file state: a lease) and still says it was the start-up run.
    const told = (await (await fetch(`${url}/api/status`)).json()) as { targets: { lastRun: { trigger: string[] } | null }[] };
    expect(told.targets[0]?.lastRun?.trigger).toContain('startup');
    const metrics = await (await fetch(`${url}/metrics`)).text();
    expect(metrics).toMatch(/obsync_reconcile_total\{target="sb",result="success"\} 1/);
    expect(metrics).toMatch(/process_resident_memory_bytes/);
    // Every request of the start-up run, by method and status: the lists it read and the dashboard it created.
    expect(metrics).toMatch(/obsync_api_requests_total\{target="sb",method="GET",code="200"\} [1-9]/);
    expect(metrics).toMatch(/obsync_api_requests_total\{target="sb",method="POST",code="200"\} 1\n/);

    const file = join(dir, 'manifests/checkout.yaml');
    const before = runs();
    for (let i = 0; i < 10; i++)
      writeFileSync(file, readFileSync(file, 'utf8').replace(/tags: \[[^\]]*\]/, `tags: [payments, burst-${i}]`));
    await until('the edit applied', async () =>
      (await dashboards()).find((d) => d.name === 'Checkout service')?.tags.includes('burst-9') ? true : undefined,
    );
    await new Promise((r) => setTimeout(r, 800));
    expect(runs() - before).toBe(1);

    const stopped = Date.now();
    child?.kill('SIGTERM');
    const code = await new Promise<number | null>((r) => child?.once('exit', (c) => r(c)));
    expect(code).toBe(0);
    expect(Date.now() - stopped).toBeLessThan(10_000);
  });

  it('only reports drift in plan mode', async () => {
    await start(['--mode', 'plan']);
    await until('a run', () => (runs() > 0 ? true : undefined));
    expect(output).toMatch(/"address":"Dashboard\/checkout".*"msg":"drift"/);
    expect(await dashboards()).toEqual([]);
  });

  it('keeps the last good state while manifests are broken, and recovers', async () => {
    const { url } = await start();
    await until('readiness', async () => ((await status(url, '/readyz')) === 200 ? true : undefined));
    writeFileSync(
      join(dir, 'manifests/broken.yaml'),
      'apiVersion: obsync/v1\nkind: Dashboard\nmetadata: {name: broken}\nspec: {name: x, tiles: [], treshold: 1}\n',
    );
    await until('not ready on invalid manifests', async () => ((await status(url, '/readyz')) === 503 ? true : undefined));
    expect(output).toMatch(/"event":"manifests-invalid".*"code":"unknown-key".*"msg":"manifests invalid"/);
    expect((await dashboards()).map((d) => d.name)).toEqual(['Checkout service']);
    rmSync(join(dir, 'manifests/broken.yaml'));
    await until('ready again', async () => ((await status(url, '/readyz')) === 200 ? true : undefined));
  });

  it(
    'with adopt: explicit, never takes over a hand-made dashboard of ' + 'the same name: says which and how to import it, writes nothing',
    async () => {
      const made = await fetch(`${sandbox.url}/api/v2/dashboards`, {
        method: 'POST',
        headers: { authorization: `Bearer ${sandbox.credentials.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Checkout service', tiles: [], tags: ['hand-made'] }),
      });
      const { data: hand } = (await made.json()) as { data: { id: string } };
      writeFileSync(join(dir, 'obsync.yaml'), config().replace('    retries: 0\n', '    retries: 0\n    adopt: explicit\n'));
      sandbox.clearRequests();
      const { url } = await start();
      await until('the refusal', () => (output.includes(`obsync import Dashboard/checkout ${hand.id}`) ? true : undefined));
      expect(output).toMatch(/"event":"refused","guard":"adoption","address":"Dashboard\/checkout".*"msg":"refused"/);
      expect(await status(url, '/readyz')).toBe(503);
      // The probe says a code; the reason, which quotes the service (the id), is on /api/status.
      const ready = (await (await fetch(`${url}/readyz`)).json()) as { targets: Record<string, { code: string; error?: string }> };
      expect(ready.targets.sb).toMatchObject({ code: 'failing', error: 'refused:adoption' });
      expect(JSON.stringify(ready)).not.toContain(hand.id);
      const doc = (await (await fetch(`${url}/api/status`)).json()) as { targets: { readyReason: string }[] };
      expect(doc.targets[0]?.readyReason).toContain(`Dashboard/checkout: `);
      expect(doc.targets[0]?.readyReason).toContain(hand.id);
      expect(sandbox.requests().filter((r) => r.method !== 'GET')).toEqual([]);
      expect((await dashboards()).map((d) => [d.name, d.tags])).toEqual([['Checkout service', ['hand-made']]]);
    },
  );

  it('survives the API failing and recovers when it comes back', async () => {
    sandbox.faults.set({ error5xx: 1 });
    const { url } = await start();
    await until('a failed run', () => (/"result":"failure"/.test(output) ? true : undefined));
    expect(await status(url, '/livez')).toBe(200);
    expect(await (await fetch(`${url}/metrics`)).text()).toMatch(
      /obsync_api_requests_total\{target="sb",method="GET",code="5\d\d"\} [1-9]/,
    );
    expect(await status(url, '/readyz')).toBe(503);
    sandbox.faults.clear();
    await until('recovery by back-off retry', async () => ((await status(url, '/readyz')) === 200 ? true : undefined));
    expect((await dashboards()).map((d) => d.name)).toEqual(['Checkout service']);
  });

  it('backtests changed alerts only when obsync.yaml asks for it (issue 26)', async () => {
    cpSync('config-examples/team/alerts', join(dir, 'manifests', 'alerts'), { recursive: true });
    const series = () => sandbox.requests().filter((r) => r.path.endsWith('/charts/series'));
    await start(['--mode', 'plan']);
    await until('a plan-mode run', () => (runs() >= 1 ? true : undefined));
    expect(output).toMatch(/"address":"Alert\/checkout-p99-high"/);
    expect(series()).toEqual([]);
    expect(output).not.toContain('"backtest"');
    child?.kill('SIGTERM');
    await new Promise((r) => child?.once('exit', r));

    writeFileSync(
      join(dir, 'obsync.yaml'),
      config().replace('manifests: [manifests]\n', 'manifests: [manifests]\ndefaults: {backtest: 1d}\n'),
    );
    await start(['--mode', 'plan']);
    await until('a plan-mode run that backtests', () => (runs() >= 1 ? true : undefined));
    expect(series().length).toBeGreaterThan(0);
    // The backtest's own objects (data, topGroups, suggestion) may sit before its window: matched within the line.
    expect(output).toMatch(/"address":"Alert\/checkout-p99-high"[^\n]*"backtest":\{"status":"ok"[^\n]*"window":"1d","granularity":"5m"/);
    expect(output).toMatch(
      /"address":"Alert\/checkout-error-rate-band".*"backtest":\{"status":"unavailable","reason":"scheduleOffsetMinutes/,
    );
  });
});
