/**
 * The data of line and stacked-bar tiles as ECharts grids, axes and series, each grid inside its
 * tile's box (below the title and the type). At most MAX_GROUPS groups a tile, the largest first.
 */
import { tileBox } from './layout.js';
import type { PreviewTile } from './model.js';
import { pictureText } from './text.js';

const MAX_GROUPS = 5;
const TOP = 40;

export function chartsOf(tiles: readonly PreviewTile[], left: number, dy: number): Record<string, unknown[]> {
  const grid: unknown[] = [];
  const xAxis: unknown[] = [];
  const yAxis: unknown[] = [];
  const series: unknown[] = [];
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
    for (const [group, points] of groups(tile.data.points))
      series.push({
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
