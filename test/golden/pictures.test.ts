/**
 * Golden images (issue 42): a dashboard preview and a backtest chart drawn from the sandbox's
 * deterministic data (./fixtures.ts) compared pixel by pixel with the committed PNGs beside this
 * file, within a tolerance (a channel may differ by anti-aliasing, a small share of pixels may
 * differ at all). On a failure the diff image is written to a temp folder and named in the message.
 * `UPDATE_GOLDEN=1` writes the pictures drawn now in their place (look at them before committing).
 * And a tile drawn at the wrong place fails the comparison. No browser: resvg draws, ./png-pixels.ts reads.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { backtestPictures } from '../../src/render/preview/backtest-pictures.js';
import { type DashboardPicture, dashboardPictures } from '../../src/render/preview/dashboard.js';
import { backtestOfUpdate, dashboardInput } from './fixtures.js';
import { comparePixels, decodePng, encodePng, type Tolerance } from './png-pixels.js';

const TOLERANCE: Tolerance = { channel: 48, ratio: 0.002 };
const update = process.env.UPDATE_GOLDEN === '1';

function png(picture: DashboardPicture | undefined): Buffer {
  if (!picture || 'skipped' in picture || !picture.png) throw new Error(`no picture: ${JSON.stringify(picture)}`);
  return picture.png;
}

/** The drawn PNG against the golden one: the share of differing pixels, and where the diff image went when over the tolerance. */
function againstGolden(name: string, drawn: Buffer, opts = { writeDiff: true }): { ok: boolean; ratio: number; message: string } {
  const file = join(import.meta.dirname, name);
  if (update || !existsSync(file)) {
    if (!update) throw new Error(`${file} is missing: UPDATE_GOLDEN=1 draws it`);
    writeFileSync(file, drawn);
  }
  const result = comparePixels(decodePng(drawn), decodePng(readFileSync(file)), TOLERANCE);
  if (result.ok || !opts.writeDiff) return { ok: result.ok, ratio: result.ratio, message: '' };
  const dir = mkdtempSync(join(tmpdir(), 'obsync-golden-'));
  writeFileSync(join(dir, `diff-${name}`), encodePng(result.diff));
  writeFileSync(join(dir, `drawn-${name}`), drawn);
  const why = result.why ?? `${result.differing} pixels (${(result.ratio * 100).toFixed(2)}%) differ`;
  return { ok: false, ratio: result.ratio, message: `${name}: ${why}; the diff and the drawn picture are in ${dir}` };
}

describe('golden images (sandbox data at a fixed clock)', () => {
  it('a dashboard update, before and after, its series from the sandbox, matches the golden PNG', async () => {
    const result = againstGolden('dashboard-update.png', png(dashboardPictures([await dashboardInput()])[0]));
    expect(result.ok, result.message).toBe(true);
  });

  it('a backtest chart of a lowered threshold matches the golden PNG', async () => {
    const picture = backtestPictures([{ address: 'Alert/errors-high', name: 'Errors high', backtest: await backtestOfUpdate() }])[0];
    const result = againstGolden('backtest-update.png', png(picture));
    expect(result.ok, result.message).toBe(true);
  });

  it('fails when a tile is drawn at the wrong place: the second tile moved by 6 columns', async () => {
    if (update) return;
    const drawn = png(dashboardPictures([await dashboardInput({ x: 6 })])[0]);
    const moved = againstGolden('dashboard-update.png', drawn, { writeDiff: false });
    expect(moved.ok).toBe(false);
    expect(moved.ratio).toBeGreaterThan(TOLERANCE.ratio * 10);
  });
});
