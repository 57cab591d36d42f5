/**
 * What is drawn inside a tile below its title and type, by display type: a number's value large with
 * what it covers, a table's first groups and values, a pie's legend, a markdown text on several lines.
 * Lines, stacked bars, bars and the pie itself are ECharts series (./series.ts). Every text through
 * `pictureText`.
 */
import type { Box } from './layout.js';
import type { PreviewTile } from './model.js';
import { FONT_FAMILY, pictureText } from './text.js';
import { aggregateCaption, type GroupValue, groupValues, numberText } from './tile-values.js';

/** The displays drawn with data when the target has it. */
export const DATA_DISPLAYS: ReadonlySet<string> = new Set(['line', 'stacked_bar', 'number', 'table', 'pie', 'bar']);
/** One colour per group rank in a tile (ECharts' first five): a tile's groups look the same before and after. */
export const GROUP_COLORS = ['#5470c6', '#91cc75', '#fac858', '#ee6666', '#73c0de'] as const;
export const MAX_GROUPS = GROUP_COLORS.length;
/** Where a tile's content starts below its top edge (under the title and the type). */
export const CONTENT_TOP = 36;
const LINE_HEIGHT = 13;

export type Graphic = Record<string, unknown>;

export function hasPoints(tile: PreviewTile): boolean {
  return tile.data !== undefined && 'points' in tile.data && tile.data.points.length > 0;
}

/** The groups of a number, table, pie or bar tile with their value over the window, the largest first. */
export function tileGroups(tile: PreviewTile): GroupValue[] {
  if (!tile.data || !('points' in tile.data)) return [];
  const points = tile.display === 'number' ? tile.data.points.map((p) => ({ ...p, group: '' })) : tile.data.points;
  return groupValues(points, tile.aggregate);
}

export function groupLabel(group: string): string {
  return group === '' ? '(all)' : group;
}

/** The graphics of a tile's content; none when it is drawn by ECharts series alone or has nothing to show. */
export function contentGraphics(tile: PreviewTile, box: Box): Graphic[] {
  const chars = Math.max(4, Math.floor((box.width - 12) / 7));
  if (tile.display === 'markdown') return markdownLines(tile.query, box, chars);
  if (!hasPoints(tile)) return [];
  const groups = tileGroups(tile);
  if (tile.display === 'number') return numberGraphics(tile, groups[0]?.value, box);
  if (tile.display === 'table') return tableRows(tile, groups, box, chars);
  if (tile.display === 'pie') return pieLegend(tile, groups, box);
  return [];
}

function numberGraphics(tile: PreviewTile, value: number | undefined, box: Box): Graphic[] {
  const shown = value === undefined ? 'N/A' : numberText(value, tile.numberFormat);
  const room = box.height - CONTENT_TOP - 16;
  const size = Math.round(Math.max(12, Math.min(40, room * 0.8, (box.width - 12) / (0.62 * Math.max(1, shown.length)))));
  const middle = box.x + box.width / 2;
  const fontStyle = { fontSize: size, fontWeight: 'bold', fill: '#1f2328', align: 'center', verticalAlign: 'middle' };
  return [
    graphicText(shown, middle, box.y + CONTENT_TOP + room / 2, fontStyle, 24),
    graphicText(aggregateCaption(tile.aggregate), middle, box.y + box.height - 14, { fontSize: 9, fill: '#57606a', align: 'center' }),
  ];
}

function tableRows(tile: PreviewTile, groups: readonly GroupValue[], box: Box, chars: number): Graphic[] {
  const fits = Math.max(0, Math.floor((box.height - CONTENT_TOP - 4) / LINE_HEIGHT));
  const shown = groups.slice(0, groups.length > fits ? fits - 1 : fits);
  const rows = shown.flatMap((g, i) => {
    const y = box.y + CONTENT_TOP + i * LINE_HEIGHT;
    const value = numberText(g.value, tile.numberFormat);
    return [
      graphicText(groupLabel(g.group), box.x + 6, y, { fontSize: 10, fill: '#1f2328' }, Math.max(4, chars - value.length - 2)),
      graphicText(value, box.x + box.width - 6, y, { fontSize: 10, fill: '#1f2328', align: 'right' }, 20),
    ];
  });
  const more = groups.length - shown.length;
  if (more > 0 && fits > 0)
    rows.push(
      graphicText(`… ${more} more`, box.x + 6, box.y + CONTENT_TOP + shown.length * LINE_HEIGHT, { fontSize: 10, fill: '#57606a' }),
    );
  return rows;
}

/** The pie's legend to the right of the pie (./series.ts draws the pie in the tile's left part). */
function pieLegend(tile: PreviewTile, groups: readonly GroupValue[], box: Box): Graphic[] {
  const { legendX } = pieGeometry(box);
  const fits = Math.max(0, Math.floor((box.height - CONTENT_TOP - 4) / LINE_HEIGHT));
  const chars = Math.max(4, Math.floor((box.x + box.width - 6 - legendX) / 6));
  return groups
    .slice(0, Math.min(fits, MAX_GROUPS))
    .map((g, i) =>
      graphicText(
        `${groupLabel(g.group)}: ${numberText(g.value, tile.numberFormat)}`,
        legendX,
        box.y + CONTENT_TOP + i * LINE_HEIGHT,
        { fontSize: 9, fill: GROUP_COLORS[i] ?? '#1f2328', fontWeight: 'bold' },
        chars,
      ),
    );
}

/** Where a pie sits in its tile (relative to the box, before the panel header shift) and where its legend starts. */
export function pieGeometry(box: Box): { cx: number; cy: number; radius: number; legendX: number } {
  const height = box.height - CONTENT_TOP - 6;
  const radius = Math.max(4, Math.min(height / 2, box.width * 0.22));
  return { cx: box.x + 8 + radius, cy: box.y + CONTENT_TOP + height / 2, radius, legendX: box.x + 16 + 2 * radius };
}

/** A markdown text on as many lines as the tile holds, each cut to its width, the empty ones left out. */
function markdownLines(markdown: string, box: Box, chars: number): Graphic[] {
  const fits = Math.max(0, Math.floor((box.height - CONTENT_TOP - 4) / LINE_HEIGHT));
  const lines = markdown
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '');
  const shown = lines.length > fits ? [...lines.slice(0, Math.max(0, fits - 1)), '…'] : lines;
  return shown.map((line, i) => {
    const heading = /^#{1,6}\s/.test(line);
    const style = { fontSize: 10, fill: '#1f2328', ...(heading ? { fontWeight: 'bold' } : {}) };
    return graphicText(heading ? line.replace(/^#{1,6}\s+/, '') : line, box.x + 6, box.y + CONTENT_TOP + i * LINE_HEIGHT, style, chars);
  });
}

export function graphicText(value: string, x: number, y: number, style: Record<string, unknown>, max = 80): Graphic {
  return { type: 'text', silent: true, x, y, style: { text: pictureText(value, max), fontFamily: FONT_FAMILY, ...style } };
}
