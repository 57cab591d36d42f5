/**
 * A backtest as a Mermaid `xychart-beta` block for the markdown plan (issue 42), rendered natively by
 * GitHub and GitLab: the series as a line of at most MERMAID_POINTS points (each the value nearest
 * to breaching of the points it covers), each threshold a flat line. Every name passes `mermaidText`;
 * numbers are written in the plain decimal form Mermaid's grammar reads (no exponent).
 */
import type { Backtest } from '../core/backtest.js';
import { printable } from '../core/printable.js';
import { nearerBreach } from '../kinds/alert/chart-series.js';
import { backtestChartSpec, episodesText, valueRange, type BacktestChartSpec } from './preview/backtest-model.js';
import { mermaidText } from './preview/text.js';
import { escape, fenced } from './markdown-text.js';

export const MERMAID_POINTS = 60;

/** The block and a caption under it, or '' when the backtest has nothing to draw. */
export function backtestMermaid(address: string, name: string, b: Backtest): string {
  const spec = backtestChartSpec(address, name, b);
  if ('skipped' in spec) return '';
  const values = downsampled(spec);
  const hours = (spec.to - spec.from) / 3_600_000;
  const range = valueRange(spec);
  const lines = [
    'xychart-beta',
    `  title "${mermaidText(`${name}: backtest ${spec.window}, ${episodesText(spec)}`, 90)}"`,
    `  x-axis "hours before the plan" ${decimal(-hours)} --> 0`,
    `  y-axis "value" ${decimal(range.min)} --> ${decimal(range.max)}`,
    `  line "value" [${values.map(decimal).join(', ')}]`,
    ...spec.lines.map((l) => `  line "${mermaidText(l.label)}" [${values.map(() => decimal(l.value)).join(', ')}]`),
  ];
  const caption =
    `Backtest chart of ${address}: the ${spec.extreme} value per point (${values.length} points over ${spec.window}, ` +
    `downsampled), then ${spec.lines.map((l) => l.label).join(', ')}.`;
  return `${fenced('mermaid', lines.join('\n'))}\n${escape(printable(caption))}\n\n`;
}

/** At most MERMAID_POINTS values, a missing one as 0 (the checker evaluates a window without a row as 0). */
function downsampled(spec: BacktestChartSpec): number[] {
  const per = Math.max(1, Math.ceil(spec.points.length / MERMAID_POINTS));
  const out: number[] = [];
  for (let i = 0; i < spec.points.length; i += per) {
    let v: number | null = null;
    for (const [, value] of spec.points.slice(i, i + per))
      if (value !== null) v = nearerBreach(spec.extreme === 'lowest' ? 'below' : 'above', v, value);
    out.push(v ?? 0);
  }
  return out;
}

/** A number as Mermaid reads one: `[+-]?digits[.digits]`, at most 6 significant digits, never an exponent. */
export function decimal(value: number): string {
  if (!Number.isFinite(value) || Math.abs(value) < 1e-9) return '0';
  const text = value.toLocaleString('en-US', { useGrouping: false, maximumSignificantDigits: 6 });
  return text === '-0' ? '0' : text;
}
