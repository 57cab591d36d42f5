/**
 * The data of line, stacked-bar, bar and pie tiles as ECharts grids, axes and series, each inside its
 * tile's box (below the title and the type), in every panel (before and after). At most MAX_GROUPS
 * groups a tile, the largest first; a group's colour is its rank's.
 */
import { type Box, tileBox } from './layout.js';
import type { PreviewTile } from './model.js';
import { pictureText } from './text.js';
import { GROUP_COLORS, groupLabel, MAX_GROUPS, pieGeometry, tileGroups } from './tile-content.js';

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
      if (tile.display === 'pie') {
        series.push(pieSeries(tile, box, dy));
        continue;
      }
      if (tile.display !== 'line' && tile.display !== 'stacked_bar' && tile.display !== 'bar') continue;
      const index = grid.length;
      grid.push({
        left: box.x + 34,
        top: box.y + dy + TOP,
        width: Math.max(10, box.width - 44),
        height: Math.max(10, box.height - TOP - 18),
      });
      yAxis.push({ type: 'value', gridIndex: index, axisLabel: { fontSize: 8 }, splitNumber: 2 });
      if (tile.display === 'bar') {
        const groups = tileGroups(tile).slice(0, MAX_GROUPS);
        const names = groups.map((g) => pictureText(groupLabel(g.group), 14));
        xAxis.push({ type: 'category', gridIndex: index, data: names, axisLabel: { fontSize: 8, interval: 0 } });
        const data = groups.map((g, rank) => ({ value: g.value, itemStyle: { color: GROUP_COLORS[rank] } }));
        series.push({ type: 'bar', xAxisIndex: index, yAxisIndex: index, data, silent: true });
        continue;
      }
      xAxis.push({ type: 'time', gridIndex: index, axisLabel: { fontSize: 8 }, splitLine: { show: false } });
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

/** A pie of the tile's groups (each its value over the window) in the tile's left part; the legend is ./tile-content.ts's. */
function pieSeries(tile: PreviewTile, box: Box, dy: number): Record<string, unknown> {
  const { cx, cy, radius } = pieGeometry(box);
  const data = tileGroups(tile)
    .slice(0, MAX_GROUPS)
    .map((g, rank) => ({ name: pictureText(groupLabel(g.group), 40), value: g.value, itemStyle: { color: GROUP_COLORS[rank] } }))
    .filter((d) => d.value > 0);
  return { type: 'pie', center: [cx, cy + dy], radius, data, label: { show: false }, silent: true, animation: false };
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
