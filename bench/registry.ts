/**
 * Every measure of `npm run bench`, one line each, in the order they run. A measure is a module of
 * bench/measures/ whose default export is `defineMeasure(...)` with sizes for every mode: listed
 * here, it runs in `--smoke` too, and so in the test suite (test/bench/smoke.test.ts), which also
 * fails on a module of bench/measures/ that is not listed.
 */
import type { Measure } from './measure.js';

export const MEASURES: readonly Measure[] = await Promise.all(
  [
    import('./measures/plan.js'),
    import('./measures/steady.js'),
    import('./measures/apply.js'),
    import('./measures/memory.js'),
    import('./measures/daemon.js'),
    import('./measures/daemon-scale.js'),
    import('./measures/multitarget.js'),
    import('./measures/shards.js'),
    import('./measures/status.js'),
    import('./measures/backtest.js'),
    import('./measures/startup.js'),
    import('./measures/telemetry.js'),
    import('./measures/scrub.js'),
    import('./measures/pull.js'),
    import('./measures/lint.js'),
    import('./measures/previews.js'),
  ].map(async (module) => (await module).default),
);
