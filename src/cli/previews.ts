/**
 * `plan --preview-dir DIR`: the dashboard previews and backtest charts of each target's plan written as SVG and PNG
 * (one folder per target when several are planned), and the lines that say what was written or
 * skipped. Never fails the plan: an error is a "preview skipped" line. The renderer (ECharts,
 * resvg) is loaded only when previews are asked for.
 */
import { mkdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { errorMessage } from '../core/errors.js';
import type { RunReport } from '../engine/reconcile.js';
import { writeFileAtomically } from '../manifests/atomic-write.js';
import type { BacktestPreviewInput } from '../render/preview/backtest-pictures.js';
import type { DashboardPicture } from '../render/preview/dashboard.js';
import type { PreviewLink } from '../render/preview/markdown.js';

export async function writePreviews(reports: readonly RunReport[], dir: string, cwd: string): Promise<PreviewLink[]> {
  const links: PreviewLink[] = [];
  for (const report of reports) {
    const inputs = report.previews ?? [];
    const backtests = backtestInputs(report);
    if (inputs.length + backtests.length === 0) continue;
    const folder = reports.length > 1 ? join(dir, folderName(report.target)) : dir;
    let pictures: DashboardPicture[];
    try {
      const { dashboardPictures } = await import('../render/preview/dashboard.js');
      const { backtestPictures } = await import('../render/preview/backtest-pictures.js');
      mkdirSync(folder, { recursive: true });
      pictures = [...dashboardPictures(inputs), ...backtestPictures(backtests)];
    } catch (err) {
      links.push(...[...inputs, ...backtests].map((i) => ({ address: i.address, skipped: errorMessage(err) })));
      continue;
    }
    for (const picture of pictures) links.push(written(picture, folder, cwd));
  }
  return links;
}

function written(picture: DashboardPicture, folder: string, cwd: string): PreviewLink {
  if ('skipped' in picture) return picture;
  const svg = join(folder, `${picture.base}.svg`);
  const png = join(folder, `${picture.base}.png`);
  try {
    writeFileAtomically(svg, picture.svg, { mode: 0o644 });
    writeFileAtomically(png, picture.png, { mode: 0o644 });
  } catch (err) {
    return { address: picture.address, skipped: errorMessage(err) };
  }
  return { address: picture.address, svg: relative(cwd, svg), png: relative(cwd, png) };
}

/** The alerts of the plan whose backtest was evaluated: one chart each. */
function backtestInputs(report: RunReport): BacktestPreviewInput[] {
  return report.plan.steps.flatMap((step) => {
    const b = step.backtest;
    if (!b || b.status !== 'ok' || !b.series) return [];
    const name = typeof step.payload?.name === 'string' ? step.payload.name : step.name;
    return [{ address: step.address, name, backtest: b }];
  });
}

function folderName(target: string): string {
  return target.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[.-]+/, '') || 'target';
}
