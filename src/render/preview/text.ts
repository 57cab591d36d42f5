/**
 * The one pass every text of a picture goes through (a dashboard, tile or alert name, a query):
 * characters that act instead of showing are escaped by `printable` as everywhere else in
 * obsync's output, and a long text is cut. Markup characters are left to the renderer: ECharts
 * writes every text node and attribute of its SVG escaped (a unit test of ./svg.ts holds it to that).
 */
import { printable } from '../../core/printable.js';

/** The one font of every picture (bundled for the PNG: ./png.ts). */
export const FONT_FAMILY = 'DejaVu Sans';

/** A text drawn in a picture, at most `max` characters (cut with an ellipsis). */
export function pictureText(value: string, max = 80): string {
  const shown = printable(value);
  return shown.length <= max ? shown : `${shown.slice(0, Math.max(0, max - 1))}…`;
}

/**
 * A text in a Mermaid block (a title, an axis or line label), after `pictureText`. Mermaid's grammar
 * ends a quoted string at `"`; before parsing it reads `%%` as a comment or a `%%{init}%%` directive
 * and `#name;` as an entity, and a renderer may read markup: so only letters, digits, spaces and
 * harmless punctuation pass, `<`, `>` and `%` become look-alikes and anything else `_`.
 */
export function mermaidText(value: string, max = 80): string {
  return pictureText(value, max).replace(MERMAID_UNSAFE, (c) => MERMAID_LOOKALIKE[c] ?? '_');
}

const MERMAID_UNSAFE = /[^\p{L}\p{N} .,:/()[\]+\-=*'!?@$^~|\\_…→]/gu;
const MERMAID_LOOKALIKE: Readonly<Record<string, string>> = { '<': '‹', '>': '›', '%': '٪', '"': "'", '`': "'" };
