/**
 * Issue 45, "Prove it": obsync's runs exported to the sandbox's OTLP receiver are found through its
 * search API, and the monitoring pack (deploy/monitoring), applied with obsync itself, backtests
 * on them as a user would expect. Runs are placed in time (Date faked, timers real) so that the
 * alert windows that hold them have ended when the plan backtests: two targets reconciled four
 * times 15 minutes apart, one of them failing (a wrong key) in the first three; and a daemon
 * (`obsync run --mode plan`, in this process: its clock is the test's) finding a dashboard deleted
 * by hand at each of its four runs, 15 minutes apart, which obsync_drift_total counts and exports
 * over OTLP; then nothing.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Backtest } from '../../src/core/backtest.js';
import { DEMO_IDS } from '../../src/sandbox/domain/index.js';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { ATTR, SPAN } from '../../src/telemetry/names.js';
import { assertBuilt, runCli } from '../support/cli.js';
import { until } from '../support/wait.js';

const pack = join(dirname(fileURLToPath(import.meta.url)), '../../deploy/monitoring');
const HOUR = 3_600_000;
const QUARTER = 900_000;
/** The hour the runs happen in: three hours before the current one, so the 6 h backtest ends two empty hours after it. */
const RUN_HOUR = Math.floor(Date.now() / HOUR) * HOUR - 3 * HOUR;
const iso = (ms: number) => new Date(ms).toISOString();

let sandbox: SandboxHandle;
let dir: string;

const config = (targets: string, manifests: string) =>
  `apiVersion: obsync/v1\nkind: Config\nmanifests: [${manifests}]\nstate: {backend: file, path: state}\ntargets:\n${targets}`;
const target = (name: string, keyVar: string) =>
  `  - name: ${name}\n    variant: self-hosted\n    baseUrl: ${sandbox.url}\n    credentials: {apiKey: "\${env:${keyVar}}"}\n`;

beforeAll(async () => {
  assertBuilt();
  sandbox = await startSandbox({ port: 0, otlpPort: 0, rateLimit: 'off' });
  dir = mkdtempSync(join(tmpdir(), 'obsync-pack-loop-'));
  mkdirSync(join(dir, 'app'));
  writeFileSync(join(dir, 'app', 'obsync.yaml'), config(target('good', 'KEY') + target('broken', 'WRONG_KEY'), 'm.yaml'));
  mkdirSync(join(dir, 'watcher'));
  writeFileSync(join(dir, 'watcher', 'obsync.yaml'), config(target('watcher', 'KEY'), 'm.yaml'));
  writeFileSync(
    join(dir, 'watcher', 'm.yaml'),
    'apiVersion: obsync/v1\nkind: Dashboard\nmetadata: {name: watched}\nspec:\n  name: Watched\n  tiles: []\n',
  );
  writeFileSync(
    join(dir, 'app', 'm.yaml'),
    'apiVersion: obsync/v1\nkind: Dashboard\nmetadata: {name: app}\nspec:\n  name: App\n' +
      '  tiles: [{name: Notes, x: 0, y: 0, w: 6, h: 2, config: {displayType: markdown, markdown: hello}}]\n',
  );
  // What a user adds beside the pack (docs/telemetry.md): the webhook its alerts notify.
  mkdirSync(join(dir, 'monitoring'));
  writeFileSync(join(dir, 'monitoring', 'obsync.yaml'), config(target('sandbox', 'KEY'), `${pack}, webhook.yaml`));
  writeFileSync(
    join(dir, 'monitoring', 'webhook.yaml'),
    'apiVersion: obsync/v1\nkind: Webhook\nmetadata: {name: obsync-alerts}\n' +
      'spec: {service: generic, name: obsync-alerts, url: "https://hooks.example.com/obsync"}\n',
  );

  // The reconcile loop, four times 15 minutes apart, telemetry on; `broken` fails in the first three.
  vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
  try {
    const env = { KEY: sandbox.credentials.apiKey, WRONG_KEY: 'not-the-key', OTEL_EXPORTER_OTLP_ENDPOINT: sandbox.otlp?.url ?? '' };
    for (let i = 0; i < 4; i++) {
      vi.setSystemTime(RUN_HOUR + i * QUARTER + 60_000);
      const good = await runCli(['apply', '--auto-approve', '--target', 'good'], { cwd: join(dir, 'app'), env });
      expect(good.code, good.stderr).toBe(0);
      if (i === 3) continue;
      const broken = await runCli(['apply', '--auto-approve', '--target', 'broken'], { cwd: join(dir, 'app'), env });
      expect(broken.code).not.toBe(0);
    }
    await driftFourTimes(env);
  } finally {
    vi.useRealTimers();
  }
});

/** A dashboard of the sandbox's, by name, deleted as a user's hand would. */
async function deleteDashboard(name: string): Promise<void> {
  const headers = { authorization: `Bearer ${sandbox.credentials.apiKey}` };
  const list = (await (await fetch(`${sandbox.url}/api/v2/dashboards`, { headers })).json()) as { data: { id: string; name: string }[] };
  const found = list.data.find((d) => d.name === name);
  if (!found) throw new Error(`no dashboard ${name} to delete`);
  expect((await fetch(`${sandbox.url}/api/v2/dashboards/${found.id}`, { method: 'DELETE', headers })).status).toBe(200);
}

/** The newest obsync_drift_total point the receiver holds for the target, once it counts `n`. */
const driftCounted = (n: number) =>
  until(`obsync_drift_total to reach ${n}`, () =>
    sandbox.otlp?.store
      .rows('otel_metrics')
      .some((r) => r.MetricName === 'obsync_drift_total' && (r.Attributes as Record<string, string>).target === 'watcher' && r.Value === n)
      ? true
      : undefined,
  );

/**
 * A dashboard obsync applied is deleted by hand; a daemon watching it (`--mode plan`: it reports
 * drift at each run and leaves it) runs at start-up and on each SIGHUP (its listeners called, not
 * the process signalled) at RUN_HOUR + 2, 17, 32 and 47 minutes, its metrics exported every 100 ms:
 * obsync_drift_total counts 1 to 4. Apply mode cannot be placed in time so: the clock jumping 15
 * minutes ends its writer lease (a paused process, by design), and it would refuse a third create
 * in a row (engine/repeated-creates.ts). Stopped as SIGTERM stops it (its listeners removed after).
 */
async function driftFourTimes(env: Record<string, string>): Promise<void> {
  const cwd = join(dir, 'watcher');
  const applied = await runCli(['apply', '--auto-approve'], { cwd, env: { KEY: env.KEY ?? '' } });
  expect(applied.code, applied.stderr).toBe(0);
  const signals = ['SIGHUP', 'SIGTERM', 'SIGINT'] as const;
  const before = new Map(signals.map((s) => [s, process.listeners(s)]));
  const added = (s: (typeof signals)[number]) => process.listeners(s).filter((l) => !before.get(s)?.includes(l));
  await deleteDashboard('Watched');
  vi.setSystemTime(RUN_HOUR + 2 * 60_000);
  const daemon = runCli(['run', '--mode', 'plan', '--listen', '127.0.0.1:0', '--no-watch', '--schedule', '0 0 1 1 *'], {
    cwd,
    env: { ...env, OTEL_METRIC_EXPORT_INTERVAL: '100' },
  });
  try {
    await driftCounted(1);
    for (let i = 1; i < 4; i++) {
      vi.setSystemTime(RUN_HOUR + i * QUARTER + 2 * 60_000);
      for (const l of added('SIGHUP')) l('SIGHUP');
      await driftCounted(i + 1);
    }
  } finally {
    for (const l of added('SIGTERM')) l('SIGTERM');
    const stopped = await daemon;
    for (const s of signals) for (const l of added(s)) process.off(s, l);
    expect(stopped.code, stopped.stderr).toBe(0);
  }
}

afterAll(async () => {
  vi.useRealTimers();
  await sandbox?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

interface Change {
  obsync_address: string;
  backtest?: Backtest;
}

describe('obsync watched by the service it manages, through the monitoring pack', () => {
  it("finds the runs through the sandbox's search, as a dashboard tile asks for them", async () => {
    const res = await fetch(`${sandbox.url}/api/v2/search`, {
      method: 'POST',
      headers: { authorization: `Bearer ${sandbox.credentials.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        sourceId: DEMO_IDS.traces,
        where: `ServiceName:obsync SpanName:${SPAN.run}`,
        select: `Timestamp, StatusCode, SpanAttributes['${ATTR.target}'], SpanAttributes['${ATTR.result}']`,
        startTime: iso(RUN_HOUR),
        endTime: iso(RUN_HOUR + HOUR),
      }),
    });
    expect(res.status).toBe(200);
    const rows = ((await res.json()) as { data: Record<string, string>[] }).data;
    const runs = rows.map((r) => `${r[`SpanAttributes['${ATTR.target}']`]} ${r[`SpanAttributes['${ATTR.result}']`]} ${r.StatusCode}`);
    expect(runs.sort()).toEqual([
      ...Array(3).fill('broken failure Error'),
      ...Array(4).fill('good success Unset'),
      ...Array(4).fill('watcher success Unset'),
    ]);
  });

  it('backtests the pack on them: the failing target fires, a stopped daemon fires, runs keep it quiet', async () => {
    const cwd = join(dir, 'monitoring');
    const env = { KEY: sandbox.credentials.apiKey };
    const planned = await runCli(['plan', '--output', 'json', '--backtest', '6h'], { cwd, env });
    expect(planned.code, planned.stderr).toBe(0);
    const changes = (JSON.parse(planned.stdout) as { resource_changes: Change[] }).resource_changes;
    const backtest = (address: string) => changes.find((c) => c.obsync_address === address)?.backtest;

    // 15-minute windows: `broken` failed in the run hour's first three; two in a row are needed.
    expect(backtest('Alert/obsync-target-failing')).toMatchObject({
      status: 'ok',
      firing: 2,
      episodes: 1,
      firstFiringAt: iso(RUN_HOUR + QUARTER),
      lastFiringAt: iso(RUN_HOUR + 2 * QUARTER),
    });
    // Hours: three without a run, the run hour, two more without: a window with no row at all fires.
    expect(backtest('Alert/obsync-daemon-stuck')).toMatchObject({
      status: 'ok',
      evaluated: 6,
      firing: 5,
      episodes: 2,
      lastFiringAt: iso(RUN_HOUR + 2 * HOUR),
    });
    // The drift tile's sum of obsync_drift_total, from the points received: the increase in each
    // window, as the service counts it (the stream's first point counts nothing: the drift at :02
    // is not seen). Drift in the windows at :15 and :30 is two running, still quiet; :45 is the third.
    expect(backtest('Alert/obsync-repeated-drift')).toMatchObject({
      status: 'ok',
      firing: 1,
      episodes: 1,
      firstFiringAt: iso(RUN_HOUR + 3 * QUARTER),
      lastFiringAt: iso(RUN_HOUR + 3 * QUARTER),
    });

    const applied = await runCli(['apply', '--auto-approve', '--no-backtest'], { cwd, env });
    expect(applied.code, applied.stderr).toBe(0);
    const again = await runCli(['plan', '--detailed-exitcode', '--no-backtest'], { cwd, env });
    expect(again.code, again.stdout).toBe(0);
  });
});
