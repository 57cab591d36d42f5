/**
 * `--only previews` (issue 42): what a previewed dashboard costs — CPU to draw its SVG (ECharts) and
 * its PNG (resvg), the bytes of each, and the heap a kept picture holds (the daemon keeps the SVGs
 * of each target's last plan) — for dashboards of T tiles, half of them line or stacked-bar tiles
 * with six hours of series, an update (before and after side by side). Their data is asked of the
 * sandbox's domain in this process before the clock starts (what the requests cost is the
 * transport's, measured elsewhere): `requests` counts them per dashboard, each dashboard the one of
 * its plan, within the plan's series budget (after sides first, a query both sides share asked once). The
 * renderer's first load (`loadMs`) is paid once per process, by the first plan with something to draw.
 */
import type { ChartsPort } from '../../src/core/ports.js';
import type { DashboardPreviewInput } from '../../src/core/preview.js';
import type { DashboardPicture, PictureFormats } from '../../src/render/preview/dashboard.js';
import type { JsonObject } from '../../src/core/wire.js';
import { fillPreviewData } from '../../src/engine/preview-data.js';
import { createObservabilityDomain } from '../../src/sandbox/domain/index.js';
import { DEMO_IDS } from '../../src/sandbox/domain/seed.js';
import { inProcessPort } from '../../src/sandbox/in-process-port.js';
import { defineMeasure, peakRss, settledHeap, type Result } from '../measure.js';

const NOW = new Date(Date.UTC(2026, 10, 26, 12));
/** The plan's series request budget (BACKTEST_DEFAULTS.budget): the previews' data shares it. */
const BUDGET = 20;

interface Sizes {
  tiles: number[];
  dashboards: number;
}

export default defineMeasure({
  name: 'previews',
  title: 'CPU, bytes and kept heap per previewed dashboard (SVG and PNG), its data within the plan budget',
  tables: {
    previews: [
      'tiles',
      'dashboards',
      'requests',
      'budget',
      'svgMs',
      'pngMs',
      'msPerDashboard',
      'svgKb',
      'pngKb',
      'keptKb',
      'peakRssMb',
      'loadMs',
    ],
  },
  sizes: {
    full: { tiles: [3, 12, 24], dashboards: 20 },
    quick: { tiles: [3, 12, 24], dashboards: 10 },
    smoke: { tiles: [2], dashboards: 1 },
  } satisfies Record<string, Sizes>,
  async run(sizes, ctx) {
    const load = process.cpuUsage();
    const { dashboardPictures } = await import('../../src/render/preview/dashboard.js');
    const loadMs = cpuSince(load);
    for (const tiles of sizes.tiles) ctx.record(await previews(tiles, sizes.dashboards, dashboardPictures, loadMs));
  },
});

type Draw = (inputs: readonly DashboardPreviewInput[], formats: PictureFormats) => DashboardPicture[];

async function previews(tiles: number, dashboards: number, draw: Draw, loadMs: number): Promise<Result> {
  const port = inProcessPort(createObservabilityDomain({ now: () => NOW }));
  const inputs = Array.from({ length: dashboards }, (_, i) => input(i, tiles));
  let requests = 0;
  const charts: ChartsPort = {
    series: (query, opts) => {
      requests += 1;
      return (port.charts as ChartsPort).series(query, opts);
    },
  };
  // Each dashboard as the one dashboard of its plan: the plan's budget is its own.
  for (const one of inputs) await fillPreviewData([one], { charts, variant: 'self-hosted', budget: BUDGET, now: NOW });
  // Warm: the first drawing compiles ECharts' paths (not in the smoke, whose one dashboard is only checked to draw).
  if (dashboards > 1) draw(inputs.slice(0, 1), { png: true });
  await settledHeap();
  const heapBefore = process.memoryUsage().heapUsed;
  const rss = peakRss();
  const svgStart = process.cpuUsage();
  const kept = draw(inputs, { png: false });
  const svgMs = cpuSince(svgStart) / dashboards;
  await settledHeap();
  const keptKb = (process.memoryUsage().heapUsed - heapBefore) / 1024 / dashboards;
  const pngStart = process.cpuUsage();
  const drawn = draw(inputs, { png: true });
  const bothMs = cpuSince(pngStart) / dashboards;
  const peakRssMb = rss.stop();
  const svgBytes = kept.reduce((sum, p) => sum + ('svg' in p ? Buffer.byteLength(p.svg) : 0), 0);
  const pngBytes = drawn.reduce((sum, p) => sum + ('png' in p ? (p.png?.length ?? 0) : 0), 0);
  if (kept.some((p) => 'skipped' in p)) throw new Error(`a preview was skipped: ${JSON.stringify(kept.find((p) => 'skipped' in p))}`);
  return {
    measure: 'previews',
    tiles,
    dashboards,
    requests: requests / dashboards,
    budget: BUDGET,
    svgMs: round(svgMs),
    pngMs: round(bothMs - svgMs),
    msPerDashboard: round(bothMs),
    svgKb: round(svgBytes / 1024 / dashboards),
    pngKb: round(pngBytes / 1024 / dashboards),
    keptKb: round(Math.max(0, keptKb)),
    peakRssMb,
    loadMs: Math.round(loadMs),
  };
}

/** An update of a dashboard of `tiles` tiles, two per row; every other tile a line or stacked-bar tile with data, each its own query. */
function input(i: number, tiles: number): DashboardPreviewInput {
  const body = (where: string): JsonObject => ({
    name: `Bench ${i}`,
    tiles: Array.from(
      { length: tiles },
      (_, t): JsonObject => ({
        id: `t${t}`,
        name: `Tile ${t}`,
        x: (t % 2) * 12,
        y: Math.floor(t / 2) * 4,
        w: 12,
        h: 4,
        config:
          t % 2 === 0
            ? {
                displayType: t % 4 === 0 ? 'line' : 'stacked_bar',
                sourceId: DEMO_IDS.logs,
                select: [{ aggFn: 'count', where: `${where} AND tile:${t}` }],
                groupBy: t % 4 === 0 ? '' : 'ServiceName',
              }
            : { displayType: 'number', sourceId: DEMO_IDS.logs, select: [{ aggFn: 'count', where: `${where} AND tile:${t}` }] },
      }),
    ),
  });
  return { address: `Dashboard/b${i}`, name: `Bench ${i}`, after: body(`level:error AND n:${i}`), before: body('level:error') };
}

function cpuSince(start: NodeJS.CpuUsage): number {
  const d = process.cpuUsage(start);
  return (d.user + d.system) / 1000;
}

function round(n: number): number {
  return Number(n.toFixed(1));
}
