/**
 * The backtest pictures of a plan (issue 42): per backtested alert a stable file name, its SVG and
 * PNG, or why it was skipped. Never throws, like the dashboard previews.
 */
import type { Backtest } from '../../core/backtest.js';
import { backtestChartSpec } from './backtest-model.js';
import { backtestOption } from './backtest-option.js';
import { baseNames, type DashboardPicture, picture, type PictureFormats } from './dashboard.js';

export interface BacktestPreviewInput {
  address: string;
  name: string;
  backtest: Backtest;
}

export function backtestPictures(
  inputs: readonly BacktestPreviewInput[],
  formats: PictureFormats = { png: true },
  prefix = 'backtest',
): DashboardPicture[] {
  const names = baseNames(inputs, prefix);
  return inputs.map((input, i) => {
    return picture(
      input.address,
      names[i] ?? `${prefix}-${i}`,
      () => {
        const spec = backtestChartSpec(input.address, input.name, input.backtest);
        return 'skipped' in spec ? spec : backtestOption(spec);
      },
      formats,
    );
  });
}
