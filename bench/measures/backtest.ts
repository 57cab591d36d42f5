/**
 * `--only backtest` (issue 26): what a plan's backtests cost under the self-hosted variant's real
 * rate limit (100 requests per 60 s per key, enforced by the sandbox and paced by the client):
 * series requests and wall time per changed alert, and 429s (none expected). Each scenario gets
 * its own sandbox process (a fresh rate-limit window) seeded with N bench dashboards and alerts,
 * adopts them (the steady state), then plans K changed alerts with and without backtests.
 *
 * - `distinct`: K alerts whose tile query changes (each its own series) and whose threshold moves;
 * - `shared`: K alerts whose threshold moves on tiles that share one query (made once);
 * - `past the limit` (full run only): enough distinct alerts that the plan's requests spill into
 *   a second rate-limit window: the pacer waits instead of meeting 429s.
 */
import type { DesiredResource } from '../../src/core/resource.js';
import type { Pacing } from '../../src/core/target.js';
import { makePlan, applyPlanned, type PlanRequest } from '../../src/engine/run.js';
import { SELECT_ALL } from '../../src/engine/selection.js';
import { memoryInventory } from '../../src/inventory/memory-store.js';
import { createServicePort } from '../../src/remote/index.js';
import { benchManifests } from '../fixtures.js';
import { defineMeasure, type Result } from '../measure.js';
import { startChildSandbox } from '../sandbox-process.js';
import { benchTarget } from '../target.js';

const REAL: Pacing = { limit: 100, windowMs: 60_000 };
const NOW = new Date(Date.UTC(2026, 10, 26, 12));

interface Scenario {
  label: string;
  k: number;
  distinct: boolean;
  budget: number;
}

/** The first `k` alerts with a new threshold; with `distinct`, their tiles' queries changed too (one series each). */
function changed(desired: readonly DesiredResource[], k: number, distinct: boolean): DesiredResource[] {
  return desired.map((r) => {
    const i = Number(r.name.slice(1));
    if (!(i < k)) return r;
    const spec = r.spec as Record<string, unknown>;
    if (r.kind === 'Alert') return { ...r, spec: { ...spec, threshold: 150 + i } };
    if (r.kind !== 'Dashboard' || !distinct) return r;
    const tiles = (spec.tiles as Record<string, unknown>[]).map((t) =>
      t.key === 'lat'
        ? {
            ...t,
            config: { ...(t.config as object), select: [{ aggFn: 'avg', valueExpression: 'Duration', where: `ServiceName:svc-${i}` }] },
          }
        : t,
    );
    return { ...r, spec: { ...spec, tiles } };
  });
}

async function scenario(s: Scenario, n: number): Promise<Result> {
  const child = await startChildSandbox({ n, variant: 'self-hosted', rateLimit: { selfHosted: REAL } });
  const port = createServicePort(benchTarget('self-hosted', child, REAL));
  const req: PlanRequest = {
    port,
    inventory: memoryInventory('bench'),
    desired: benchManifests(n, 'self-hosted'),
    selection: SELECT_ALL,
    prune: false,
    maxDeletes: 0,
  };
  await applyPlanned(await makePlan(req), { port, inventory: req.inventory, concurrency: 8 });
  const desired = changed(req.desired, s.k, s.distinct);
  await child.clear();
  const t0 = performance.now();
  await makePlan({ ...req, desired });
  const t1 = performance.now();
  const planRequests = (await child.requests()).length;
  const withBacktest = await makePlan({
    ...req,
    desired,
    backtest: { windowMs: 7 * 86_400_000, window: '7d', budget: s.budget, perAlert: 10, now: NOW },
  });
  const t2 = performance.now();
  const log = await child.requests();
  const series = log.filter((r) => r.path.endsWith('/charts/series'));
  const run = withBacktest.plan.backtest;
  const alerts = withBacktest.plan.steps.filter((st) => st.kind === 'Alert' && st.action === 'update');
  await port.close();
  await child.close();
  return {
    measure: 'backtest',
    label: s.label,
    n,
    k: s.k,
    window: '7d',
    limit: `${REAL.limit}/${REAL.windowMs / 1000}s`,
    budget: s.budget,
    changedAlerts: alerts.length,
    evaluated: alerts.filter((a) => a.backtest?.status === 'ok').length,
    skipped: run?.skipped ?? null,
    seriesRequests: series.length,
    deduplicated: run?.deduplicated ?? null,
    requestsPerAlert: Number((series.length / Math.max(1, alerts.length)).toFixed(2)),
    planMs: Math.round(t1 - t0),
    planWithBacktestMs: Math.round(t2 - t1),
    backtestMsPerAlert: Math.round((withBacktest.timings.backtestMs / Math.max(1, alerts.length)) * 10) / 10,
    throttled429: log.filter((r) => r.status === 429).length,
    planRequests,
  };
}

/** Each scenario's estate: N dashboards, each with its alert. */
const N = 20;

export default defineMeasure({
  name: 'backtest',
  title: "a plan's backtests under the real self-hosted limit: series requests and time per changed alert, 429s",
  tables: {
    backtest: [
      'label',
      'k',
      'limit',
      'budget',
      'changedAlerts',
      'evaluated',
      'seriesRequests',
      'deduplicated',
      'requestsPerAlert',
      'planMs',
      'planWithBacktestMs',
      'backtestMsPerAlert',
      'throttled429',
    ],
  },
  sizes: {
    full: [
      { label: 'distinct', k: 8, distinct: true, budget: 60 },
      { label: 'shared', k: 20, distinct: false, budget: 60 },
      { label: 'past the limit', k: 20, distinct: true, budget: 120 },
    ],
    quick: [
      { label: 'distinct', k: 4, distinct: true, budget: 40 },
      { label: 'shared', k: 10, distinct: false, budget: 40 },
    ],
    smoke: [
      { label: 'distinct', k: 1, distinct: true, budget: 10 },
      { label: 'shared', k: 2, distinct: false, budget: 10 },
    ],
  } satisfies Record<string, Scenario[]>,
  async run(scenarios, ctx) {
    for (const s of scenarios) ctx.record(await scenario(s, N));
  },
});
