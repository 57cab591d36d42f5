/**
 * telemetry (issue 45): what obsync's own OpenTelemetry costs. Two daemons (`obsync run`, the built
 * CLI) over one bench sandbox holding N + N objects (both manage them; each changes its own
 * dashboard, so their runs do the same work), one with telemetry off and one
 * exporting traces, logs and metrics over OTLP to a loopback receiver (the sandbox's own,
 * src/sandbox/otlp): their runs, each after a save that changes one dashboard, interleaved (the
 * order swapped every round), so a change of load hits both alike. CPU per run is the daemon's
 * whole CPU (/proc) over the measured runs, the exports that follow them included (the span and
 * log processors export every 5 s, so the span waits for them), divided by the runs. Goal: on ÷ off
 * ≤ 1.05. And `obsync --help` with OTEL_EXPORTER_OTLP_ENDPOINT set against unset: telemetry is
 * started in the action hook, which --help never reaches, so the ratio should be 1.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OtlpStore, type OtelTable, startOtlpReceiver } from '../../src/sandbox/otlp/index.js';
import { benchManifestsYaml } from '../fixtures.js';
import { defineMeasure, median, type Result } from '../measure.js';
import { processCpuMs } from '../proc.js';
import { startChildSandbox, type ChildSandbox } from '../sandbox-process.js';
import { followLines, until } from '../wait.js';
import { daemonConfig, touchDashboard } from './daemon.js';

interface Sizes {
  n: number;
  /** Measured runs of each daemon, after `warmUps` runs each. */
  runs: number;
  warmUps: number;
  /** How long to wait after the last run for the exports it leaves (the processors' 5 s schedule); 0 in smoke. */
  settleMs: number;
  helpSamples: number;
}

type Env = Record<string, string | undefined>;

export default defineMeasure<Sizes>({
  name: 'telemetry',
  title: 'obsync telemetry on (OTLP to loopback) ÷ off: CPU per daemon run, interleaved; `--help` start-up with an endpoint set ÷ unset',
  tables: {
    telemetry: ['n', 'runs', 'offCpuMs', 'onCpuMs', 'onOverOff', 'spansPerRun'],
    'telemetry-startup': ['samples', 'helpOffMs', 'helpOnMs', 'helpOnOverOff', 'fastestHelpOnOverOff'],
  },
  sizes: {
    full: { n: 1000, runs: 20, warmUps: 2, settleMs: 6_000, helpSamples: 30 },
    quick: { n: 300, runs: 10, warmUps: 2, settleMs: 6_000, helpSamples: 12 },
    smoke: { n: 2, runs: 1, warmUps: 0, settleMs: 0, helpSamples: 1 },
  },
  async run(sizes, ctx) {
    const store = new CountingStore(100);
    const receiver = await startOtlpReceiver({ host: '127.0.0.1', port: 0, store });
    try {
      ctx.record(await daemonRuns(sizes, ctx.cli, receiver.url, () => store.spans));
      ctx.record(helpStartup(ctx.cli, ctx.root, sizes.helpSamples, receiver.url, ctx.mode !== 'smoke'));
    } finally {
      await receiver.close();
    }
  },
});

/** Keeps few rows (the store keeps the newest only) and counts every span received. */
class CountingStore extends OtlpStore {
  spans = 0;
  override add(table: OtelTable, rows: Parameters<OtlpStore['add']>[1]): void {
    if (table === 'otel_traces') this.spans += rows.length;
    super.add(table, rows);
  }
}

/** The environment without any OTEL_ variable, and with `extra`. */
function envWith(extra: Env): Env {
  const env: Env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('OTEL_')));
  return { ...env, ...extra, NO_COLOR: '1' };
}

/** A daemon over the sandbox, changing its own dashboard (`label`) at each save; counts its finished runs. */
async function startDaemon(cli: string, child: ChildSandbox, n: number, label: string, env: Env) {
  const dir = mkdtempSync(join(tmpdir(), 'obsync-bench-telemetry-'));
  mkdirSync(join(dir, 'manifests'));
  writeFileSync(join(dir, 'obsync.yaml'), daemonConfig(child));
  for (const [name, text] of benchManifestsYaml(n, 'self-hosted')) writeFileSync(join(dir, 'manifests', name), text);
  const touched = join(dir, 'manifests', 'touched.yaml');
  const touch = (version: number) =>
    touchDashboard(version).replace('{name: touched}', `{name: touched-${label}}`).replace('Touched', `Touched ${label}`);
  writeFileSync(touched, touch(0));
  const proc: ChildProcess = spawn(
    process.execPath,
    [cli, 'run', '--listen', '127.0.0.1:0', '--debounce', '200', '--schedule', '0 0 1 1 *'],
    {
      cwd: dir,
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let finished = 0;
  let failed = 0;
  let exited = false;
  proc.once('exit', () => (exited = true));
  if (proc.stderr) {
    followLines(proc.stderr, (line) => {
      if (!line.includes('"msg":"run finished"')) return;
      finished += 1;
      if (!line.includes('"result":"success"')) failed += 1;
    });
  }
  const runs = (count: number) => () =>
    exited ? Promise.reject(new Error('bench: a daemon exited')) : finished >= count ? true : undefined;
  let version = 0;
  return {
    pid: proc.pid ?? Number.NaN,
    failed: () => failed,
    started: () => until('the start-up run', runs(1), 600_000),
    async save() {
      const before = finished;
      writeFileSync(touched, touch(++version));
      await until('a run after a save', runs(before + 1), 300_000);
    },
    async close() {
      proc.kill('SIGTERM');
      if (!exited) await new Promise((r) => proc.once('exit', r));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function daemonRuns({ n, runs, warmUps, settleMs }: Sizes, cli: string, endpoint: string, spans: () => number): Promise<Result> {
  const child = await startChildSandbox({ n, variant: 'self-hosted', rateLimit: 'off' });
  const daemons: Awaited<ReturnType<typeof startDaemon>>[] = [];
  try {
    daemons.push(await startDaemon(cli, child, n, 'off', envWith({})));
    daemons.push(await startDaemon(cli, child, n, 'on', envWith({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint })));
    const [off, on] = daemons as [(typeof daemons)[0], (typeof daemons)[0]];
    // One start-up run after the other: both adopt the same estate.
    await off.started();
    await on.started();
    for (let i = 0; i < warmUps; i++) for (const d of [off, on]) await d.save();
    await new Promise((r) => setTimeout(r, settleMs));
    const spansBefore = spans();
    const cpuStart = [processCpuMs(off.pid), processCpuMs(on.pid)];
    for (let i = 0; i < runs; i++) for (const d of i % 2 === 0 ? [off, on] : [on, off]) await d.save();
    // The exports of the last runs (the processors' schedule) belong to them.
    await new Promise((r) => setTimeout(r, settleMs));
    const offCpuMs = (processCpuMs(off.pid) - (cpuStart[0] ?? 0)) / runs;
    const onCpuMs = (processCpuMs(on.pid) - (cpuStart[1] ?? 0)) / runs;
    if (off.failed() + on.failed() > 0) throw new Error('bench: a daemon run failed');
    const spansPerRun = (spans() - spansBefore) / runs;
    if (settleMs > 0 && spansPerRun === 0) throw new Error('bench: the daemon with telemetry on exported no span');
    return {
      measure: 'telemetry',
      n,
      runs,
      offCpuMs: Math.round(offCpuMs),
      onCpuMs: Math.round(onCpuMs),
      onOverOff: Number((onCpuMs / offCpuMs).toFixed(3)),
      spansPerRun: Math.round(spansPerRun),
    };
  } finally {
    for (const d of daemons) await d.close();
    await child.close();
  }
}

function wallMs(args: string[], cwd: string, env: Env): number {
  const start = process.hrtime.bigint();
  const res = spawnSync(process.execPath, args, { cwd, stdio: 'ignore', env });
  if (res.status !== 0) throw new Error(`node ${args.join(' ')} exited ${String(res.status)}`);
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/** `obsync --help` with and without an OTLP endpoint set, interleaved. */
function helpStartup(cli: string, root: string, samples: number, endpoint: string, warm: boolean): Result {
  const envs = { off: envWith({}), on: envWith({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint }) };
  const times: Record<'off' | 'on', number[]> = { off: [], on: [] };
  if (warm) for (const env of Object.values(envs)) wallMs([cli, '--help'], root, env); // the file cache
  for (let i = 0; i < samples; i++)
    for (const which of ['off', 'on'] as const) times[which].push(wallMs([cli, '--help'], root, envs[which]));
  const ratio = (a: number, b: number) => Number((a / b).toFixed(2));
  return {
    measure: 'telemetry-startup',
    samples,
    helpOffMs: Math.round(median(times.off)),
    helpOnMs: Math.round(median(times.on)),
    helpOnOverOff: ratio(median(times.on), median(times.off)),
    fastestHelpOnOverOff: ratio(Math.min(...times.on), Math.min(...times.off)),
  };
}
