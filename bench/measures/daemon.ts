/**
 * The daemon bench: `obsync run` (the built CLI) as a child process against the bench sandbox
 * with N=100 dashboards and alerts. Measures file save → first write on the sandbox, against
 * the DESIGN's budget of debounce + 1 s, then heap and RSS over many runs (each run triggered
 * by a save that changes one dashboard), read from the daemon's own /metrics. The daemon listens on
 * port 0 and logs the address it bound.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchManifestsYaml } from '../fixtures.js';
import { connectInspector, inspectorUrl, type Inspector } from '../inspector.js';
import { defineMeasure, type BenchContext, type Result } from '../measure.js';
import { startChildSandbox, type ChildSandbox } from '../sandbox-process.js';
import { daemonUrl, followLines, until } from '../wait.js';

const DEBOUNCE_MS = 200;

export function touchDashboard(version: number): string {
  return `apiVersion: obsync/v1
kind: Dashboard
metadata: {name: touched}
spec:
  name: Touched
  tags: [v${version}]
  tiles: [{key: n, name: Count, x: 0, y: 0, w: 6, h: 3, config: {displayType: number, source: Logs, select: [{aggFn: count}]}}]
`;
}

export function daemonConfig(child: Pick<ChildSandbox, 'url' | 'credentials'>): string {
  return `apiVersion: obsync/v1
kind: Config
manifests: [manifests]
targets:
  - name: bench
    variant: self-hosted
    baseUrl: ${child.url}
    credentials: {apiKey: ${child.credentials.apiKey}}
    rateLimit: {requests: 10000, perSeconds: 1}
`;
}

function metric(text: string, name: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return Number(line?.split(' ')[1] ?? NaN);
}

export default defineMeasure({
  name: 'daemon',
  title: '`obsync run`: file save → first write, and heap after forced GC over many runs',
  tables: {
    'daemon-latency': ['n', 'saves', 'debounceMs', 'medianMs', 'maxMs', 'maxOverBudget'],
    'daemon-memory': ['n', 'runs', 'heapAfterGcStartMb', 'heapCheckpointsMb', 'heapEndOverStart', 'rssStartMb', 'rssEndMb'],
  },
  sizes: { full: { n: 100, runs: 1000, saves: 10 }, quick: { n: 100, runs: 100, saves: 5 }, smoke: { n: 5, runs: 8, saves: 2 } },
  async run(sizes, ctx) {
    for (const row of await daemonBench(sizes, ctx)) ctx.record(row);
  },
});

async function daemonBench(opts: { n: number; runs: number; saves: number }, ctx: BenchContext): Promise<Result[]> {
  const N = opts.n;
  const child = await startChildSandbox({ n: N, variant: 'self-hosted', rateLimit: 'off' });
  const dir = mkdtempSync(join(tmpdir(), 'obsync-bench-daemon-'));
  mkdirSync(join(dir, 'manifests'));
  writeFileSync(join(dir, 'obsync.yaml'), daemonConfig(child));
  for (const [name, text] of benchManifestsYaml(N, 'self-hosted')) writeFileSync(join(dir, 'manifests', name), text);
  const touched = join(dir, 'manifests', 'touched.yaml');
  writeFileSync(touched, touchDashboard(0));
  const daemon = spawn(
    process.execPath,
    ['--inspect=127.0.0.1:0', ctx.cli, 'run', '--listen', '127.0.0.1:0', '--debounce', String(DEBOUNCE_MS), '--schedule', '0 0 1 1 *'],
    { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let finished = 0;
  // The daemon logs to stderr, its address among the first lines; so does the inspector, once, with its own.
  const { head } = followLines(daemon.stderr, (l) => {
    if (l.includes('"msg":"run finished"')) finished += 1;
  });
  let inspector: Inspector | undefined;
  try {
    await until('the start-up run', () => (finished >= 1 ? true : undefined), 120_000);
    const url = await until('the address the daemon bound', () => daemonUrl(head()));
    const metrics = async () => (await fetch(`${url}/metrics`)).text();
    inspector = await connectInspector(await until('the inspector address', () => inspectorUrl(head())));
    let version = 0;
    const save = async () => {
      const before = finished;
      version += 1;
      writeFileSync(touched, touchDashboard(version));
      await until('a run after a save', () => (finished > before ? true : undefined));
    };

    const latencies: number[] = [];
    for (let i = 0; i < opts.saves; i++) {
      await child.clear();
      const savedAt = Date.now();
      const before = finished;
      version += 1;
      writeFileSync(touched, touchDashboard(version));
      const write = await until('the write of a save', async () => (await child.requests()).find((r) => r.method !== 'GET'));
      latencies.push(write.at - savedAt);
      await until('the run of a save', () => (finished > before ? true : undefined));
    }
    latencies.sort((a, b) => a - b);
    const max = latencies.at(-1) ?? NaN;
    const latency: Result = {
      measure: 'daemon-latency',
      n: N,
      saves: opts.saves,
      debounceMs: DEBOUNCE_MS,
      medianMs: latencies[Math.floor(latencies.length / 2)],
      maxMs: max,
      maxOverBudget: Number((max / (DEBOUNCE_MS + 1000)).toFixed(2)),
    };

    // Warm up (JIT, caches, first-time allocations), then compare the heap left after a forced
    // full GC at the start of the measured runs with the heap left after all of them.
    const warmUp = Math.min(50, Math.floor(opts.runs / 10));
    for (let i = 0; i < warmUp; i++) await save();
    const heapStart = await inspector.heapAfterGc();
    const rssStart = metric(await metrics(), 'process_resident_memory_bytes');
    // Checkpoints tell a leak (steady growth) from a one-off (growth that stops).
    const checkpoints: number[] = [];
    const every = Math.max(1, Math.floor(opts.runs / 4));
    for (let i = 1; i <= opts.runs; i++) {
      await save();
      if (i % every === 0 && i < opts.runs) checkpoints.push(await inspector.heapAfterGc());
    }
    const heapEnd = await inspector.heapAfterGc();
    const rssEnd = metric(await metrics(), 'process_resident_memory_bytes');
    const mb = (b: number) => Number((b / 1048576).toFixed(1));
    const memory: Result = {
      measure: 'daemon-memory',
      n: N,
      runs: opts.runs,
      heapAfterGcStartMb: mb(heapStart),
      heapAfterGcEndMb: mb(heapEnd),
      heapEndOverStart: Number((heapEnd / heapStart).toFixed(3)),
      heapCheckpointsMb: [...checkpoints, heapEnd].map(mb),
      rssStartMb: mb(rssStart),
      rssEndMb: mb(rssEnd),
    };
    return [latency, memory];
  } finally {
    inspector?.close();
    daemon.kill('SIGTERM');
    await new Promise((r) => daemon.once('exit', r));
    await child.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
