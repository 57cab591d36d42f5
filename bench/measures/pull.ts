/**
 * pull: `obsync pull` over an owned estate of N + N objects whose manifests are files (JSON
 * documents, which are YAML), k of its dashboards drifted on the service (a tag added, as a UI edit
 * would): pull CPU (reading the live state, planning, the minimal edits and the new texts) ÷ the
 * CPU to merely parse and validate the same responses (the target: ≤ 2), and how many
 * files it rewrites against how many hold a drifted object (they must be equal); and pull ÷ a plan of
 * the same estate (pull makes that plan, then its edits).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Variant } from '../../src/core/ports.js';
import { pullInput } from '../../src/engine/pull-input.js';
import { applyPlanned, makePlan } from '../../src/engine/run.js';
import { memoryInventory } from '../../src/inventory/memory-store.js';
import { loadManifests } from '../../src/manifests/load.js';
import { computePull, filesToWrite } from '../../src/writeback/pull.js';
import { adoptedEstate } from '../estate.js';
import { benchManifestsYaml, withChangedDashboards } from '../fixtures.js';
import { inFreshProcess } from '../isolate.js';
import { cpuMs, defineMeasure, fastest, ratio, type BenchContext } from '../measure.js';
import { parseFloorCpuMs } from '../parse-floor.js';
import { profilePlan } from '../profile.js';

interface Args {
  variant: Variant;
  n: number;
  k: number;
  samples: number;
}

export default defineMeasure({
  name: 'pull',
  title: 'pull over N + N owned objects with k drifted: CPU ÷ the plan parse floor, files rewritten',
  tables: {
    pull: [
      'variant',
      'n',
      'drifted',
      'pullCpuMs',
      'planCpuMs',
      'parseCpuMs',
      'pullOverParse',
      'pullOverPlan',
      'filesRewritten',
      'filesInvolved',
    ],
    'pull-profile': ['variant', 'n', 'top'],
  },
  sizes: {
    full: { sizes: [1000, 10000], k: 100, samples: 3 },
    quick: { sizes: [1000], k: 100, samples: 3 },
    smoke: { sizes: [10], k: 2, samples: 1 },
  },
  async run({ sizes, k, samples }, ctx) {
    for (const n of sizes) await inFreshProcess({ module: 'pull', name: 'pull', args: { variant: 'self-hosted', n, k, samples } }, ctx);
  },
});

export const cases = {
  async pull({ variant, n, k, samples }: Args, ctx: BenchContext): Promise<void> {
    const estate = await adoptedEstate(variant, n);
    const dir = mkdtempSync(join(tmpdir(), 'obsync-bench-pull-'));
    try {
      mkdirSync(dir, { recursive: true });
      for (const [name, text] of benchManifestsYaml(n, variant)) writeFileSync(join(dir, name), text);
      const { resources } = loadManifests([dir], { env: {} });
      // A plan records each object's spec hash: what tells a drift (the service changed) from an edit of the manifest.
      const req = estate.request({ desired: resources });
      await applyPlanned(await makePlan({ ...req, maxDeletes: 0 }), { port: estate.port, inventory: estate.inventory, concurrency: 8 });
      // k dashboards changed on the service, through a copy of the inventory (the real one still holds the manifests' hashes).
      const drift = memoryInventory('bench-drift', estate.inventory.entries());
      const drifted = withChangedDashboards(resources, k);
      await applyPlanned(await makePlan({ ...req, inventory: drift, desired: drifted }), {
        port: estate.port,
        inventory: drift,
        concurrency: 8,
      });
      const involved = new Set(drifted.filter((r, i) => r !== resources[i]).map((r) => r.source.file));
      const read = (path: string) => readFileSync(path, 'utf8');
      const once = async () => {
        const input = await pullInput(req, { allKinds: false });
        return computePull([{ target: 'bench', adopt: 'by-name', input }], read, { prune: false });
      };
      await once(); // warm-up: JIT and connections
      const times: number[] = [];
      let rewritten = 0;
      let conflicts = 0;
      for (let i = 0; i < samples; i++) {
        await estate.child.clear();
        global.gc?.();
        const run = await cpuMs(once);
        times.push(run.ms);
        rewritten = filesToWrite(run.value).length;
        conflicts = run.value.conflicts.length;
      }
      const pullCpu = fastest(times);
      if (ctx.profile && n >= 10000)
        ctx.record(await profilePlan('pull-profile', once, join(ctx.root, `bench/pull-${variant}-${n}.cpuprofile`), { variant, n }));
      // The plan of the same estate, for scale: pull plans it too, then edits.
      const plans: number[] = [];
      for (let i = 0; i < samples; i++) {
        global.gc?.();
        plans.push((await cpuMs(() => makePlan(req))).ms);
      }
      const planCpu = fastest(plans);
      await estate.child.clear();
      await once();
      const parseCpu = await parseFloorCpuMs(estate.target, estate.child.url, await estate.child.requests(), samples);
      ctx.record({
        measure: 'pull',
        variant,
        n,
        drifted: k,
        pullCpuMs: Math.round(pullCpu),
        planCpuMs: Math.round(planCpu),
        parseCpuMs: Math.round(parseCpu),
        pullOverParse: ratio(pullCpu, parseCpu),
        pullOverPlan: ratio(pullCpu, planCpu),
        filesRewritten: rewritten,
        filesInvolved: involved.size,
        conflicts,
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
      await estate.close();
    }
  },
};
