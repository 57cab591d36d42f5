/**
 * `obsync run` with several targets in one process (issue 16): each target its own queue,
 * back-off and readiness; one health server whose /readyz is 200 only when every target is
 * ready and says per target why; one watcher set (a shared file runs every target that reads
 * it); a target whose server is down, or slow, never stops or delays the others.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SANDBOX_DEFAULTS } from '../../src/sandbox/defaults.js';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { assertBuilt, spawnCli } from '../support/cli.js';
import { NOTHING_LISTENS, until as waitUntil, untilListening } from '../support/wait.js';

let dir: string;
let child: ChildProcess | undefined;
let output = '';
const sandboxes: SandboxHandle[] = [];

const until = <T>(what: string, probe: () => Promise<T | undefined> | T | undefined) =>
  waitUntil(what, probe, { context: () => output.slice(-4000) });

function config(staging: string, production: string): string {
  return `apiVersion: obsync/v1
kind: Config
manifests: [base]
targets:
  - name: staging
    variant: self-hosted
    baseUrl: ${staging}
    credentials: {apiKey: ${SANDBOX_DEFAULTS.apiKey}}
    manifests: [staging]
    vars: {env: staging}
    retries: 0
    timeoutSeconds: 60
  - name: production
    variant: hosted
    baseUrl: ${production}
    organizationId: ${SANDBOX_DEFAULTS.organizationId}
    serviceId: ${SANDBOX_DEFAULTS.serviceId}
    credentials: {keyId: ${SANDBOX_DEFAULTS.keyId}, keySecret: ${SANDBOX_DEFAULTS.keySecret}}
    vars: {env: production}
    retries: 0
`;
}

const dashboard = (name: string, title: string) => `apiVersion: obsync/v1
kind: Dashboard
metadata: {name: ${name}}
spec: {name: "${title}", tiles: []}
`;

function write(rel: string, text: string): void {
  mkdirSync(join(dir, rel, '..'), { recursive: true });
  writeFileSync(join(dir, rel), text);
}

async function sandbox(opts: Parameters<typeof startSandbox>[0] = {}): Promise<SandboxHandle> {
  const s = await startSandbox({ port: 0, rateLimit: 'off', ...opts });
  sandboxes.push(s);
  return s;
}

/** Starts the daemon on a port it picks itself, and answers the address it logged. */
async function start(extra: string[] = []): Promise<string> {
  child = spawnCli(['run', '--listen', '127.0.0.1:0', '--debounce', '200', '--schedule', '0 0 1 1 *', ...extra], { cwd: dir });
  output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  return untilListening(() => output);
}

interface ReadyBody {
  ready: boolean;
  reason?: string;
  targets: Record<string, { ready: boolean; code: string; error?: string; leader?: boolean }>;
}

async function readyz(url: string): Promise<{ status: number; body: ReadyBody } | undefined> {
  try {
    const res = await fetch(`${url}/readyz`);
    return { status: res.status, body: (await res.json()) as ReadyBody };
  } catch {
    return undefined;
  }
}

/** obsync_reconcile_total of a target and result, from /metrics. */
async function runsOf(url: string, target: string, result = 'success'): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`obsync_reconcile_total{target="${target}",result="${result}"}`));
  return Number(line?.split(' ')[1] ?? 0);
}

/** The targets each file change was routed to, from the daemon's `manifests changed` log lines. */
const changes = () =>
  output
    .split('\n')
    .filter((l) => l.includes('"msg":"manifests changed"'))
    .map((l) => (JSON.parse(l) as { targets: string[] }).targets);

const writesTo = (s: SandboxHandle, path: RegExp) => s.requests().filter((r) => r.method !== 'GET' && path.test(r.path));

beforeAll(() => assertBuilt());

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'obsync-multi-daemon-'));
  write('base/shared.yaml', dashboard('shared', 'Shared (${var:env})'));
  write('staging/only.yaml', dashboard('only-staging', 'Only staging'));
});

afterEach(async () => {
  if (child && child.exitCode === null) {
    child.kill('SIGKILL');
    await new Promise((r) => child?.once('exit', r));
  }
  for (const s of sandboxes.splice(0)) await s.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('obsync run with several targets', () => {
  it('reconciles every target in one process, runs the targets that read a changed file, and stops all on SIGTERM', async () => {
    const s = await sandbox();
    write('obsync.yaml', config(s.url, s.url));
    const url = await start();
    const ready = await until('both targets ready', async () => {
      const r = await readyz(url);
      return r?.status === 200 ? r.body : undefined;
    });
    expect(ready.ready).toBe(true);
    expect(Object.entries(ready.targets).map(([name, t]) => [name, t.ready, t.leader])).toEqual([
      ['staging', true, true],
      ['production', true, true],
    ]);
    expect(output).toMatch(
      /"targets":\["staging","production"\],"mode":"apply",.*"msg":"reconciling: status page, health and metrics served"/,
    );
    const metrics = await (await fetch(`${url}/metrics`)).text();
    expect(metrics).toMatch(/obsync_resources\{target="staging",kind="Dashboard",state="in_sync"\} 2/);
    expect(metrics).toMatch(/obsync_resources\{target="production",kind="Dashboard",state="in_sync"\} 1/);
    expect(metrics).toMatch(/obsync_manifest_errors\{target="production"\} 0/);

    // A file of the shared base: both targets run and write.
    const [stagingBefore, productionBefore] = [
      writesTo(s, /^\/api\/v2\/dashboards/).length,
      writesTo(s, /\/clickstack\/dashboards/).length,
    ];
    write('base/shared.yaml', dashboard('shared', 'Shared v2 (${var:env})'));
    await until('both targets applied the shared change', () =>
      writesTo(s, /^\/api\/v2\/dashboards/).length > stagingBefore && writesTo(s, /\/clickstack\/dashboards/).length > productionBefore
        ? true
        : undefined,
    );
    expect(changes()).toEqual([['staging', 'production']]);

    // A file only staging reads: staging runs, production does not.
    const stagingRuns = await runsOf(url, 'staging');
    const routed = changes().length;
    write('staging/only.yaml', dashboard('only-staging', 'Only staging v2'));
    await until('staging ran again', async () => ((await runsOf(url, 'staging')) > stagingRuns ? true : undefined));
    expect(changes().slice(routed)).toEqual([['staging']]);

    child?.kill('SIGTERM');
    const code = await new Promise<number | null>((r) => child?.once('exit', r));
    expect(code).toBe(0);
  });

  it('keeps reconciling and ready the targets whose server is up while another is down, and says which is not ready', async () => {
    const s = await sandbox();
    write('obsync.yaml', config(NOTHING_LISTENS, s.url));
    const url = await start();
    const body = await until('production ready while staging is down', async () => {
      const r = await readyz(url);
      return r?.status === 503 && r.body.targets.production?.ready === true && r.body.targets.staging?.code === 'failing'
        ? r.body
        : undefined;
    });
    expect(body.ready).toBe(false);
    expect(body.reason).toBe('not ready: staging');
    expect(body.targets.staging?.ready).toBe(false);
    // A code, never the error's text (the probe needs no token): the text is on /api/status.
    expect(body.targets.staging?.error).toMatch(/^[A-Z][A-Z_]*$/);
    // Production keeps applying changes while staging fails and backs off.
    const before = writesTo(s, /\/clickstack\/dashboards/).length;
    write('base/shared.yaml', dashboard('shared', 'Shared v3 (${var:env})'));
    await until('production applied the change', () => (writesTo(s, /\/clickstack\/dashboards/).length > before ? true : undefined));
    expect(await runsOf(url, 'staging', 'failure')).toBeGreaterThan(0);
  });

  it('never lets a slow target delay another: production runs again and again during staging its first run', async () => {
    const slow = await sandbox({ faults: { latencyMs: 60_000 } });
    const fast = await sandbox();
    write('obsync.yaml', config(slow.url, fast.url));
    const url = await start();
    await until('production ready', async () => ((await readyz(url))?.body.targets.production?.ready === true ? true : undefined));
    const before = await runsOf(url, 'production');
    write('base/shared.yaml', dashboard('shared', 'Shared v4 (${var:env})'));
    await until('production ran again', async () => ((await runsOf(url, 'production')) > before ? true : undefined));
    // Staging's first run is still waiting on its server.
    expect((await readyz(url))?.body.targets.staging).toMatchObject({ ready: false, code: 'first-run' });
    expect((await runsOf(url, 'staging')) + (await runsOf(url, 'staging', 'failure'))).toBe(0);
    // SIGTERM aborts the slow run at the deadline: the process still ends.
    child?.kill('SIGTERM');
    expect(await new Promise<number | null>((r) => child?.once('exit', r))).toBe(0);
  });
  it('reconciles at most --parallel-runs targets at once: the others wait their turn, queued on the status page (issue 28)', async () => {
    const slow = await sandbox({ faults: { latencyMs: 60_000 } });
    const fast = await sandbox();
    write('obsync.yaml', config(slow.url, fast.url));
    const url = await start(['--parallel-runs', '1']);
    const stateOf = async (name: string) => {
      const body = (await (await fetch(`${url}/api/status`)).json()) as { targets: { name: string; state: string; reason: string }[] };
      return body.targets.find((t) => t.name === name);
    };
    // Staging's run waits on its server and holds the only slot (production may have had its turn first).
    await until('staging running', async () => ((await stateOf('staging'))?.state === 'applying' ? true : undefined));
    const before = (await runsOf(url, 'production')) + (await runsOf(url, 'production', 'failure'));
    write('base/shared.yaml', dashboard('shared', 'Shared v5 (${var:env})'));
    const queued = await until('production queued', async () => {
      const p = await stateOf('production');
      return p?.state === 'queued' ? p : undefined;
    });
    expect(queued.reason).toMatch(/waiting for a run slot: 1 target\(s\) reconciling, at most 1 at once \(--parallel-runs\)/);
    expect(output).toContain('"msg":"run waiting for a slot"');
    expect((await runsOf(url, 'production')) + (await runsOf(url, 'production', 'failure'))).toBe(before);
    // SIGTERM: the waiting run never starts, the slow one is aborted at the deadline, the process ends.
    child?.kill('SIGTERM');
    expect(await new Promise<number | null>((r) => child?.once('exit', r))).toBe(0);
  });
});
