/**
 * The one pass every text of a picture goes through (a dashboard, tile or alert name, a query):
 * characters that act instead of showing are escaped by `printable` as everywhere else in
 * obsync's output, and a long text is cut. Markup characters are left to the renderer: ECharts
 * writes every text node and attribute of its SVG escaped (a unit test of ./svg.ts holds it to that).
 */
import { printable } from '../../core/printable.js';

/** A text drawn in a picture, at most `max` characters (cut with an ellipsis). */
export function pictureText(value: string, max = 80): string {
  const shown = printable(value);
  return shown.length <= max ? shown : `${shown.slice(0, Math.max(0, max - 1))}…`;
}
