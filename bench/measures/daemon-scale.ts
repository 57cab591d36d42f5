/**
 * daemon-scale: `obsync run` (the built CLI) as a user runs it, over N dashboards and N alerts on
 * disk and a sandbox holding them: its start-up run (which adopts the estate) and then its steady
 * runs, each triggered by a save that changes one dashboard, and its unchanged runs, each triggered
 * by a save of the same text (what a scheduled run over an unchanged estate does). Unlike `steady`
 * (the planner alone, in the bench's process) it counts everything a daemon's run does: reading
 * and validating the manifests, the plan, the write, the state, the events. Wall time from the daemon's own
 * `run finished` lines, CPU and peak RSS of the daemon process from /proc (Linux): the peak is
 * reset after the warm-up runs, so the steady figure is the steady runs' own.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchManifestsYaml } from '../fixtures.js';
import { defineMeasure, fastest, type BenchContext, type Result } from '../measure.js';
import { peakRssMb, processCpuMs, resetPeakRss } from '../proc.js';
import { startChildSandbox } from '../sandbox-process.js';
import { followLines, until } from '../wait.js';
import { daemonConfig, touchDashboard } from './daemon.js';

interface Sizes {
  n: number;
  /** Steady runs measured (after two warm-up runs). */
  runs: number;
}

export default defineMeasure<Sizes>({
  name: 'daemon-scale',
  title: '`obsync run` over N + N objects: start-up run, steady runs (one changed dashboard) and unchanged runs, wall, CPU and peak RSS',
  tables: {
    'daemon-scale': [
      'n',
      'objects',
      'startupMs',
      'startupPeakRssMb',
      'runs',
      'steadyMs',
      'steadyCpuMs',
      'steadyPeakRssMb',
      'unchangedMs',
      'unchangedCpuMs',
    ],
  },
  sizes: { full: { n: 10_000, runs: 5 }, quick: { n: 1000, runs: 5 }, smoke: { n: 5, runs: 2 } },
  async run(sizes, ctx) {
    ctx.record(await daemonAtScale(sizes, ctx));
  },
});

async function daemonAtScale({ n, runs }: Sizes, ctx: BenchContext): Promise<Result> {
  const child = await startChildSandbox({ n, variant: 'self-hosted', rateLimit: 'off' });
  const dir = mkdtempSync(join(tmpdir(), 'obsync-bench-daemon-scale-'));
  mkdirSync(join(dir, 'manifests'));
  writeFileSync(join(dir, 'obsync.yaml'), daemonConfig(child));
  let objects = 0;
  for (const [name, text] of benchManifestsYaml(n, 'self-hosted')) {
    writeFileSync(join(dir, 'manifests', name), text);
    objects += text.split('---\n').length;
  }
  const touched = join(dir, 'manifests', 'touched.yaml');
  writeFileSync(touched, touchDashboard(0));
  const startedAt = Date.now();
  const daemon = spawn(process.execPath, [ctx.cli, 'run', '--listen', '127.0.0.1:0', '--debounce', '200', '--schedule', '0 0 1 1 *'], {
    cwd: dir,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const durations: number[] = [];
  let exited = false;
  daemon.once('exit', () => (exited = true));
  followLines(daemon.stderr, (line) => {
    if (!line.includes('"msg":"run finished"')) return;
    const { durationMs, result } = JSON.parse(line) as { durationMs: number; result: string };
    durations.push(result === 'success' ? durationMs : NaN);
  });
  const pid = daemon.pid ?? NaN;
  const finished = (count: number) => () =>
    exited ? Promise.reject(new Error('bench: the daemon exited')) : durations.length >= count ? true : undefined;
  try {
    await until('the start-up run', finished(1), 600_000);
    const startupMs = Date.now() - startedAt;
    const startupPeakRssMb = peakRssMb(pid);
    let version = 0;
    const save = async (change = true) => {
      const before = durations.length;
      writeFileSync(touched, touchDashboard(change ? ++version : version));
      await until('a run after a save', finished(before + 1), 300_000);
    };
    // `runs` runs, each after a save: their wall times (the daemon's own) and CPU per run.
    const measured = async (change: boolean) => {
      const cpu = processCpuMs(pid);
      const walls: number[] = [];
      for (let i = 0; i < runs; i++) {
        await save(change);
        walls.push(durations.at(-1) ?? NaN);
      }
      return { walls, cpuMs: Math.round((processCpuMs(pid) - cpu) / runs) };
    };
    await save();
    await save();
    if (!resetPeakRss(pid)) throw new Error(`bench: cannot reset the peak RSS of the daemon (/proc/${pid}/clear_refs)`);
    const steady = await measured(true);
    const steadyPeakRssMb = peakRssMb(pid);
    const unchanged = await measured(false);
    return {
      measure: 'daemon-scale',
      n,
      objects,
      startupMs,
      startupPeakRssMb,
      runs,
      steadyMs: fastest(steady.walls),
      steadyMsSamples: steady.walls,
      steadyCpuMs: steady.cpuMs,
      steadyPeakRssMb,
      unchangedMs: fastest(unchanged.walls),
      unchangedMsSamples: unchanged.walls,
      unchangedCpuMs: unchanged.cpuMs,
    };
  } finally {
    daemon.kill('SIGTERM');
    if (!exited) await new Promise((r) => daemon.once('exit', r));
    await child.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
