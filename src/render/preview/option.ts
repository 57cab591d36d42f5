/**
 * A dashboard as an ECharts option: each tile a framed panel placed by ./layout.ts with its title,
 * its display type and what it shows (./tile-content.ts, ./series.ts), or its query marked "no data
 * preview"; an update is two panels, before and
 * after, the changed tiles of the after side outlined. Every text goes through `pictureText`.
 */
import { GAP, HEADER_HEIGHT, PANEL_WIDTH, panelHeight, tileBox, type Box } from './layout.js';
import { changedTiles, tilesOf, type DashboardPreviewInput, type PreviewTile } from './model.js';
import { chartsOf } from './series.js';
import { FONT_FAMILY, pictureText } from './text.js';
import { contentGraphics, DATA_DISPLAYS, type Graphic, graphicText as text, hasPoints } from './tile-content.js';

export { FONT_FAMILY };
/** The frame of a tile, and of a changed tile: tests find tiles by these strokes. */
export const TILE_STROKE = '#8a94a6';
export const CHANGED_STROKE = '#d9480f';

export interface PictureOption {
  width: number;
  height: number;
  option: Record<string, unknown>;
}

export function dashboardOption(input: DashboardPreviewInput): PictureOption {
  const after = tilesOf(input.after, input.data);
  const before = input.before ? tilesOf(input.before, input.beforeData) : undefined;
  const changed = before ? changedTiles(before, after) : new Set<string>();
  const panels = before ? [panel('before', before, 0, new Set()), panel('after', after, PANEL_WIDTH + 2 * GAP, changed)] : [];
  const graphics = before ? panels.flat() : panel('', after, 0, changed);
  const width = before ? 2 * PANEL_WIDTH + 2 * GAP : PANEL_WIDTH;
  const height = Math.max(panelHeight(after), before ? panelHeight(before) : 0) + HEADER_HEIGHT;
  return {
    width,
    height,
    option: {
      animation: false,
      // Times on the axes in UTC: the same picture on every machine, whatever its time zone.
      useUTC: true,
      backgroundColor: '#ffffff',
      textStyle: { fontFamily: FONT_FAMILY },
      title: { text: pictureText(input.name), left: 4, top: 4, textStyle: { fontFamily: FONT_FAMILY, fontSize: 15 } },
      graphic: { elements: graphics.map((g) => shifted(g, HEADER_HEIGHT)) },
      ...chartsOf(
        before
          ? [
              { tiles: before, left: 0 },
              { tiles: after, left: PANEL_WIDTH + 2 * GAP },
            ]
          : [{ tiles: after, left: 0 }],
        HEADER_HEIGHT,
      ),
    },
  };
}

function panel(label: string, tiles: readonly PreviewTile[], left: number, changed: ReadonlySet<string>): Graphic[] {
  const heading: Graphic[] = label ? [text(label, left + 4, 8, { fontSize: 13, fontWeight: 'bold', fill: '#333' })] : [];
  return [...heading, ...tiles.flatMap((t) => tileGraphics(t, tileBox(t, left), changed.has(t.key)))];
}

function tileGraphics(tile: PreviewTile, box: Box, changed: boolean): Graphic[] {
  const frame: Graphic = {
    type: 'rect',
    silent: true,
    shape: { ...box, r: 3 },
    style: { fill: '#f7f8fa', stroke: changed ? CHANGED_STROKE : TILE_STROKE, lineWidth: changed ? 3 : 1 },
  };
  const inner = box.width - 12;
  const chars = Math.max(4, Math.floor(inner / 7));
  const lines = [
    text(tile.name || '(untitled tile)', box.x + 6, box.y + 6, { fontSize: 12, fontWeight: 'bold', fill: '#1f2328', width: inner }, chars),
    text(tile.display, box.x + 6, box.y + 22, { fontSize: 10, fill: '#57606a' }, chars),
  ];
  const content = contentGraphics(tile, box);
  if (tile.query && box.height > 52 && !hasPoints(tile) && content.length === 0)
    lines.push(text(tile.query, box.x + 6, box.y + 36, { fontSize: 10, fill: '#57606a' }, chars));
  lines.push(...content);
  if (DATA_DISPLAYS.has(tile.display) && !hasPoints(tile) && box.height > 30) {
    const why = tile.data && 'reason' in tile.data ? `: ${tile.data.reason}` : '';
    lines.push(text(`no data preview${why}`, box.x + 6, box.y + box.height - 16, { fontSize: 10, fill: '#9a6700' }, chars));
  }
  return [frame, ...lines];
}

function shifted(g: Graphic, dy: number): Graphic {
  if (g.type === 'rect' && typeof g.shape === 'object' && g.shape !== null) {
    const shape = g.shape as Box;
    return { ...g, shape: { ...shape, y: shape.y + dy } };
  }
  return typeof g.y === 'number' ? { ...g, y: g.y + dy } : g;
}
