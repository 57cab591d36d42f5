/**
 * The series a backtest chart draws (issue 42): the alert's value per window, downsampled to at most
 * CHART_POINTS points. A point keeps the value nearest to breaching of the windows and groups it
 * covers (the highest; the lowest for a `below` alert), so a peak that fired is never averaged away.
 */
import type { BacktestSeries, ThresholdLine } from '../../core/backtest.js';
import type { AlertCondition, SeriesPoint, Windows } from './checker.js';

export const CHART_POINTS = 120;

export function chartSeries(
  condition: Pick<AlertCondition, 'thresholdType'>,
  windows: Windows,
  points: readonly SeriesPoint[],
): BacktestSeries {
  const per = Math.max(1, Math.ceil(windows.count / CHART_POINTS));
  const values: (number | null)[] = new Array<number | null>(Math.ceil(windows.count / per)).fill(null);
  for (const p of points) {
    if (p.value === null || !Number.isFinite(p.value) || !Number.isFinite(p.bucket)) continue;
    const w = Math.floor((p.bucket - windows.start) / windows.stepMs);
    if (w < 0 || w >= windows.count) continue;
    const i = Math.floor(w / per);
    // eslint-disable-next-line no-restricted-syntax -- an array by index
    values[i] = nearerBreach(condition.thresholdType, values[i] ?? null, p.value);
  }
  return { start: windows.start, stepMs: windows.stepMs * per, values };
}

/** Of two values, the one nearer to firing: the lower for `below` alerts, else the higher. */
export function nearerBreach(thresholdType: string, a: number | null, b: number): number {
  if (a === null) return b;
  return lowFires(thresholdType) ? Math.min(a, b) : Math.max(a, b);
}

function lowFires(thresholdType: string): boolean {
  return thresholdType === 'below' || thresholdType === 'below_or_equal';
}

/** The condition as a chart's threshold line. */
export function thresholdLine(c: Pick<AlertCondition, 'thresholdType' | 'threshold' | 'thresholdMax'>): ThresholdLine {
  const between = c.thresholdType === 'between' || c.thresholdType === 'not_between';
  return { type: c.thresholdType, value: c.threshold, ...(between && typeof c.thresholdMax === 'number' ? { max: c.thresholdMax } : {}) };
}
