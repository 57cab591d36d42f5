/**
 * The multi-target bench (issue 16): one `obsync run` (the built CLI, a child process) serving T
 * self-hosted targets of N dashboards and N alerts each (200 objects at N=100), on one sandbox
 * process where each target is a team with its own API key and therefore its own real rate
 * limit (100 requests per 60 s fixed window, per key — the self-hosted API's shape). A round is
 * a change of a file every target reads; it ends when every target has finished its run.
 *
 * - wall ÷ floor: from the first request of the start-up runs to the end of the last round,
 *   against the slowest target's rate-limit floor for the requests it made, (⌈R / 100⌉ − 1) ×
 *   60 s (the first window is free). Near 1 means the targets never waited for each other and
 *   obsync's pacing lost no time to the limit; 429s are counted.
 * - heap: after a forced full GC, after the warm-up rounds and after the last, with checkpoints.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchDocuments, benchManifestsYaml, teamKey } from '../fixtures.js';
import { connectInspector, inspectorUrl, type Inspector } from '../inspector.js';
import { defineMeasure, type BenchContext, type Result } from '../measure.js';
import { startChildSandbox, type ChildSandbox } from '../sandbox-process.js';
import { followLines, until } from '../wait.js';

const DEBOUNCE_MS = 50;
/** The self-hosted API's published limit, per key (DESIGN §1), enforced by the sandbox. */
const PUBLISHED = { requests: 100, windowMs: 60_000 };

interface Sizes {
  targets: number;
  rounds: number;
  warmUp: number;
  /** Objects per kind and target. */
  n: number;
  /** The limit per key: the published one, or (smoke) a scaled one with the same shape. */
  limit: { requests: number; windowMs: number };
}

export default defineMeasure({
  name: 'multitarget',
  title: 'one daemon, many targets under per-key limits: wall ÷ the slowest target floor, heap over rounds',
  tables: {
    multitarget: [
      'targets',
      'objectsPerTarget',
      'rounds',
      'limit',
      'requestsPerTarget',
      'wallS',
      'floorS',
      'wallOverFloor',
      'roundMedianMs',
      'throttled429',
      'failedRuns',
      'heapAfterGcStartMb',
      'heapCheckpointsMb',
      'heapEndOverStart',
    ],
  },
  sizes: {
    full: { targets: 20, rounds: 100, warmUp: 10, n: 100, limit: PUBLISHED },
    quick: { targets: 5, rounds: 30, warmUp: 5, n: 100, limit: PUBLISHED },
    smoke: { targets: 2, rounds: 3, warmUp: 1, n: 3, limit: { requests: 10, windowMs: 1_000 } },
  } satisfies Record<string, Sizes>,
  async run(sizes, ctx) {
    for (const row of await multitargetBench(sizes, ctx)) ctx.record(row);
  },
});

function config(child: ChildSandbox, targets: number, limit: Sizes['limit']): string {
  const lines = ['apiVersion: obsync/v1', 'kind: Config', 'manifests: [manifests]', 'targets:'];
  // The published limit: each target paces itself by the variant's own; a scaled one is configured.
  const pacing = limit === PUBLISHED ? '' : `, rateLimit: {requests: ${limit.requests}, perSeconds: ${limit.windowMs / 1000}}`;
  for (let i = 1; i <= targets; i++) {
    lines.push(
      `  - {name: t${String(i).padStart(2, '0')}, variant: self-hosted, baseUrl: "${child.url}", credentials: {apiKey: ` +
        `${teamKey(i)}}${pacing}}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

interface RunLine {
  target: string;
  result: string;
  durationMs: number;
  requests: number;
  /** When it finished (epoch ms; the log's ISO time). */
  time: number;
}

/** The daemon's `run finished` log lines, per target. */
class Runs {
  readonly byTarget = new Map<string, RunLine[]>();
  add(line: string): void {
    if (!line.includes('"msg":"run finished"')) return;
    const parsed = JSON.parse(line) as Omit<RunLine, 'time'> & { time: string };
    const run: RunLine = { ...parsed, time: Date.parse(parsed.time) };
    const list = this.byTarget.get(run.target) ?? [];
    list.push(run);
    this.byTarget.set(run.target, list);
  }
  /** Targets with at least `count` finished runs. */
  done(count: number): number {
    return [...this.byTarget.values()].filter((l) => l.length >= count).length;
  }
}

async function multitargetBench(opts: Sizes, ctx: BenchContext): Promise<Result[]> {
  const { n: N, limit: LIMIT } = opts;
  const child = await startChildSandbox({
    n: N,
    variant: 'self-hosted',
    rateLimit: { selfHosted: { limit: LIMIT.requests, windowMs: LIMIT.windowMs } },
    teams: opts.targets,
  });
  const dir = mkdtempSync(join(tmpdir(), 'obsync-bench-multitarget-'));
  mkdirSync(join(dir, 'manifests'));
  writeFileSync(join(dir, 'obsync.yaml'), config(child, opts.targets, LIMIT));
  for (const [name, text] of benchManifestsYaml(N, 'self-hosted')) writeFileSync(join(dir, 'manifests', name), text);
  const marker = join(dir, 'manifests', 'round.yaml');
  writeFileSync(marker, '# round 0\n');
  const daemon = spawn(
    process.execPath,
    ['--inspect=127.0.0.1:0', ctx.cli, 'run', '--listen', '127.0.0.1:0', '--debounce', String(DEBOUNCE_MS), '--schedule', '0 0 1 1 *'],
    { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  const runs = new Runs();
  const { head } = followLines(daemon.stderr, (l) => runs.add(l));
  let inspector: Inspector | undefined;
  try {
    await until('the start-up runs', () => (runs.done(1) === opts.targets ? true : undefined), 600_000);
    inspector = await connectInspector(await until('the inspector address', () => inspectorUrl(head()), 10_000));
    const roundMs: number[] = [];
    const round = async (r: number) => {
      const t0 = performance.now();
      writeFileSync(marker, `# round ${r}\n`);
      await until(`round ${r}`, () => (runs.done(r + 1) === opts.targets ? true : undefined), 600_000);
      roundMs.push(performance.now() - t0);
    };
    for (let r = 1; r <= opts.warmUp; r++) await round(r);
    const heapStart = await inspector.heapAfterGc();
    const checkpoints: number[] = [];
    const every = Math.max(1, Math.floor((opts.rounds - opts.warmUp) / 4));
    for (let r = opts.warmUp + 1; r <= opts.rounds; r++) {
      await round(r);
      if ((r - opts.warmUp) % every === 0 && r < opts.rounds) checkpoints.push(await inspector.heapAfterGc());
    }
    const heapEnd = await inspector.heapAfterGc();

    const all = [...runs.byTarget.values()];
    const start = Math.min(...all.map((l) => (l[0] ? l[0].time - l[0].durationMs : Infinity)));
    const end = Math.max(...all.map((l) => l.at(-1)?.time ?? 0));
    const requests = all.map((l) => l.reduce((sum, run) => sum + run.requests, 0));
    const maxRequests = Math.max(...requests);
    const floorMs = (Math.ceil(maxRequests / LIMIT.requests) - 1) * LIMIT.windowMs;
    const log = await child.requests();
    const sorted = [...roundMs].sort((a, b) => a - b);
    const mb = (b: number) => Number((b / 1048576).toFixed(1));
    return [
      {
        measure: 'multitarget',
        targets: opts.targets,
        objectsPerTarget: benchDocuments(N, 'self-hosted').length,
        rounds: opts.rounds,
        limit: `${LIMIT.requests}/${LIMIT.windowMs / 1000}s per key`,
        requestsPerTarget: maxRequests,
        failedRuns: all.flat().filter((run) => run.result !== 'success').length,
        wallS: Number(((end - start) / 1000).toFixed(1)),
        floorS: floorMs / 1000,
        wallOverFloor: floorMs > 0 ? Number(((end - start) / floorMs).toFixed(3)) : null,
        roundMedianMs: Math.round(sorted[Math.floor(sorted.length / 2)] ?? NaN),
        roundMaxMs: Math.round(sorted.at(-1) ?? NaN),
        throttled429: log.filter((q) => q.status === 429).length,
        heapAfterGcStartMb: mb(heapStart),
        heapAfterGcEndMb: mb(heapEnd),
        heapEndOverStart: Number((heapEnd / heapStart).toFixed(3)),
        heapCheckpointsMb: [...checkpoints, heapEnd].map(mb),
      },
    ];
  } finally {
    inspector?.close();
    daemon.kill('SIGTERM');
    await new Promise((r) => daemon.once('exit', r));
    await child.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
