/**
 * The status server's cost (issue 25): `obsync run` (the built CLI) against the bench sandbox with
 * N=100 dashboards and alerts, runs triggered one after another by a save that changes one
 * dashboard (so each run emits events), in alternating blocks without and with 50 clients on
 * /api/events/stream. Reconciliation wall time is each run's own duration (its run-finished
 * event); the measure is median(with clients) ÷ median(without) (goal ≤ 1.05). Blocks alternate
 * ABBA so a slow drift of the machine's speed cancels out; use an even number of blocks, 4 or 8.
 */
import { spawn } from 'node:child_process';
import { request, type ClientRequest } from 'node:http';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchManifestsYaml } from '../fixtures.js';
import { defineMeasure, type BenchContext, type Result } from '../measure.js';
import { startChildSandbox } from '../sandbox-process.js';
import { until } from '../wait.js';

interface Sizes {
  /** Dashboards and alerts in the estate. */
  n: number;
  warmUp: number;
  runsPerBlock: number;
  /** Even: blocks go ABBA. */
  blocks: number;
  clients: number;
}

export default defineMeasure({
  name: 'status',
  title: "a daemon's run wall time with clients on /api/events/stream ÷ without",
  tables: { 'status-stream': ['n', 'clients', 'runsPerBlock', 'blocks', 'medianRunMsWithout', 'medianRunMsWith', 'withOverWithout'] },
  sizes: {
    full: { n: 100, warmUp: 15, runsPerBlock: 20, blocks: 8, clients: 50 },
    quick: { n: 100, warmUp: 15, runsPerBlock: 10, blocks: 4, clients: 50 },
    smoke: { n: 3, warmUp: 1, runsPerBlock: 1, blocks: 2, clients: 5 },
  } satisfies Record<string, Sizes>,
  async run(sizes, ctx) {
    for (const row of await statusBench(sizes, ctx)) ctx.record(row);
  },
});

const touched = (version: number) => `apiVersion: obsync/v1
kind: Dashboard
metadata: {name: touched}
spec:
  name: Touched
  tags: [v${version}]
  tiles: [{key: n, name: Count, x: 0, y: 0, w: 6, h: 3, config: {displayType: number, source: Logs, select: [{aggFn: count}]}}]
`;

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
}

/** Opens `n` event streams; resolves once every one is answered, with how many bytes they have read. */
async function openStreams(url: string, n: number): Promise<{ bytes: () => number; close: () => void }> {
  let bytes = 0;
  const requests: ClientRequest[] = [];
  await Promise.all(
    Array.from(
      { length: n },
      () =>
        new Promise<void>((done, fail) => {
          const req = request(`${url}/api/events/stream`, (res) => {
            if (res.statusCode !== 200) fail(new Error(`bench: the stream answered ${res.statusCode}`));
            res.on('data', (d: Buffer) => (bytes += d.length));
            res.on('error', () => undefined);
            done();
          });
          req.on('error', () => undefined);
          req.end();
          requests.push(req);
        }),
    ),
  );
  return { bytes: () => bytes, close: () => requests.forEach((r) => r.destroy()) };
}

async function statusBench(opts: Sizes, ctx: BenchContext): Promise<Result[]> {
  const { n: N, clients: CLIENTS } = opts;
  const child = await startChildSandbox({ n: N, variant: 'self-hosted', rateLimit: 'off' });
  const dir = mkdtempSync(join(tmpdir(), 'obsync-bench-status-'));
  mkdirSync(join(dir, 'manifests'));
  writeFileSync(
    join(dir, 'obsync.yaml'),
    `apiVersion: obsync/v1\nkind: Config\nmanifests: [manifests]\ntargets:\n  - name: bench\n    variant: self-hosted\n    baseUrl: ` +
      `${child.url}\n    credentials: {apiKey: ${child.credentials.apiKey}}\n    rateLimit: {requests: 10000, perSeconds: 1}\n`,
  );
  for (const [name, text] of benchManifestsYaml(N, 'self-hosted')) writeFileSync(join(dir, 'manifests', name), text);
  const file = join(dir, 'manifests', 'touched.yaml');
  writeFileSync(file, touched(0));
  const daemon = spawn(process.execPath, [ctx.cli, 'run', '--listen', '127.0.0.1:0', '--debounce', '50', '--schedule', '0 0 1 1 *'], {
    cwd: dir,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let log = '';
  const durations: number[] = [];
  daemon.stderr.on('data', (d: Buffer) => {
    log += d.toString();
    const lines = log.split('\n');
    log = lines.pop() ?? '';
    for (const line of lines) {
      const m = /"event":"run-finished".*"durationMs":(\d+)/.exec(line);
      if (m) durations.push(Number(m[1]));
      // The daemon's JSON log record that it serves: `{"url":"http://…/", "msg":"reconciling: …served"}`.
      const at = /"url":"(http:\/\/[^"]+?)\/?".*"msg":"reconciling: status page, health and metrics served"/.exec(line);
      if (at) url = at[1];
    }
  });
  let url: string | undefined;
  let version = 0;
  const run = async () => {
    const before = durations.length;
    writeFileSync(file, touched(++version));
    await until('a run after a save', () => (durations.length > before ? durations.at(-1) : undefined), 60_000);
    return durations.at(-1) ?? NaN;
  };
  try {
    const base = await until('the daemon to listen', () => url, 60_000);
    await until('the start-up run', () => (durations.length > 0 ? true : undefined), 120_000);
    for (let i = 0; i < opts.warmUp; i++) await run(); // warm-up
    const without: number[] = [];
    const withClients: number[] = [];
    let streamed = 0;
    for (let block = 0; block < opts.blocks; block++) {
      // ABBA order (without, with, with, without…): a drift over time (JIT, a busy machine) weighs on both sides alike.
      const streams = block % 4 === 1 || block % 4 === 2 ? await openStreams(base, CLIENTS) : undefined;
      for (let i = 0; i < opts.runsPerBlock; i++) (streams ? withClients : without).push(await run());
      streamed += streams?.bytes() ?? 0;
      streams?.close();
    }
    const ratio = Number((median(withClients) / Math.max(1, median(without))).toFixed(3));
    return [
      {
        measure: 'status-stream',
        n: N,
        clients: CLIENTS,
        runsPerBlock: opts.runsPerBlock,
        blocks: opts.blocks,
        medianRunMsWithout: median(without),
        medianRunMsWith: median(withClients),
        withOverWithout: ratio,
        bytesStreamed: streamed,
      },
    ];
  } finally {
    daemon.kill('SIGTERM');
    await new Promise((r) => daemon.once('exit', r));
    await child.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
