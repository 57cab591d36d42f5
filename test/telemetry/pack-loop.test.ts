/**
 * Issue 45, "Prove it": obsync's runs exported to the sandbox's OTLP receiver are found through its
 * search API, and the monitoring pack (deploy/monitoring), applied with obsync itself, backtests
 * on them as a user would expect. Runs are placed in time (Date faked, timers real) so that the
 * alert windows that hold them have ended when the plan backtests: two targets reconciled four
 * times 15 minutes apart, one of them failing (a wrong key) in the first three; then nothing.
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
  } finally {
    vi.useRealTimers();
  }
});

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
    expect(runs.sort()).toEqual([...Array(3).fill('broken failure Error'), ...Array(4).fill('good success Unset')]);
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
    // The drift tile reads the Metrics source, which the sandbox answers with its synthetic series
    // (not the OTLP metric points): the backtest runs; what it counts is that data's.
    expect(backtest('Alert/obsync-repeated-drift')?.status).toBe('ok');

    const applied = await runCli(['apply', '--auto-approve', '--no-backtest'], { cwd, env });
    expect(applied.code, applied.stderr).toBe(0);
    const again = await runCli(['plan', '--detailed-exitcode', '--no-backtest'], { cwd, env });
    expect(again.code, again.stdout).toBe(0);
  });
});
