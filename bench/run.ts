/**
 * `npm run bench [-- --quick]`: plan and apply cost against the sandbox on loopback, reported as
 * ratios measured in one run (the machines are noisy): requests per plan vs N, plan CPU ÷ the
 * CPU to merely parse+validate the same live JSON, apply wall time ÷ the rate-limit floor, 429s,
 * peak RSS, and memory growth over many reconcile passes. Writes bench/results.json.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as z from 'zod';
import type { DesiredResource } from '../src/core/resource.js';
import { Secret } from '../src/core/secret.js';
import type { Target } from '../src/core/target.js';
import { wireAlert, wireDashboard } from '../src/core/wire.js';
import { applyPlanned, makePlan } from '../src/engine/run.js';
import { SELECT_ALL } from '../src/engine/selection.js';
import { memoryInventory } from '../src/inventory/memory-store.js';
import { alertSpecSchema } from '../src/kinds/alert/schema.js';
import { dashboardSpecSchema } from '../src/kinds/dashboard/schema.js';
import { SENSITIVE_PATHS } from '../src/kinds/sensitive-paths.js';
import { createServicePort } from '../src/remote/index.js';
import { createObservabilityDomain } from '../src/sandbox/domain/index.js';
import { startSandbox, type SandboxHandle } from '../src/sandbox/index.js';

const quick = process.argv.includes('--quick');
const SIZES = quick ? [100, 1000] : [100, 1000, 10000];
const results: Record<string, unknown>[] = [];

function desired(n: number): DesiredResource[] {
  const out: DesiredResource[] = [];
  for (let i = 0; i < n; i++) {
    const spec = dashboardSpecSchema.parse({
      name: `Bench ${i}`,
      tags: ['bench'],
      tiles: [
        { key: 'lat', name: 'Latency', x: 0, y: 0, w: 8, h: 4, config: { displayType: 'line', source: 'Traces', select: [{ aggFn: 'avg', valueExpression: 'Duration' }] } },
        { key: 'err', name: 'Errors', x: 8, y: 0, w: 8, h: 4, config: { displayType: 'number', source: 'Logs', select: [{ aggFn: 'count', where: 'level:error' }] } },
        { key: 'tbl', name: 'Endpoints', x: 16, y: 0, w: 8, h: 4, config: { displayType: 'table', source: 'Traces', select: [{ aggFn: 'count' }], groupBy: 'SpanName' } },
      ],
    });
    out.push({ kind: 'Dashboard', name: `b${i}`, address: `Dashboard/b${i}`, labels: {}, spec, source: { file: 'bench', line: 1, col: 1 } });
    const alert = alertSpecSchema.parse({ dashboard: `b${i}`, tile: 'lat', threshold: 100, thresholdType: 'above', interval: '5m', channel: { type: 'webhook', webhook: 'ops-slack' }, name: `b${i} slow` });
    out.push({ kind: 'Alert', name: `a${i}`, address: `Alert/a${i}`, labels: {}, spec: alert, source: { file: 'bench', line: 1, col: 1 } });
  }
  return out;
}

/** Seeds the sandbox's self-hosted store in-process (fast), then serves it over HTTP. */
async function seeded(n: number, rateLimit: 'off' | 'real'): Promise<{ sandbox: SandboxHandle; dir: string; desired: DesiredResource[] }> {
  const dir = mkdtempSync(join(tmpdir(), 'obsync-bench-'));
  const domain = createObservabilityDomain({ seed: 'demo' });
  const want = desired(n);
  const { inProcessPort } = await import('../src/sandbox/in-process-port.js');
  const port = inProcessPort(domain, 'self-hosted', 'seed');
  const inventory = memoryInventory('seed');
  await applyPlanned(await makePlan({ port, inventory, desired: want, sensitive: SENSITIVE_PATHS, selection: SELECT_ALL, prune: false, maxDeletes: 0 }), { port, inventory, backupDir: dir, concurrency: 8 });
  writeFileSync(join(dir, 'observability-selfhosted.json'), JSON.stringify(domain.snapshot()));
  const sandbox = await startSandbox({ port: 0, dataDir: dir, rateLimit });
  return { sandbox, dir, desired: want };
}

function target(sandbox: SandboxHandle, pacing: { limit: number; windowMs: number }): Target {
  return { name: 'bench', variant: 'self-hosted', baseUrl: sandbox.url, apiKey: new Secret(sandbox.credentials.apiKey), concurrency: 8, timeoutMs: 60_000, retries: 3, pacing, embedded: false };
}

function cpuMs(f: () => void): number {
  const t0 = process.cpuUsage();
  f();
  const d = process.cpuUsage(t0);
  return (d.user + d.system) / 1000;
}

async function planBench(n: number): Promise<void> {
  const { sandbox, dir, desired: want } = await seeded(n, 'off');
  const port = createServicePort(target(sandbox, { limit: 0, windowMs: 1 }));
  const inventory = memoryInventory('bench');
  const args = { port, inventory, desired: want, sensitive: SENSITIVE_PATHS, selection: SELECT_ALL, prune: false, maxDeletes: 0 };
  await makePlan(args); // warm-up (JIT)
  sandbox.clearRequests();
  const c0 = process.cpuUsage();
  const planned = await makePlan(args);
  const c1 = process.cpuUsage(c0);
  const planCpu = (c1.user + c1.system) / 1000;
  const requests = sandbox.requests().length;
  // The floor: parse and validate the same live JSON, no planning.
  const headers = { authorization: `Bearer ${sandbox.credentials.apiKey}` };
  const dashText = await (await fetch(`${sandbox.url}/api/v2/dashboards`, { headers })).text();
  const alertPages: string[] = [];
  for (let offset = 0; offset < n; offset += 1000) alertPages.push(await (await fetch(`${sandbox.url}/api/v2/alerts?limit=1000&offset=${offset}`, { headers })).text());
  const parseCpu = cpuMs(() => {
    z.array(wireDashboard).parse((JSON.parse(dashText) as { data: unknown }).data);
    for (const page of alertPages) z.array(wireAlert).parse((JSON.parse(page) as { data: unknown }).data);
  });
  const changes = planned.plan.steps.filter((s) => s.action !== 'noop').length;
  results.push({ measure: 'plan', variant: 'self-hosted', n, requests, planCpuMs: Math.round(planCpu), parseCpuMs: Math.round(parseCpu), planOverParse: Number((planCpu / Math.max(parseCpu, 0.1)).toFixed(2)), changes, maxRssMb: Math.round(process.resourceUsage().maxRSS / 1024) });
  await port.close();
  await sandbox.close();
  rmSync(dir, { recursive: true, force: true });
}

async function applyBench(n: number, k: number, limit: { limit: number; windowMs: number }, label: string): Promise<void> {
  const { sandbox, dir, desired: want } = await seeded(n, 'off');
  await sandbox.close();
  const limited = await startSandbox({ port: 0, dataDir: dir, rateLimit: { selfHosted: limit, hosted: null } });
  const port = createServicePort(target(limited, limit));
  const inventory = memoryInventory('bench');
  // Adopt everything, then change k dashboards.
  const args = { port, inventory, desired: want, sensitive: SENSITIVE_PATHS, selection: SELECT_ALL, prune: false, maxDeletes: 0 };
  await applyPlanned(await makePlan(args), { port, inventory, backupDir: dir, concurrency: 8 });
  const changed = want.map((r, i) => (r.kind === 'Dashboard' && i / 2 < k ? { ...r, spec: { ...(r.spec as object), tags: ['bench', 'changed'] } } : r));
  await new Promise((r) => setTimeout(r, limit.windowMs)); // start from a fresh window
  limited.clearRequests();
  const t0 = performance.now();
  const report = await applyPlanned(await makePlan({ ...args, desired: changed }), { port, inventory, backupDir: dir, concurrency: 8 });
  const wall = performance.now() - t0;
  const requests = limited.requests().length;
  const floorMs = Math.max(0, (requests - limit.limit) / limit.limit) * limit.windowMs;
  results.push({ measure: 'apply', label, variant: 'self-hosted', n, k, limit, requests, applied: report.summary.applied, wallMs: Math.round(wall), floorMs: Math.round(floorMs), wallOverFloor: floorMs > 0 ? Number((wall / floorMs).toFixed(2)) : null, throttled429: limited.requests().filter((r) => r.status === 429).length, maxRssMb: Math.round(process.resourceUsage().maxRSS / 1024) });
  await port.close();
  await limited.close();
  rmSync(dir, { recursive: true, force: true });
}

async function memoryBench(runs: number): Promise<void> {
  const { sandbox, dir, desired: want } = await seeded(100, 'off');
  const port = createServicePort(target(sandbox, { limit: 0, windowMs: 1 }));
  const inventory = memoryInventory('bench');
  const args = { port, inventory, desired: want, sensitive: SENSITIVE_PATHS, selection: SELECT_ALL, prune: false, maxDeletes: 0 };
  const pass = async () => applyPlanned(await makePlan(args), { port, inventory, backupDir: dir, concurrency: 8 });
  for (let i = 0; i < 20; i++) await pass();
  global.gc?.();
  const before = process.memoryUsage().heapUsed;
  for (let i = 0; i < runs; i++) await pass();
  global.gc?.();
  const after = process.memoryUsage().heapUsed;
  results.push({ measure: 'memory-over-runs', n: 100, runs, heapBeforeMb: Math.round(before / 1048576), heapAfterMb: Math.round(after / 1048576), afterOverBefore: Number((after / before).toFixed(2)), gcExposed: typeof global.gc === 'function' });
  await port.close();
  await sandbox.close();
  rmSync(dir, { recursive: true, force: true });
}

for (const n of SIZES) await planBench(n);
await applyBench(100, 30, { limit: 10, windowMs: 2_000 }, 'variant-shaped limit, scaled window');
if (!quick) await applyBench(1000, 200, { limit: 50, windowMs: 1_000 }, 'faster configured limit');
await memoryBench(quick ? 200 : 1000);

writeFileSync(join(import.meta.dirname, '../../bench/results.json'), JSON.stringify({ machine: { node: process.version, cpus: (await import('node:os')).cpus().length, platform: process.platform }, quick, results }, null, 2) + '\n');
for (const r of results) console.log(JSON.stringify(r));
