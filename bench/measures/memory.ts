/** memory-over-passes: heap after many plan+apply passes over a small estate ÷ before (a leak shows as growth). */
import { applyPlanned, makePlan } from '../../src/engine/run.js';
import { adoptedEstate } from '../estate.js';
import { defineMeasure, mb, ratio } from '../measure.js';

export default defineMeasure({
  name: 'memory',
  title: 'heap after forced GC over many plan+apply passes',
  tables: { 'memory-over-passes': ['n', 'runs', 'heapBeforeMb', 'heapAfterMb', 'afterOverBefore'] },
  sizes: { full: { n: 100, runs: 1000 }, quick: { n: 100, runs: 200 }, smoke: { n: 5, runs: 10 } },
  async run({ n, runs }, ctx) {
    const estate = await adoptedEstate('self-hosted', n);
    try {
      const req = estate.request();
      const pass = async () => applyPlanned(await makePlan(req), { port: estate.port, inventory: estate.inventory, concurrency: 8 });
      for (let i = 0; i < Math.min(20, runs); i++) await pass();
      global.gc?.();
      const before = process.memoryUsage().heapUsed;
      for (let i = 0; i < runs; i++) await pass();
      global.gc?.();
      const after = process.memoryUsage().heapUsed;
      ctx.record({
        measure: 'memory-over-passes',
        n,
        runs,
        heapBeforeMb: mb(before),
        heapAfterMb: mb(after),
        afterOverBefore: ratio(after, before),
        gcExposed: typeof global.gc === 'function',
      });
    } finally {
      await estate.close();
    }
  },
});
