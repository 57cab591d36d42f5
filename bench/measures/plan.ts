/**
 * plan: a first plan of an estate the inventory owns (a CI run, or a daemon's first run): requests
 * per plan against N (O(kinds), not O(objects)); plan CPU ÷ the CPU to merely parse and validate
 * the same responses (the DESIGN's target: ≤ 3); peak RSS while planning. Each variant and size runs
 * in a process of its own.
 */
import { join } from 'node:path';
import type { Variant } from '../../src/core/ports.js';
import { makePlan } from '../../src/engine/run.js';
import { adoptedEstate } from '../estate.js';
import { inFreshProcess } from '../isolate.js';
import { cpuMs, defineMeasure, fastest, peakRss, ratio, type BenchContext } from '../measure.js';
import { parseFloorCpuMs } from '../parse-floor.js';
import { profilePlan } from '../profile.js';

const VARIANTS: Variant[] = ['self-hosted', 'hosted'];

interface Args {
  variant: Variant;
  n: number;
  samples: number;
  /** The largest size: with --profile, its CPU profile is written. */
  largest: boolean;
}

export default defineMeasure({
  name: 'plan',
  title: 'a first plan of N + N owned objects: requests, CPU ÷ the parse floor, peak RSS',
  tables: {
    plan: ['variant', 'n', 'objects', 'requests', 'planCpuMs', 'parseCpuMs', 'planOverParse', 'peakRssMb'],
    'plan-profile': ['variant', 'n', 'top'],
  },
  sizes: {
    full: { sizes: [100, 1000, 10000], samples: 5 },
    quick: { sizes: [100, 1000], samples: 5 },
    smoke: { sizes: [10], samples: 2 },
  },
  async run({ sizes, samples }, ctx) {
    for (const variant of VARIANTS)
      for (const n of sizes) {
        const args: Args = { variant, n, samples, largest: n === sizes.at(-1) };
        await inFreshProcess({ module: 'plan', name: 'plan', args }, ctx);
      }
  },
});

/** One variant and size, in a process of its own (bench/isolate.ts). */
export const cases = {
  async plan({ variant, n, samples, largest }: Args, ctx: BenchContext): Promise<void> {
    const estate = await adoptedEstate(variant, n);
    try {
      const req = estate.request();
      await makePlan(req); // warm-up: JIT and connections
      const times: number[] = [];
      let changes = 0;
      const rss = peakRss();
      for (let i = 0; i < samples; i++) {
        await estate.child.clear();
        global.gc?.();
        const run = await cpuMs(() => makePlan(req));
        times.push(run.ms);
        changes = run.value.plan.steps.filter((s) => s.action !== 'noop').length;
      }
      const peak = rss.stop();
      const planCpu = fastest(times);
      const log = await estate.child.requests();
      const parseCpu = await parseFloorCpuMs(estate.target, estate.child.url, log, samples);
      ctx.record({
        measure: 'plan',
        variant,
        n,
        objects: estate.desired.length,
        requests: log.length,
        planCpuMs: Math.round(planCpu),
        planCpuSamplesMs: times.map(Math.round),
        parseCpuMs: Math.round(parseCpu),
        planOverParse: ratio(planCpu, parseCpu),
        changes,
        owned: estate.inventory.entries().length,
        peakRssMb: peak,
      });
      if (ctx.profile && largest) {
        const file = join(ctx.root, `bench/plan-${variant}-${n}.cpuprofile`);
        ctx.record(await profilePlan('plan-profile', () => makePlan(req), file, { variant, n }));
      }
    } finally {
      await estate.close();
    }
  },
};
