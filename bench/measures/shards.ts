/**
 * The sharding bench (issue 28): T self-hosted targets of about 500 objects each (teams of one
 * sandbox process, each with its own key), reconciled by 1, 2 and 4 replicas of `obsync run` (the
 * built CLI, child processes) on one PostgreSQL state started here. For each replica count: the
 * replicas start, divide the targets (every target led by exactly one, ⌊T ÷ k⌋ to ⌈T ÷ k⌉ each),
 * run a warm-up round (hand-overs done, every leader's memo built), go quiet; then each measured
 * round is a change of a file every target reads, from the write to the last target's `run
 * finished` on any replica. The fastest round is kept (noise on a shared machine only adds), and
 * the median is recorded beside it.
 *
 * Per round: CPU of each replica, of the sandbox, and how many cores the whole machine was busy
 * (PostgreSQL, the bench itself and anyone else sharing the machine are what is left), and each
 * replica's peak RSS during the round (VmHWM, reset before it through /proc/PID/clear_refs). The
 * figures come from /proc: this measure runs on Linux. The estate carries over from one replica
 * count to the next (same sandbox, same state), so only the first start-up adopts it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeTemplate, PostgresInstance } from '../../test/support/postgres-instance.js';
import { benchDocuments, benchManifestsYaml, teamKey } from '../fixtures.js';
import { defineMeasure, median, ratio, type BenchContext } from '../measure.js';
import { startChildSandbox, type ChildSandbox } from '../sandbox-process.js';
import { machineCpu, peakRssMb, processCpuMs, resetPeakRss } from '../proc.js';
import { daemonUrl, followLines, until } from '../wait.js';

const DEBOUNCE_MS = 50;

interface Sizes {
  targets: number;
  /** Dashboards (and as many alerts) per target; the estate adds a few of every other kind. */
  n: number;
  replicas: number[];
  /** Measured rounds per replica count (the fastest is kept). */
  rounds: number;
  leaseSeconds: number;
}

export default defineMeasure({
  name: 'shards',
  title: 'replicas sharing targets over PostgreSQL: one steady round of all targets on 1, 2, 4 replicas',
  tables: {
    shards: [
      'replicas',
      'targets',
      'objectsPerTarget',
      'roundWallMs',
      'speedup',
      'medianSpeedup',
      'leadsPerReplica',
      'cpuMsPerReplica',
      'peakRssMbPerReplica',
      'sandboxCpuMs',
      'machineBusyCores',
      'failedRuns',
    ],
  },
  sizes: {
    // 242 dashboards and 242 alerts and 15 others: 499 objects per target, 200 targets (issue 28).
    full: { targets: 200, n: 242, replicas: [1, 2, 4], rounds: 5, leaseSeconds: 15 },
    quick: { targets: 16, n: 242, replicas: [1, 2], rounds: 1, leaseSeconds: 15 },
    smoke: { targets: 3, n: 2, replicas: [1, 2], rounds: 1, leaseSeconds: 2 },
  } satisfies Record<string, Sizes>,
  async run(sizes, ctx) {
    await shardsBench(sizes, ctx);
  },
});

const targetName = (i: number) => `t${String(i).padStart(3, '0')}`;

function config(child: ChildSandbox, sizes: Sizes): string {
  const lines = [
    'apiVersion: obsync/v1',
    'kind: Config',
    'manifests: [manifests]',
    `state: {backend: postgres, url: "\${env:OBSYNC_STATE_URL}", schema: bench_shards, leaseSeconds: ${sizes.leaseSeconds}}`,
    'targets:',
  ];
  for (let i = 1; i <= sizes.targets; i++)
    lines.push(
      `  - {name: ${targetName(i)}, variant: self-hosted, baseUrl: "${child.url}", credentials: {apiKey: ${teamKey(i)}}, rateLimit: ` +
        `{requests: 10000, perSeconds: 1}}`,
    );
  return `${lines.join('\n')}\n`;
}

/** One `obsync run` replica and what its log said: runs in flight, the runs finished per target. */
class Replica {
  readonly finished: { target: string; at: number; result: string; error?: string }[] = [];
  started = 0;
  private readonly head: () => string;
  constructor(readonly child: ChildProcess) {
    if (!child.stderr) throw new Error('bench: a replica is started with its stderr piped');
    this.head = followLines(child.stderr, (line) => this.read(line)).head;
  }
  private read(line: string): void {
    if (line.includes('"msg":"run started"')) this.started += 1;
    if (!line.includes('"msg":"run finished"')) return;
    const { target, result, error } = JSON.parse(line) as { target: string; result: string; error?: string };
    this.finished.push({ target, result, at: performance.now(), ...(error ? { error } : {}) });
  }
  get pid(): number {
    return this.child.pid ?? -1;
  }
  get url(): string | undefined {
    return daemonUrl(this.head());
  }
  get inFlight(): number {
    return this.started - this.finished.length;
  }
  async leads(): Promise<string[] | undefined> {
    const url = this.url;
    if (!url) return undefined;
    try {
      const body = (await (await fetch(`${url}/readyz`)).json()) as { replica?: { leads?: string[] } };
      return body.replica?.leads;
    } catch {
      return undefined;
    }
  }
  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise((r) => this.child.once('exit', r));
    this.child.kill('SIGTERM');
    await exited;
  }
}

interface Round {
  wallMs: number;
  cpuMs: number[];
  peakRssMb: number[];
  peakSinceRoundStart: boolean;
  sandboxCpuMs: number;
  machineBusyCores: number;
  failedRuns: number;
}

/** Records a row per replica count as soon as it is measured (a full run takes many minutes). */
async function shardsBench(sizes: Sizes, ctx: BenchContext): Promise<void> {
  const child = await startChildSandbox({ n: sizes.n, variant: 'self-hosted', rateLimit: 'off', teams: sizes.targets });
  const template = makeTemplate();
  const pg = await PostgresInstance.start(template);
  const dir = mkdtempSync(join(tmpdir(), 'obsync-bench-shards-'));
  mkdirSync(join(dir, 'manifests'));
  writeFileSync(join(dir, 'obsync.yaml'), config(child, sizes));
  for (const [name, text] of benchManifestsYaml(sizes.n, 'self-hosted')) writeFileSync(join(dir, 'manifests', name), text);
  const marker = join(dir, 'manifests', 'round.yaml');
  writeFileSync(marker, '# round 0\n');
  const all = Array.from({ length: sizes.targets }, (_, i) => targetName(i + 1));
  let version = 0;
  let replicas: Replica[] = [];
  /** Why runs failed, each reason once (a failed run is a defect the bench reports, not noise). */
  let failureReasons = new Set<string>();

  const start = () =>
    new Replica(
      spawn(process.execPath, [ctx.cli, 'run', '--listen', '127.0.0.1:0', '--debounce', String(DEBOUNCE_MS), '--schedule', '0 0 1 1 *'], {
        cwd: dir,
        env: { ...process.env, OBSYNC_STATE_URL: pg.address.url },
        stdio: ['ignore', 'ignore', 'pipe'],
      }),
    );
  /** Every target led by exactly one replica, each within ⌊T ÷ k⌋..⌈T ÷ k⌉; the counts when so. */
  const balanced = async (): Promise<number[] | undefined> => {
    const leads = await Promise.all(replicas.map((r) => r.leads()));
    if (leads.some((l) => l === undefined)) return undefined;
    const counts = leads.map((l) => l?.length ?? 0);
    const union = new Set(leads.flat());
    const [low, high] = [Math.floor(all.length / replicas.length), Math.ceil(all.length / replicas.length)];
    const fair = counts.every((c) => c >= low && c <= high);
    return fair && union.size === all.length && counts.reduce((a, b) => a + b, 0) === all.length ? counts : undefined;
  };
  /** Changes a file every target reads and waits until each has finished a run since, on any replica. */
  const round = async (what: string) => {
    const t0 = performance.now();
    version += 1;
    writeFileSync(marker, `# round ${version}\n`);
    await until(
      what,
      () => {
        const done = new Set(replicas.flatMap((r) => r.finished.filter((f) => f.at > t0).map((f) => f.target)));
        return done.size === all.length ? Math.max(...replicas.flatMap((r) => r.finished.map((f) => f.at))) - t0 : undefined;
      },
      900_000,
    );
    const failed = replicas.flatMap((r) => r.finished.filter((f) => f.at > t0 && f.result !== 'success'));
    for (const f of failed) failureReasons.add(f.error?.slice(0, 300) ?? f.result);
    return failed.length;
  };
  const quiet = () => until('no run in flight', () => (replicas.every((r) => r.inFlight === 0) ? true : undefined), 300_000);

  const measured = async (): Promise<Round> => {
    const pids = replicas.map((r) => r.pid);
    await quiet();
    const peakSinceRoundStart = pids.map(resetPeakRss).every(Boolean);
    const cpu0 = pids.map(processCpuMs);
    const sandbox0 = processCpuMs(child.pid);
    const machine0 = machineCpu();
    const t0 = performance.now();
    const failedRuns = await round('a measured round');
    const wallMs = Math.round(Math.max(...replicas.map((r) => r.finished.at(-1)?.at ?? t0)) - t0);
    const machine1 = machineCpu();
    return {
      wallMs,
      cpuMs: pids.map((pid, i) => Math.round(processCpuMs(pid) - (cpu0[i] ?? 0))),
      peakRssMb: pids.map(peakRssMb),
      peakSinceRoundStart,
      sandboxCpuMs: Math.round(processCpuMs(child.pid) - sandbox0),
      machineBusyCores: Number(
        (((machine1.busy - machine0.busy) / Math.max(1, machine1.total - machine0.total)) * cpus().length).toFixed(2),
      ),
      failedRuns,
    };
  };

  try {
    let oneReplica: { fastest: number; median: number } | undefined;
    for (const k of sizes.replicas) {
      replicas = Array.from({ length: k }, start);
      failureReasons = new Set();
      const leads = await until(`${all.length} targets divided among ${k} replica(s)`, balanced, 900_000);
      console.error(`bench: shards: ${k} replica(s) lead ${leads.join(', ')} target(s); warm-up round`);
      await round(`the warm-up round on ${k} replica(s)`);
      const rounds: Round[] = [];
      for (let r = 0; r < sizes.rounds; r++) rounds.push(await measured());
      const best = rounds.reduce((a, b) => (b.wallMs < a.wallMs ? b : a));
      const medianMs = Math.round(median(rounds.map((r) => r.wallMs)));
      oneReplica ??= { fastest: best.wallMs, median: medianMs };
      ctx.record({
        measure: 'shards',
        replicas: k,
        targets: all.length,
        objectsPerTarget: benchDocuments(sizes.n, 'self-hosted').length,
        roundWallMs: best.wallMs,
        roundSamplesMs: rounds.map((r) => r.wallMs),
        speedup: ratio(oneReplica.fastest, best.wallMs),
        roundMedianMs: medianMs,
        medianSpeedup: ratio(oneReplica.median, medianMs),
        leadsPerReplica: leads,
        cpuMsPerReplica: best.cpuMs,
        replicasCpuOverWall: ratio(
          best.cpuMs.reduce((a, b) => a + b, 0),
          best.wallMs,
        ),
        peakRssMbPerReplica: best.peakRssMb,
        peakRss: best.peakSinceRoundStart ? 'during the round' : 'since the replica started',
        sandboxCpuMs: best.sandboxCpuMs,
        machineBusyCores: best.machineBusyCores,
        loadAverage1m: Number((loadavg()[0] ?? 0).toFixed(2)),
        failedRuns: rounds.reduce((a, r) => a + r.failedRuns, 0),
        failureReasons: [...failureReasons].slice(0, 5),
        leaseSeconds: sizes.leaseSeconds,
      });
      await Promise.all(replicas.map((r) => r.stop()));
      replicas = [];
    }
  } finally {
    await Promise.all(replicas.map((r) => r.stop()));
    await pg.close();
    template.close();
    await child.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
