/**
 * apply: K changed dashboards of an adopted estate applied under a rate limit of R requests per
 * window, from a fresh window: the apply phase ÷ K/R (the DESIGN's target: ≤ 1.1), the whole run
 * (plan and apply) ÷ the server's fixed-window floor for every request it made, and the 429s.
 * Quick and smoke runs keep the shape with shorter windows; the full run also applies under the
 * real hosted and self-hosted limits and, for a large N, under a faster configured limit.
 */
import type { Variant } from '../../src/core/ports.js';
import type { Pacing } from '../../src/core/target.js';
import { applyPlanned, makePlan } from '../../src/engine/run.js';
import { adoptedEstate } from '../estate.js';
import { withChangedDashboards } from '../fixtures.js';
import { defineMeasure, peakRss, ratio, type BenchContext } from '../measure.js';

interface Case {
  label: string;
  variant: Variant;
  n: number;
  k: number;
  limit: Pacing;
}

const scaled = (variant: Variant, n: number, k: number, limit: Pacing = { limit: 10, windowMs: 2_000 }): Case => ({
  label: 'scaled window',
  variant,
  n,
  k,
  limit,
});

export default defineMeasure({
  name: 'apply',
  title: 'K writes under a rate limit: apply ÷ K/R, plan+apply ÷ the fixed-window floor, 429s',
  tables: {
    apply: [
      'variant',
      'label',
      'n',
      'k',
      'limit',
      'requests',
      'planMs',
      'applyMs',
      'applyOverWriteFloor',
      'totalOverWindowFloor',
      'throttled429',
      'peakRssMb',
    ],
  },
  sizes: {
    full: [
      scaled('self-hosted', 100, 30),
      scaled('hosted', 100, 30),
      { label: 'real hosted limit', variant: 'hosted', n: 100, k: 30, limit: { limit: 10, windowMs: 10_000 } },
      { label: 'real self-hosted limit', variant: 'self-hosted', n: 200, k: 150, limit: { limit: 100, windowMs: 60_000 } },
      { label: 'faster configured limit', variant: 'self-hosted', n: 10000, k: 500, limit: { limit: 100, windowMs: 1_000 } },
    ] as Case[],
    quick: [scaled('self-hosted', 100, 30), scaled('hosted', 100, 30)],
    // Few requests: a smaller window keeps the whole-run floor above zero.
    smoke: [scaled('self-hosted', 5, 3, { limit: 4, windowMs: 1_000 }), scaled('hosted', 5, 3, { limit: 4, windowMs: 1_000 })],
  },
  async run(cases, ctx) {
    for (const c of cases) await applyCase(c, ctx);
  },
});

/** Adopts N objects, then applies K changed dashboards under the limit, starting on a fresh window. */
async function applyCase({ label, variant, n, k, limit }: Case, ctx: BenchContext): Promise<void> {
  const rateLimit = variant === 'hosted' ? { hosted: limit } : { selfHosted: limit };
  const estate = await adoptedEstate(variant, n, { rateLimit, pacing: limit });
  try {
    const changed = withChangedDashboards(estate.desired, k);
    await new Promise((r) => setTimeout(r, limit.windowMs + 50));
    await estate.child.clear();
    const rss = peakRss();
    const t0 = performance.now();
    const planned = await makePlan(estate.request({ desired: changed }));
    const t1 = performance.now();
    const report = await applyPlanned(planned, { port: estate.port, inventory: estate.inventory, concurrency: 8 });
    const wall = performance.now() - t1;
    const total = performance.now() - t0;
    const peak = rss.stop();
    const log = await estate.child.requests();
    const writes = log.filter((r) => r.method !== 'GET').length;
    // The apply phase against K writes at limit/window: the DESIGN's floor. The stricter one: the
    // whole run (plan and apply) against every request through the server's fixed window, whose
    // first window is free.
    const writeFloorMs = (writes / limit.limit) * limit.windowMs;
    const windowFloorMs = (Math.ceil(log.length / limit.limit) - 1) * limit.windowMs;
    ctx.record({
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
  } finally {
    await estate.close();
  }
}
