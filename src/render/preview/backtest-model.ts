/**
 * A backtest as a chart (issue 42), pure: the alert's series over the history, its threshold as the
 * plan leaves it and, for an update, as it is now, the windows each would have fired in, and the
 * episodes of each. The ECharts picture (./backtest-option.ts) and the Mermaid block
 * (../backtest-mermaid.ts) draw this.
 */
import type { Backtest, BacktestSide, ThresholdLine } from '../../core/backtest.js';

export type Side = 'old' | 'new';

export interface BacktestChartSpec {
  address: string;
  name: string;
  window: string;
  /** The x range: the series' first point's start to its last point's end (epoch ms). */
  from: number;
  to: number;
  /** [start of the point, value]. */
  points: [number, number | null][];
  /** One line per threshold value (two for between): `new threshold 400`, `old threshold 500`. */
  lines: { side: Side; value: number; label: string }[];
  shaded: { side: Side; from: number; to: number }[];
  episodes: { side: Side; count: number }[];
  /** `highest`: the value nearest to breaching is the highest of its windows and groups; `lowest` for below alerts. */
  extreme: 'highest' | 'lowest';
}

export function backtestChartSpec(address: string, name: string, b: Backtest): BacktestChartSpec | { skipped: string } {
  if (b.status !== 'ok') return { skipped: `backtest ${b.status}` };
  if (!b.series || !b.threshold) return { skipped: 'the backtest carries no series (a plan saved before backtest charts)' };
  const { start, stepMs, values } = b.series;
  const before = b.before?.status === 'ok' && b.before.threshold && !sameThreshold(b.before.threshold, b.threshold) ? b.before : undefined;
  const sides: [Side, BacktestSide & { threshold: ThresholdLine }][] = [
    ...(before?.threshold
      ? [['old', { ...before, threshold: before.threshold }] as [Side, BacktestSide & { threshold: ThresholdLine }]]
      : []),
    ['new', { ...b, threshold: b.threshold }],
  ];
  const unchanged = b.before?.status === 'ok' && !before;
  return {
    address,
    name,
    window: b.window,
    from: start,
    to: start + values.length * stepMs,
    points: values.map((v, i) => [start + i * stepMs, v]),
    lines: sides.flatMap(([side, s]) => linesOf(side, s.threshold, before !== undefined, unchanged)),
    shaded: sides.flatMap(([side, s]) => (s.fired ?? []).map(([from, to]) => ({ side, from, to }))),
    episodes: sides.map(([side, s]) => ({ side, count: s.episodes ?? 0 })),
    extreme: b.threshold.type === 'below' || b.threshold.type === 'below_or_equal' ? 'lowest' : 'highest',
  };
}

function linesOf(side: Side, t: ThresholdLine, compared: boolean, unchanged: boolean): BacktestChartSpec['lines'] {
  const prefix = compared ? `${side} threshold` : 'threshold';
  const suffix = unchanged ? ' (unchanged)' : '';
  if (t.max === undefined) return [{ side, value: t.value, label: `${prefix} ${t.type} ${t.value}${suffix}` }];
  return [
    { side, value: t.value, label: `${prefix} ${t.type} ${t.value}…${t.max}${suffix}` },
    { side, value: t.max, label: `${prefix} ${t.type} ${t.value}…${t.max}${suffix}` },
  ];
}

function sameThreshold(a: ThresholdLine, b: ThresholdLine): boolean {
  return a.type === b.type && a.value === b.value && a.max === b.max;
}

/** `old 3 → new 5 episodes`, or `5 episodes`. */
export function episodesText(spec: Pick<BacktestChartSpec, 'episodes'>): string {
  const [first, second] = spec.episodes;
  if (!first) return '';
  if (!second) return `${first.count} episode${first.count === 1 ? '' : 's'}`;
  return `episodes: old ${first.count} → new ${second.count}`;
}

/** The y range that holds the series and every threshold line, with a margin above. */
export function valueRange(spec: Pick<BacktestChartSpec, 'points' | 'lines'>): { min: number; max: number } {
  const all = [...spec.points.map(([, v]) => v).filter((v): v is number => v !== null), ...spec.lines.map((l) => l.value)];
  const low = Math.min(0, ...all);
  const high = Math.max(...all, low + 1);
  const pad = (high - low) * 0.1;
  return { min: low < 0 ? low - pad : 0, max: high + pad };
}
