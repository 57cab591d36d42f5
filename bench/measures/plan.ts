/**
 * plan: a first plan of an estate the inventory owns (a CI run, or a daemon's first run): requests
 * per plan against N (O(kinds), not O(objects)); plan CPU ÷ the CPU to merely parse and validate
 * the same responses (the DESIGN's target: ≤ 3); peak RSS while planning.
 */
import type { Variant } from '../../src/core/ports.js';
import { makePlan } from '../../src/engine/run.js';
import { adoptedEstate } from '../estate.js';
import { cpuMs, defineMeasure, fastest, peakRss, ratio } from '../measure.js';
import { parseFloorCpuMs } from '../parse-floor.js';
import { profilePlan } from '../profile.js';
import { join } from 'node:path';

const VARIANTS: Variant[] = ['self-hosted', 'hosted'];

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
        const estate = await adoptedEstate(variant, n);
        try {
          const req = estate.request();
          await makePlan(req); // warm-up: JIT and connections
          const times: number[] = [];
          let planned: Awaited<ReturnType<typeof makePlan>> | undefined;
          const rss = peakRss();
          for (let i = 0; i < samples; i++) {
            await estate.child.clear();
            global.gc?.();
            const run = await cpuMs(() => makePlan(req));
            times.push(run.ms);
            planned = run.value;
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
            changes: planned?.plan.steps.filter((s) => s.action !== 'noop').length,
            owned: estate.inventory.entries().length,
            peakRssMb: peak,
          });
          if (ctx.profile && n === sizes.at(-1))
            ctx.record(
              await profilePlan('plan-profile', () => makePlan(req), join(ctx.root, `bench/plan-${variant}-${n}.cpuprofile`), {
                variant,
                n,
              }),
            );
        } finally {
          await estate.close();
        }
      }
  },
});
