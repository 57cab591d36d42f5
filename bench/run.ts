/**
 * `npm run bench [-- --quick] [-- --profile]`: obsync's cost against the sandbox on loopback,
 * reported as ratios measured in one run (the machines are noisy). The sandbox runs in a child
 * process, so CPU figures count obsync alone. Writes bench/results.json and prints a table.
 *
 * - plan: requests per plan vs N; plan CPU ÷ CPU to merely parse+validate the same responses;
 * - apply: apply-phase wall time ÷ (K writes ÷ limit); plan+apply ÷ the fixed-window floor of all requests; 429s;
 * - memory: heap after many reconcile passes ÷ before;
 * - daemon: file save → first write on the sandbox against debounce + 1 s; heap after a forced GC before and after 1,000 runs;
 * - startup: `obsync --help` and `obsync validate config-examples` against `node -e 0`;
 * - multitarget: one daemon, 20 targets of 200 objects under real per-key limits: round wall ÷ the slowest target's floor; heap over 100 rounds;
 * - status: a daemon's run wall time with 50 clients on /api/events/stream ÷ without (bench/status.ts);
 * - backtest: a plan's backtests under the real self-hosted limit: series requests and time per changed alert, 429s.
 *
 * `--only GROUP` keeps the other groups' rows of bench/results.json and replaces that group's.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import type { Variant } from '../src/core/ports.js';
import type { Pacing } from '../src/core/target.js';
import { applyPlanned, makePlan, type PlanRequest } from '../src/engine/run.js';
import { SELECT_ALL } from '../src/engine/selection.js';
import { memoryInventory } from '../src/inventory/memory-store.js';
import { createServicePort } from '../src/remote/index.js';
import { daemonBench } from './daemon.js';
import { multitargetBench } from './multitarget.js';
import { benchManifests, withChangedDashboards } from './fixtures.js';
import { fastest, parseFloorCpuMs, SAMPLES } from './parse-floor.js';
import { profilePlan } from './profile.js';
import { benchTarget, startChildSandbox } from './sandbox-process.js';
import { cpuMs, peakRss, printTable, type Result } from './measure.js';
import { scrubBench } from './scrub.js';
import { startupBench } from './startup.js';
import { statusBench } from './status.js';
import { backtestBench } from './backtest.js';

const quick = process.argv.includes('--quick');
const profile = process.argv.includes('--profile');
/** `--only plan|apply|memory|daemon|startup|multitarget|status|backtest|scrub`: one group of measurements. */
const only = process.argv[process.argv.indexOf('--only') + 1];
const wanted = (group: string) => !process.argv.includes('--only') || only === group;
const SIZES = quick ? [100, 1000] : [100, 1000, 10000];
const VARIANTS: Variant[] = ['self-hosted', 'hosted'];
const NO_PACING: Pacing = { limit: 0, windowMs: 1 };
const results: Result[] = [];
const record = (r: Result) => {
  results.push(r);
  console.error(JSON.stringify(r));
};

function planRequest(port: PlanRequest['port'], n: number): PlanRequest {
  return { port, inventory: memoryInventory('bench'), desired: benchManifests(n), selection: SELECT_ALL, prune: false, maxDeletes: 0 };
}

async function planBench(variant: Variant, n: number): Promise<void> {
  const child = await startChildSandbox({ n, variant, rateLimit: 'off' });
  const target = benchTarget(variant, child, NO_PACING);
  const port = createServicePort(target);
  const req = planRequest(port, n);
  // Steady state, the daemon's every run: the inventory owns every object (adopting them writes nothing).
  await applyPlanned(await makePlan(req), { port, inventory: req.inventory, concurrency: 8 });
  await makePlan(req); // warm-up: JIT and connections
  const samples: number[] = [];
  let planned: Awaited<ReturnType<typeof makePlan>> | undefined;
  const rss = peakRss();
  for (let i = 0; i < SAMPLES; i++) {
    await child.clear();
    global.gc?.();
    const run = await cpuMs(() => makePlan(req));
    samples.push(run.ms);
    planned = run.value;
  }
  const peak = rss.stop();
  const planCpu = fastest(samples);
  const log = await child.requests();
  const parseCpu = await parseFloorCpuMs(target, child.url, log);
  record({
    measure: 'plan',
    variant,
    n,
    requests: log.length,
    planCpuMs: Math.round(planCpu),
    planCpuSamplesMs: samples.map(Math.round),
    parseCpuMs: Math.round(parseCpu),
    planOverParse: ratio(planCpu, parseCpu),
    changes: planned?.plan.steps.filter((s) => s.action !== 'noop').length,
    owned: req.inventory.entries().length,
    peakRssMb: peak,
  });
  if (profile && n === SIZES.at(-1))
    record(
      await profilePlan(() => makePlan(req), join(import.meta.dirname, `../../bench/plan-${variant}-${n}.cpuprofile`), { variant, n }),
    );
  await port.close();
  await child.close();
}

/** Adopts N objects, then applies K changed dashboards under `limit`, starting on a fresh window. */
async function applyBench(variant: Variant, n: number, k: number, limit: Pacing, label: string): Promise<void> {
  const child = await startChildSandbox({ n, variant, rateLimit: variant === 'hosted' ? { hosted: limit } : { selfHosted: limit } });
  const port = createServicePort(benchTarget(variant, child, limit));
  const req = planRequest(port, n);
  await applyPlanned(await makePlan(req), { port, inventory: req.inventory, concurrency: 8 });
  const changed = withChangedDashboards(req.desired, k);
  await new Promise((r) => setTimeout(r, limit.windowMs + 50));
  await child.clear();
  const rss = peakRss();
  const t0 = performance.now();
  const planned = await makePlan({ ...req, desired: changed });
  const t1 = performance.now();
  const report = await applyPlanned(planned, { port, inventory: req.inventory, concurrency: 8 });
  const wall = performance.now() - t1;
  const total = performance.now() - t0;
  const peak = rss.stop();
  const log = await child.requests();
  const writes = log.filter((r) => r.method !== 'GET').length;
  // The apply phase against K writes at limit/window: the DESIGN's floor. The stricter one: the
  // whole run (plan and apply) against every request through the server's fixed window, whose
  // first window is free.
  const writeFloorMs = (writes / limit.limit) * limit.windowMs;
  const windowFloorMs = (Math.ceil(log.length / limit.limit) - 1) * limit.windowMs;
  record({
    measure: 'apply',
    label,
    variant,
    n,
    k,
    limit: `${limit.limit}/${limit.windowMs / 1000}s`,
    requests: log.length,
    writes,
    applied: report.summary.applied,
    planMs: Math.round(t1 - t0),
    applyMs: Math.round(wall),
    applyOverWriteFloor: ratio(wall, writeFloorMs),
    totalOverWindowFloor: windowFloorMs > 0 ? ratio(total, windowFloorMs) : null,
    throttled429: log.filter((r) => r.status === 429).length,
    peakRssMb: peak,
  });
  await port.close();
  await child.close();
}

async function memoryBench(runs: number): Promise<void> {
  const child = await startChildSandbox({ n: 100, variant: 'self-hosted', rateLimit: 'off' });
  const port = createServicePort(benchTarget('self-hosted', child, NO_PACING));
  const req = planRequest(port, 100);
  const pass = async () => applyPlanned(await makePlan(req), { port, inventory: req.inventory, concurrency: 8 });
  for (let i = 0; i < 20; i++) await pass();
  global.gc?.();
  const before = process.memoryUsage().heapUsed;
  for (let i = 0; i < runs; i++) await pass();
  global.gc?.();
  const after = process.memoryUsage().heapUsed;
  record({
    measure: 'memory-over-passes',
    n: 100,
    runs,
    heapBeforeMb: mb(before),
    heapAfterMb: mb(after),
    afterOverBefore: ratio(after, before),
    gcExposed: typeof global.gc === 'function',
  });
  await port.close();
  await child.close();
}

function ratio(a: number, b: number): number {
  return Number((a / Math.max(b, 0.001)).toFixed(2));
}

function mb(bytes: number): number {
  return Math.round(bytes / 1048576);
}

if (wanted('plan')) for (const variant of VARIANTS) for (const n of SIZES) await planBench(variant, n);
// The published limits are 100/60 s (self-hosted) and 10/10 s (hosted); quick runs keep their
// shape with shorter windows, full runs also apply under the real hosted limit and, for the
// large N, under a faster configured limit.
if (wanted('apply')) {
  await applyBench('self-hosted', 100, 30, { limit: 10, windowMs: 2_000 }, 'scaled window');
  await applyBench('hosted', 100, 30, { limit: 10, windowMs: 2_000 }, 'scaled window');
}
if (wanted('apply') && !quick) {
  await applyBench('hosted', 100, 30, { limit: 10, windowMs: 10_000 }, 'real hosted limit');
  await applyBench('self-hosted', 200, 150, { limit: 100, windowMs: 60_000 }, 'real self-hosted limit');
  await applyBench('self-hosted', 10000, 500, { limit: 100, windowMs: 1_000 }, 'faster configured limit');
}
if (wanted('memory')) await memoryBench(quick ? 200 : 1000);
if (wanted('daemon')) for (const r of await daemonBench({ runs: quick ? 100 : 1000, saves: quick ? 5 : 10 })) record(r);

if (wanted('multitarget'))
  for (const r of await multitargetBench(quick ? { targets: 5, rounds: 30, warmUp: 5 } : { targets: 20, rounds: 100, warmUp: 10 }))
    record(r);

if (wanted('status'))
  for (const r of await statusBench(quick ? { runsPerBlock: 10, blocks: 4 } : { runsPerBlock: 20, blocks: 8 })) record(r);

if (wanted('backtest')) for (const r of await backtestBench(quick)) record(r);

if (wanted('startup')) for (const r of startupBench(join(import.meta.dirname, '../..'), quick ? 15 : 40, quick)) record(r);
if (wanted('scrub')) for (const r of scrubBench(quick)) record(r);

const machine = { node: process.version, cpus: cpus().length, cpuModel: cpus()[0]?.model ?? 'unknown', platform: process.platform };
const resultsFile = join(import.meta.dirname, '../../bench/results.json');
/** With --only, the rows of the groups that did not run are kept from the last results (and its `quick`, which describes them). */
function previousResults(): { quick?: boolean; results: Result[] } {
  if (!process.argv.includes('--only') || !existsSync(resultsFile)) return { results: [] };
  const measured = new Set(results.map((r) => r.measure));
  const previous = JSON.parse(readFileSync(resultsFile, 'utf8')) as { quick?: boolean; results?: Result[] };
  return {
    ...(previous.quick === undefined ? {} : { quick: previous.quick }),
    results: (previous.results ?? []).filter((r) => !measured.has(r.measure)),
  };
}
const kept = previousResults();
const all = [...kept.results, ...results];
writeFileSync(
  resultsFile,
  JSON.stringify({ machine, quick: kept.quick ?? quick, date: new Date().toISOString().slice(0, 10), results: all }, null, 2) + '\n',
);
printTable(machine, all);
