/**
 * steady: a daemon's second and later plans of an unchanged estate, with the memo a daemon keeps
 * per target (src/engine/memo.ts). Each run gets the manifests as a daemon's loader hands over
 * unchanged files (manifests/load.ts, LoadedFiles): the same frozen resources, loaded once, so the
 * run takes its last plan whole (src/engine/last-plan.ts). Plan CPU ÷ the parse floor of the same
 * responses (goal ≤ 1.3); peak RSS over the first run and the later ones (goal < 200 MB at
 * N = 10,000). Then runs that each edit one dashboard, which the last plan cannot be taken for:
 * the memo's per-object path (it recognises manifests by their digests, never by identity), its
 * CPU ÷ the same floor, and how many objects it found unchanged. Each variant and size runs in a
 * process of its own.
 */
import { join } from 'node:path';
import type { Variant } from '../../src/core/ports.js';
import type { DesiredResource } from '../../src/core/resource.js';
import { deepFreeze } from '../../src/core/freeze.js';
import { RunMemo } from '../../src/engine/memo.js';
import { makePlan } from '../../src/engine/run.js';
import { adoptedEstate } from '../estate.js';
import { inFreshProcess } from '../isolate.js';
import { cpuMs, defineMeasure, fastest, peakRss, ratio, settledHeap, type BenchContext } from '../measure.js';
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
  name: 'steady',
  title: "a daemon's later plans of an unchanged N + N estate (memoised): CPU ÷ the parse floor, peak RSS",
  tables: {
    steady: [
      'variant',
      'n',
      'objects',
      'firstCpuMs',
      'planCpuMs',
      'parseCpuMs',
      'steadyOverParse',
      'taken',
      'peakRssMb',
      'memoisedCpuMs',
      'memoisedOverParse',
      'reused',
    ],
    'steady-profile': ['variant', 'n', 'top'],
  },
  sizes: {
    full: { sizes: [1000, 10000], samples: 5 },
    quick: { sizes: [1000], samples: 5 },
    smoke: { sizes: [10], samples: 2 },
  },
  async run({ sizes, samples }, ctx) {
    for (const variant of VARIANTS)
      for (const n of sizes) {
        const args: Args = { variant, n, samples, largest: n === sizes.at(-1) };
        await inFreshProcess({ module: 'steady', name: 'steady', args }, ctx);
      }
  },
});

/** The manifests with one dashboard's title edited (another each run: the run before cannot be taken whole). */
function editedOne(desired: readonly DesiredResource[], i: number): DesiredResource[] {
  const out = [...desired];
  const j = out.findIndex((r) => r.kind === 'Dashboard');
  const res = out[j] as DesiredResource<{ name: string }>;
  out[j] = deepFreeze({ ...res, spec: { ...res.spec, name: `${res.spec.name} (edit ${i})` }, digest: `${res.digest ?? ''}~${i}` });
  return out;
}

/** One variant and size, in a process of its own (bench/isolate.ts). */
export const cases = {
  async steady({ variant, n, samples, largest }: Args, ctx: BenchContext): Promise<void> {
    const estate = await adoptedEstate(variant, n);
    try {
      const memo = new RunMemo();
      // Not a clone per run: that is a daemon without kept loads, holding a second copy of the
      // estate (30 MB at N = 10,000) while it plans.
      const desired = deepFreeze(estate.desired);
      await settledHeap();
      const rss = peakRss();
      const first = await cpuMs(() => makePlan(estate.request({ desired, memo })));
      const times: number[] = [];
      let changes = 0;
      for (let i = 0; i < samples; i++) {
        await estate.child.clear();
        global.gc?.();
        const run = await cpuMs(() => makePlan(estate.request({ desired, memo })));
        times.push(run.ms);
        changes = run.value.plan.steps.filter((s) => s.action !== 'noop').length;
      }
      const peak = rss.stop();
      const planCpu = fastest(times);
      const memoised: number[] = [];
      for (let i = 0; i < samples; i++) {
        await estate.child.clear();
        global.gc?.();
        memoised.push((await cpuMs(() => makePlan(estate.request({ desired: editedOne(desired, i), memo })))).ms);
      }
      const log = await estate.child.requests();
      const parseCpu = await parseFloorCpuMs(estate.target, estate.child.url, log, samples);
      ctx.record({
        measure: 'steady',
        variant,
        n,
        objects: estate.desired.length,
        firstCpuMs: Math.round(first.ms),
        planCpuMs: Math.round(planCpu),
        planCpuSamplesMs: times.map(Math.round),
        parseCpuMs: Math.round(parseCpu),
        steadyOverParse: ratio(planCpu, parseCpu),
        changes,
        taken: memo.last.reused,
        peakRssMb: peak,
        memoisedCpuMs: Math.round(fastest(memoised)),
        memoisedCpuSamplesMs: memoised.map(Math.round),
        memoisedOverParse: ratio(fastest(memoised), parseCpu),
        reused: memo.plan.stats.reused,
        compared: memo.plan.stats.compared,
      });
      if (ctx.profile && largest) {
        const file = join(ctx.root, `bench/steady-${variant}-${n}.cpuprofile`);
        ctx.record(await profilePlan('steady-profile', () => makePlan(estate.request({ desired, memo })), file, { variant, n }));
      }
    } finally {
      await estate.close();
    }
  },
};
