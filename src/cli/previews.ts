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
import type { DashboardPicture } from '../render/preview/dashboard.js';
import type { PreviewLink } from '../render/preview/markdown.js';
import { reportPictures } from '../render/preview/report-pictures.js';

export async function writePreviews(reports: readonly RunReport[], dir: string, cwd: string): Promise<PreviewLink[]> {
  const links: PreviewLink[] = [];
  for (const report of reports) {
    const pictures = await reportPictures(report, { png: true });
    if (pictures.length === 0) continue;
    const folder = reports.length > 1 ? join(dir, folderName(report.target)) : dir;
    try {
      mkdirSync(folder, { recursive: true });
    } catch (err) {
      links.push(...pictures.map(({ picture }) => ({ address: picture.address, skipped: errorMessage(err) })));
      continue;
    }
    for (const { picture } of pictures) links.push(written(picture, folder, cwd));
  }
  return links;
}

function written(picture: DashboardPicture, folder: string, cwd: string): PreviewLink {
  if ('skipped' in picture) return picture;
  if (!picture.png) return { address: picture.address, skipped: 'no PNG was drawn' };
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

function folderName(target: string): string {
  return target.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[.-]+/, '') || 'target';
}
