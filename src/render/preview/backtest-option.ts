/**
 * A backtest chart as an ECharts option: the series as a line on a time axis (UTC), each threshold
 * a labelled horizontal line (the new solid, the old dashed), the windows the new condition would
 * have fired in shaded over the full height and the old ones as a strip along the top, the episodes
 * in the subtitle and the legend. Every text goes through `pictureText`.
 */
import { episodesText, valueRange, type BacktestChartSpec, type Side } from './backtest-model.js';
import { FONT_FAMILY, type PictureOption } from './option.js';
import { pictureText } from './text.js';

/** The plot area in pixels: tests read the SVG's geometry against it. */
export const BACKTEST_GRID = { left: 64, top: 76, width: 620, height: 200 } as const;
export const BACKTEST_SIZE = { width: 720, height: 320 } as const;
export const SIDE_COLORS: Readonly<Record<Side, string>> = { new: '#d9480f', old: '#8250df' };
export const SERIES_COLOR = '#1f6feb';
/** The old side's shading: a strip of this share of the plot's height along its top. */
export const OLD_STRIP = 0.12;

export function backtestOption(spec: BacktestChartSpec): PictureOption {
  const range = valueRange(spec);
  const episodes = (side: Side) => spec.episodes.find((e) => e.side === side)?.count;
  const firesName = (side: Side) => {
    const n = episodes(side) ?? 0;
    return `${spec.episodes.length > 1 ? `${side} ` : ''}fires: ${n} episode${n === 1 ? '' : 's'}`;
  };
  const sides = spec.episodes.map((e) => e.side);
  return {
    ...BACKTEST_SIZE,
    option: {
      animation: false,
      useUTC: true,
      backgroundColor: '#ffffff',
      textStyle: { fontFamily: FONT_FAMILY },
      title: {
        text: pictureText(spec.name),
        subtext: pictureText(`${spec.address} · backtest ${spec.window}: ${episodesText(spec)}`, 110),
        left: 8,
        top: 4,
        textStyle: { fontFamily: FONT_FAMILY, fontSize: 15 },
        subtextStyle: { fontFamily: FONT_FAMILY, fontSize: 11, color: '#57606a' },
      },
      legend: { top: 46, left: 8, itemWidth: 14, itemGap: 36, textStyle: { fontFamily: FONT_FAMILY, fontSize: 11 } },
      grid: { ...BACKTEST_GRID },
      xAxis: { type: 'time', min: spec.from, max: spec.to, axisLabel: { fontSize: 9 }, splitLine: { show: false } },
      yAxis: { type: 'value', min: range.min, max: range.max, axisLabel: { fontSize: 9 }, splitNumber: 4 },
      series: [
        {
          type: 'line',
          name: spec.extreme === 'lowest' ? 'value (lowest)' : 'value (highest)',
          data: spec.points,
          showSymbol: false,
          silent: true,
          color: SERIES_COLOR,
          lineStyle: { width: 1.5, color: SERIES_COLOR },
          markLine: {
            silent: true,
            symbol: 'none',
            data: spec.lines.map((l) => ({
              yAxis: l.value,
              lineStyle: { color: SIDE_COLORS[l.side], width: 2, type: l.side === 'old' ? 'dashed' : 'solid' },
              label: { formatter: () => pictureText(l.label), position: 'insideEndTop', fontSize: 10, color: SIDE_COLORS[l.side] },
            })),
          },
        },
        ...sides.map((side) => shading(spec, side, firesName(side), range)),
      ],
    },
  };
}

function shading(spec: BacktestChartSpec, side: Side, name: string, range: { min: number; max: number }): Record<string, unknown> {
  const color = SIDE_COLORS[side];
  const bottom = side === 'old' ? range.max - (range.max - range.min) * OLD_STRIP : range.min;
  return {
    type: 'line',
    name,
    data: [],
    color,
    silent: true,
    markArea: {
      silent: true,
      itemStyle: { color, opacity: side === 'old' ? 0.45 : 0.22 },
      data: spec.shaded
        .filter((s) => s.side === side)
        .map((s) => [
          { xAxis: s.from, yAxis: bottom },
          { xAxis: s.to, yAxis: range.max },
        ]),
    },
  };
}
