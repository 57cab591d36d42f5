/**
 * The data of line and stacked-bar tiles as ECharts grids, axes and series, each grid inside its
 * tile's box (below the title and the type), in every panel (before and after). At most MAX_GROUPS
 * groups a tile, the largest first.
 */
import { tileBox } from './layout.js';
import type { PreviewTile } from './model.js';
import { pictureText } from './text.js';

const MAX_GROUPS = 5;
/** One colour per group rank in a tile (ECharts' first five): a tile's series look the same before and after. */
const GROUP_COLORS = ['#5470c6', '#91cc75', '#fac858', '#ee6666', '#73c0de'] as const;
const TOP = 40;

/** A panel's tiles and where the panel's left edge is. */
export interface Panel {
  tiles: readonly PreviewTile[];
  left: number;
}

export function chartsOf(panels: readonly Panel[], dy: number): Record<string, unknown[]> {
  const grid: unknown[] = [];
  const xAxis: unknown[] = [];
  const yAxis: unknown[] = [];
  const series: unknown[] = [];
  for (const { tiles, left } of panels)
    for (const tile of tiles) {
      if (!tile.data || !('points' in tile.data) || tile.data.points.length === 0 || tile.h < 3) continue;
      const box = tileBox(tile, left);
      const index = grid.length;
      grid.push({
        left: box.x + 34,
        top: box.y + dy + TOP,
        width: Math.max(10, box.width - 44),
        height: Math.max(10, box.height - TOP - 18),
      });
      xAxis.push({ type: 'time', gridIndex: index, axisLabel: { fontSize: 8 }, splitLine: { show: false } });
      yAxis.push({ type: 'value', gridIndex: index, axisLabel: { fontSize: 8 }, splitNumber: 2 });
      for (const [rank, [group, points]] of groups(tile.data.points).entries())
        series.push({
          color: GROUP_COLORS[rank % GROUP_COLORS.length],
          type: tile.display === 'stacked_bar' ? 'bar' : 'line',
          ...(tile.display === 'stacked_bar' ? { stack: `tile-${index}` } : { showSymbol: false }),
          name: pictureText(group, 40),
          xAxisIndex: index,
          yAxisIndex: index,
          data: points,
          silent: true,
        });
    }
  return grid.length === 0 ? {} : { grid, xAxis, yAxis, series };
}

function groups(points: readonly { bucket: number; group: string; value: number | null }[]): [string, [number, number | null][]][] {
  const byGroup = new Map<string, [number, number | null][]>();
  for (const p of points) {
    if (!Number.isFinite(p.bucket)) continue;
    const list = byGroup.get(p.group) ?? [];
    list.push([p.bucket, p.value]);
    byGroup.set(p.group, list);
  }
  const total = (list: [number, number | null][]) => list.reduce((sum, [, v]) => sum + Math.abs(v ?? 0), 0);
  return [...byGroup]
    .map(([g, list]) => [g, list.sort((a, b) => a[0] - b[0])] as [string, [number, number | null][]])
    .sort((a, b) => total(b[1]) - total(a[1]))
    .slice(0, MAX_GROUPS);
}
