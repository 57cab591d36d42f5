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
import { PassThrough } from 'node:stream';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectInspector, inspectorUrl } from '../inspector.js';
import { OtlpStore, type OtelTable, startOtlpReceiver } from '../../src/sandbox/otlp/index.js';
import { benchManifestsYaml } from '../fixtures.js';
import { type BenchContext, defineMeasure, median, type Result } from '../measure.js';
import { processCpuMs } from '../proc.js';
import { topSelfTime } from '../profile.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { startChildSandbox, type ChildSandbox } from '../sandbox-process.js';
import { followLines, until } from '../wait.js';
import { daemonConfig, touchDashboard } from './daemon.js';

interface Sizes {
  n: number;
  /** Measured runs of each daemon, after `warmUps` runs each; 0: the start-up run is the one measured (smoke: no timing is judged). */
  runs: number;
  warmUps: number;
  /** How long to wait after the last run for the exports it leaves (the processors' 5 s schedule); 0 in smoke. */
  settleMs: number;
  helpSamples: number;
  /** The sandbox in this process (smoke: its CPU is not measured, and a child would cost seconds); else in a child. */
  inProcessSandbox: boolean;
}

type Env = Record<string, string | undefined>;

export default defineMeasure<Sizes>({
  name: 'telemetry',
  title: 'obsync telemetry on (OTLP to loopback) ÷ off: CPU per daemon run, interleaved; `--help` start-up with an endpoint set ÷ unset',
  tables: {
    telemetry: ['n', 'runs', 'offCpuMs', 'onCpuMs', 'onOverOff', 'spansPerRun'],
    'telemetry-startup': ['samples', 'helpOffMs', 'helpOnMs', 'helpOnOverOff', 'fastestHelpOnOverOff'],
    'telemetry-profile': ['daemon', 'n', 'top'],
  },
  sizes: {
    full: { n: 1000, runs: 20, warmUps: 2, settleMs: 6_000, helpSamples: 30, inProcessSandbox: false },
    quick: { n: 300, runs: 10, warmUps: 2, settleMs: 6_000, helpSamples: 12, inProcessSandbox: false },
    smoke: { n: 2, runs: 0, warmUps: 0, settleMs: 0, helpSamples: 1, inProcessSandbox: true },
  },
  async run(sizes, ctx) {
    const store = new CountingStore(100);
    const receiver = await startOtlpReceiver({ host: '127.0.0.1', port: 0, store });
    try {
      for (const row of await daemonRuns(sizes, ctx, receiver.url, () => store.spans)) ctx.record(row);
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
async function startDaemon(ctx: BenchContext, child: BenchSandbox, n: number, label: string, env: Env) {
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
    [
      ...(ctx.profile ? ['--inspect=127.0.0.1:0'] : []),
      ctx.cli,
      'run',
      '--listen',
      '127.0.0.1:0',
      '--debounce',
      '200',
      '--schedule',
      '0 0 1 1 *',
      // Telemetry's cost alone: each run's preview of the changed dashboard (0.2-0.9 s of CPU) would dilute it.
      '--no-previews',
    ],
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
  const { head } = followLines(proc.stderr ?? new PassThrough(), (line) => {
    if (!line.includes('"msg":"run finished"')) return;
    finished += 1;
    if (!line.includes('"result":"success"')) failed += 1;
  });
  const runs = (count: number) => () =>
    exited ? Promise.reject(new Error('bench: a daemon exited')) : finished >= count ? true : undefined;
  let version = 0;
  return {
    pid: proc.pid ?? Number.NaN,
    label,
    /** With --profile: the daemon's inspector (it was started with --inspect). */
    inspector: () => until('the inspector address', () => inspectorUrl(head())).then(connectInspector),
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

type BenchSandbox = Pick<ChildSandbox, 'url' | 'credentials' | 'close'>;

/** The sandbox the daemons manage: in a child (N seeded objects), or in this process (empty: the daemons create their few). */
async function benchSandbox(n: number, inProcess: boolean): Promise<BenchSandbox> {
  if (!inProcess) return startChildSandbox({ n, variant: 'self-hosted', rateLimit: 'off' });
  return startSandbox({ host: '127.0.0.1', port: 0, rateLimit: 'off', persist: false });
}

async function daemonRuns(sizes: Sizes, ctx: BenchContext, endpoint: string, spans: () => number): Promise<Result[]> {
  const { n, runs, warmUps, settleMs } = sizes;
  const child = await benchSandbox(n, sizes.inProcessSandbox);
  const daemons: Awaited<ReturnType<typeof startDaemon>>[] = [];
  try {
    // One start-up run after the other: both adopt the same estate. Started together, on an empty
    // sandbox (smoke) both created the same objects at once and one run failed on the other's.
    const off = await startDaemon(ctx, child, n, 'off', envWith({}));
    daemons.push(off);
    await off.started();
    const on = await startDaemon(ctx, child, n, 'on', envWith({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint }));
    daemons.push(on);
    await on.started();
    for (let i = 0; i < warmUps; i++) for (const d of [off, on]) await d.save();
    await new Promise((r) => setTimeout(r, settleMs));
    // --profile: both daemons' CPU profiles of the measured runs (the profiler's own cost hits both alike).
    const inspectors = ctx.profile ? await Promise.all(daemons.map((d) => d.inspector())) : [];
    for (const inspector of inspectors) await inspector.startProfile();
    // No measured run: the start-up run is measured, from the process's start.
    const spansBefore = runs === 0 ? 0 : spans();
    const cpuStart = runs === 0 ? [0, 0] : [processCpuMs(off.pid), processCpuMs(on.pid)];
    for (let i = 0; i < runs; i++) for (const d of i % 2 === 0 ? [off, on] : [on, off]) await d.save();
    // The exports of the last runs (the processors' schedule) belong to them.
    await new Promise((r) => setTimeout(r, settleMs));
    const measured = Math.max(runs, 1);
    const offCpuMs = (processCpuMs(off.pid) - (cpuStart[0] ?? 0)) / measured;
    const onCpuMs = (processCpuMs(on.pid) - (cpuStart[1] ?? 0)) / measured;
    const profiles: Result[] = [];
    for (const [i, inspector] of inspectors.entries()) {
      const profile = await inspector.stopProfile();
      inspector.close();
      const daemon = daemons[i]?.label ?? String(i);
      const file = join(ctx.root, `bench/telemetry-${daemon}-${n}.cpuprofile`);
      writeFileSync(file, JSON.stringify(profile));
      profiles.push({ measure: 'telemetry-profile', daemon, n, file, top: topSelfTime(profile.nodes, 25) });
    }
    if (off.failed() + on.failed() > 0) throw new Error('bench: a daemon run failed');
    const spansPerRun = (spans() - spansBefore) / measured;
    if (settleMs > 0 && spansPerRun === 0) throw new Error('bench: the daemon with telemetry on exported no span');
    const row: Result = {
      measure: 'telemetry',
      n,
      runs,
      offCpuMs: Math.round(offCpuMs),
      onCpuMs: Math.round(onCpuMs),
      onOverOff: Number((onCpuMs / offCpuMs).toFixed(3)),
      spansPerRun: Math.round(spansPerRun),
    };
    return [row, ...profiles];
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
