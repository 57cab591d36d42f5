/** Where a tile lands in a picture: the service's 24-column grid scaled to a panel of fixed width. */
import type { PreviewTile } from './model.js';

export const GRID_COLUMNS = 24;
export const PANEL_WIDTH = 720;
export const ROW_HEIGHT = 28;
export const HEADER_HEIGHT = 36;
export const GAP = 6;

export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** The tile's rectangle inside a panel whose left edge is `left`; the gap is taken from its right and bottom. */
export function tileBox(tile: PreviewTile, left: number): Box {
  const column = PANEL_WIDTH / GRID_COLUMNS;
  const x = Math.min(tile.x, GRID_COLUMNS - 1);
  const w = Math.min(tile.w, GRID_COLUMNS - x);
  return { x: left + x * column, y: HEADER_HEIGHT + tile.y * ROW_HEIGHT, width: w * column - GAP, height: tile.h * ROW_HEIGHT - GAP };
}

/** The height a panel needs for its tiles (at least one row). */
export function panelHeight(tiles: readonly PreviewTile[]): number {
  const rows = Math.max(1, ...tiles.map((t) => t.y + t.h));
  return HEADER_HEIGHT + rows * ROW_HEIGHT + GAP;
}
