/**
 * JSON values laid out for people: on one line when they fit the width, otherwise nested (objects
 * as `key: value` lines, arrays as `- item` lines) and long strings word-wrapped in YAML's block
 * styles (`>` folded: its line breaks are spaces; `|` literal: the text's own lines). Nothing is
 * ever cut: a reviewer reads every value whatever its size.
 */
import { SENSITIVE } from '../core/secret.js';
import type { Json } from '../core/wire.js';

/** The whole value on one line (JSON, keys unquoted where they are plain words; secrets as `(sensitive)`). */
export function inlineValue(value: Json | undefined): string {
  if (value === undefined) return '(absent)';
  if (value === SENSITIVE) return SENSITIVE;
  if (Array.isArray(value)) return `[${value.map(inlineValue).join(', ')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value);
    return entries.length === 0 ? '{}' : `{${entries.map(([k, v]) => `${plainKey(k)}: ${inlineValue(v)}`).join(', ')}}`;
  }
  return JSON.stringify(value);
}

/**
 * Lines of `label: value` starting at column `indent`, within `width` columns where the value
 * allows (a single word longer than the width stays whole).
 */
export function valueLines(label: string, value: Json | undefined, indent: number, width: number): string[] {
  const pad = ' '.repeat(indent);
  const inline = inlineValue(value);
  const head = `${pad}${label}:`;
  if (head.length + 1 + inline.length <= width || !isLayable(value)) return [`${head} ${inline}`];
  if (typeof value === 'string') return [`${head} ${value.includes('\n') ? '|' : '>'}`, ...textLines(value, indent + 2, width)];
  if (Array.isArray(value)) return [head, ...value.flatMap((item) => itemLines(item, indent + 2, width))];
  return [head, ...Object.entries(value as Record<string, Json>).flatMap(([k, v]) => valueLines(plainKey(k), v, indent + 2, width))];
}

/** An array item: `- value`, or an object's first field after the dash and the others under it. */
function itemLines(item: Json, indent: number, width: number): string[] {
  const pad = ' '.repeat(indent);
  const inline = inlineValue(item);
  if (pad.length + 2 + inline.length <= width || !isLayable(item)) return [`${pad}- ${inline}`];
  if (typeof item === 'string') return [`${pad}- ${item.includes('\n') ? '|' : '>'}`, ...textLines(item, indent + 2, width)];
  if (Array.isArray(item)) return [`${pad}-`, ...item.flatMap((i) => itemLines(i, indent + 2, width))];
  const lines = Object.entries(item as Record<string, Json>).flatMap(([k, v]) => valueLines(plainKey(k), v, indent + 2, width));
  const first = lines[0] ?? '';
  return [`${pad}- ${first.slice(indent + 2)}`, ...lines.slice(1)];
}

/** Non-empty objects and arrays, and strings, can spread over several lines; other values cannot. */
function isLayable(value: Json | undefined): boolean {
  if (typeof value === 'string') return value !== SENSITIVE;
  if (Array.isArray(value)) return value.length > 0;
  return value !== null && typeof value === 'object' && Object.keys(value).length > 0;
}

/** The text's lines, each word-wrapped at `width` (a longer word is split). */
export function textLines(text: string, indent: number, width: number): string[] {
  const pad = ' '.repeat(indent);
  const room = Math.max(20, width - indent);
  const lines = text.split('\n');
  // A final line break is part of the block style, not an empty line of its own.
  if (lines.length > 1 && lines.at(-1) === '') lines.pop();
  return lines.flatMap((line) => wrapWords(line, room).map((l) => `${pad}${l}`));
}

function wrapWords(line: string, room: number): string[] {
  if (line.length <= room) return [line];
  const out: string[] = [];
  let current = '';
  for (const word of line.split(' ')) {
    const next = current === '' ? word : `${current} ${word}`;
    if (next.length <= room) {
      current = next;
      continue;
    }
    if (current !== '') out.push(current);
    current = word;
    while (current.length > room) {
      out.push(current.slice(0, room));
      current = current.slice(room);
    }
  }
  out.push(current);
  return out;
}

function plainKey(key: string): string {
  return /^[A-Za-z_$][\w$-]*$/.test(key) ? key : JSON.stringify(key);
}
