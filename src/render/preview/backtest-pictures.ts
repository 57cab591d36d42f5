/**
 * The backtest pictures of a plan (issue 42): per backtested alert a stable file name, its SVG and
 * PNG, or why it was skipped. Never throws, like the dashboard previews.
 */
import type { Backtest } from '../../core/backtest.js';
import { errorMessage } from '../../core/errors.js';
import { finalText } from '../../core/output.js';
import { backtestChartSpec } from './backtest-model.js';
import { backtestOption } from './backtest-option.js';
import { baseNames, type DashboardPicture } from './dashboard.js';
import { pngOf } from './png.js';
import { svgOf } from './svg.js';

export interface BacktestPreviewInput {
  address: string;
  name: string;
  backtest: Backtest;
}

export function backtestPictures(inputs: readonly BacktestPreviewInput[]): DashboardPicture[] {
  const names = baseNames(inputs, 'backtest');
  return inputs.map((input, i) => {
    const base = names[i] ?? `backtest-${i}`;
    try {
      const spec = backtestChartSpec(input.address, input.name, input.backtest);
      if ('skipped' in spec) return { address: input.address, skipped: spec.skipped };
      const svg = finalText(svgOf(backtestOption(spec)));
      return { address: input.address, base, svg, png: pngOf(svg) };
    } catch (err) {
      return { address: input.address, skipped: errorMessage(err) };
    }
  });
}
