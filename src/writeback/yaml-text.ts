/**
 * Offsets and lines of a YAML file being edited in place: where a line starts and ends, the
 * column of an offset, the file's line ending and its indentation habits, and the text changes
 * (splices) that are applied to it in one pass.
 */
import { isMap, isPair, isScalar, isSeq, visit, type Document } from 'yaml';
import type { Layout } from './yaml-render.js';

/** A replacement of `text[start, end)`; zero-length ones insert. */
export interface Splice {
  start: number;
  end: number;
  text: string;
}

export function lineStart(text: string, offset: number): number {
  return text.lastIndexOf('\n', offset - 1) + 1;
}

export function column(text: string, offset: number): number {
  return offset - lineStart(text, offset);
}

/** The offset after the line break of the line holding `offset - 1` (the end of a node's last line); the file's end when it has none. */
export function afterLine(text: string, offset: number): number {
  if (offset > 0 && text[offset - 1] === '\n') return offset;
  const i = text.indexOf('\n', offset);
  return i < 0 ? text.length : i + 1;
}

/** The offset of the line break ending the line that holds `offset` (not included), or the file's end. */
export function lineBreakAt(text: string, offset: number): number {
  const i = text.indexOf('\n', offset);
  if (i < 0) return text.length;
  return i > 0 && text[i - 1] === '\r' ? i - 1 : i;
}

export function lineEnding(text: string): string {
  return text.includes('\r\n') ? '\r\n' : '\n';
}

/** 1-based line of an offset. */
export function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i >= 0 && i < offset; i = text.indexOf('\n', i + 1)) line += 1;
  return line;
}

/** Inserting whole lines at `at`: the lines, each ended; at the end of a file without a final line break, that break first. */
export function linesAt(text: string, at: number, lines: readonly string[], eol: string): Splice {
  const body = lines.join(eol);
  if (at === text.length && text.length > 0 && !text.endsWith('\n')) return { start: at, end: at, text: `${eol}${body}` };
  return { start: at, end: at, text: `${body}${eol}` };
}

/** How the document indents block collections: the first nested map and list found say it (2 and indented lists by default). */
export function layoutOf(text: string, doc: Document): Layout {
  let unit: number | undefined;
  let indentSeq: boolean | undefined;
  visit(doc, {
    Pair(_key, pair) {
      if (!isPair(pair) || !isScalar(pair.key) || !pair.key.range) return undefined;
      const value = pair.value;
      if (!(isMap(value) || isSeq(value)) || value.flow === true || !value.range) return undefined;
      const keyColumn = column(text, pair.key.range[0]);
      const valueColumn = column(text, value.range[0]);
      if (isMap(value) && unit === undefined && valueColumn > keyColumn) unit = valueColumn - keyColumn;
      if (isSeq(value) && indentSeq === undefined) indentSeq = valueColumn > keyColumn;
      return unit !== undefined && indentSeq !== undefined ? visit.BREAK : undefined;
    },
  });
  return { unit: unit ?? 2, indentSeq: indentSeq ?? true };
}

/** The text with the splices made; undefined when two of them overlap. Insertions at one offset keep their order. */
export function applySplices(text: string, splices: readonly Splice[]): string | undefined {
  const ordered = splices
    .map((s, i) => ({ ...s, i }))
    .sort((a, b) => a.start - b.start || Number(a.end > a.start) - Number(b.end > b.start) || a.i - b.i);
  let out = '';
  let at = 0;
  for (const s of ordered) {
    if (s.start < at) return undefined;
    out += text.slice(at, s.start) + s.text;
    at = s.end;
  }
  return out + text.slice(at);
}
