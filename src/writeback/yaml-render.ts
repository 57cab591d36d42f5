/**
 * YAML text for the values `obsync pull` writes into a manifest: a scalar in the quoting style
 * the one it replaces had (where the new value allows it), flow collections (`{x: 0, y: 0}`,
 * `[a, b]`) and block collections at a given indentation. Every piece is checked by parsing it
 * back: a style that would change the value (a plain `5` that must stay a string, a `: ` inside a
 * plain string) gives way to a double-quoted string, which holds any value.
 */
import { parse, Scalar } from 'yaml';
import { isJsonObject } from '../core/json.js';
import type { Json } from '../core/wire.js';

/** How block collections are laid out in the file being edited. */
export interface Layout {
  /** Spaces per level. */
  unit: number;
  /** Whether a list under a key is indented (`key:\n  - a`) or not (`key:\n- a`). */
  indentSeq: boolean;
}

export function isCollection(value: Json | undefined): value is Json[] | { [k: string]: Json } {
  return Array.isArray(value) || isJsonObject(value);
}

/** A scalar value as YAML text in flow or block context, in the style of `like` when it has one and the value allows. */
export function renderScalar(value: Json, context: 'flow' | 'block', like?: Scalar): string {
  if (typeof value !== 'string') return scalarText(value, context);
  const style = like?.type;
  if (style === Scalar.QUOTE_SINGLE && !value.includes('\n')) {
    const single = `'${value.replaceAll("'", "''")}'`;
    if (readsBack(single, value, context)) return single;
  }
  if (style === Scalar.QUOTE_DOUBLE) return doubleQuoted(value);
  if ((style === undefined || style === Scalar.PLAIN) && readsBack(value, value, context)) return value;
  return doubleQuoted(value);
}

function scalarText(value: Json, context: 'flow' | 'block'): string {
  if (value === null) return 'null';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') {
    const text = String(value);
    return readsBack(text, value, context) ? text : JSON.stringify(value);
  }
  return renderFlow(value);
}

/** A double-quoted YAML string (JSON's escapes are YAML's). */
export function doubleQuoted(value: string): string {
  return JSON.stringify(value);
}

/** Whether `text` in that context parses back to exactly `value`, on one line. */
function readsBack(text: string, value: Json, context: 'flow' | 'block'): boolean {
  if (text === '' || /[\r\n]/.test(text)) return false;
  try {
    if (context === 'flow') {
      const read = parse(`[${text}]`) as unknown;
      return Array.isArray(read) && read.length === 1 && Object.is(read[0], value);
    }
    const read = parse(`k: ${text}`) as unknown;
    return typeof read === 'object' && read !== null && Object.is((read as { k?: unknown }).k, value);
  } catch {
    return false;
  }
}

/** A map key as YAML text. */
export function renderKey(key: string): string {
  return readsBack(key, key, 'flow') && !/[:#]/.test(key) ? key : doubleQuoted(key);
}

/** Any value in flow style, on one line. */
export function renderFlow(value: Json): string {
  if (Array.isArray(value)) return `[${value.map(renderFlow).join(', ')}]`;
  if (isJsonObject(value))
    return `{${Object.entries(value)
      .map(([k, v]) => `${renderKey(k)}: ${renderFlow(v)}`)
      .join(', ')}}`;
  return renderScalar(value, 'flow');
}

/** The text after `key:` for a value in block context: ` value` on the same line, or the block below it. */
export function renderPairValue(value: Json, keyColumn: number, layout: Layout, eol: string): string {
  if (!isCollection(value) || inlined(value)) return ` ${isCollection(value) ? renderFlow(value) : renderScalar(value, 'block')}`;
  const indent = Array.isArray(value) && !layout.indentSeq ? keyColumn : keyColumn + layout.unit;
  return `${eol}${renderBlock(value, indent, layout).join(eol)}`;
}

/** `- item` lines of a list item at `column` (the dash's). */
export function renderItem(value: Json, column: number, layout: Layout): string[] {
  const pad = ' '.repeat(column);
  if (isJsonObject(value) && !isEmpty(value)) {
    const lines = renderBlock(value, column + 2, layout);
    return [`${pad}- ${(lines[0] ?? '').trimStart()}`, ...lines.slice(1)];
  }
  return [`${pad}- ${isCollection(value) ? renderFlow(value) : renderScalar(value, 'block')}`];
}

/** A non-empty collection in block style, every line indented by `indent` spaces. */
export function renderBlock(value: Json[] | { [k: string]: Json }, indent: number, layout: Layout): string[] {
  if (Array.isArray(value)) return value.flatMap((item) => renderItem(item, indent, layout));
  const pad = ' '.repeat(indent);
  const out: string[] = [];
  for (const [key, item] of Object.entries(value)) {
    const head = `${pad}${renderKey(key)}:`;
    if (!isCollection(item) || inlined(item)) out.push(`${head}${renderPairValue(item, indent, layout, '\n')}`);
    else out.push(head, ...renderBlock(item, Array.isArray(item) && !layout.indentSeq ? indent : indent + layout.unit, layout));
  }
  return out;
}

function isEmpty(value: Json[] | { [k: string]: Json }): boolean {
  return Array.isArray(value) ? value.length === 0 : Object.keys(value).length === 0;
}

/** Written on its key's line: an empty collection, or a list of scalars (`tags: [a, b]`). */
function inlined(value: Json[] | { [k: string]: Json }): boolean {
  return isEmpty(value) || (Array.isArray(value) && !value.some(isCollection));
}

/**
 * A block scalar (`|`) holding `value`, its content lines at `indent` (at least 1): the header,
 * then the lines, ending with a line break. Undefined when a literal block cannot hold it exactly
 * (a first line that starts with a space, a carriage return, trailing spaces on a blank line).
 */
export function renderLiteral(value: string, indent: number, eol: string): string | undefined {
  const trailing = /\n*$/.exec(value)?.[0].length ?? 0;
  const chomp = trailing === 0 ? '-' : trailing === 1 ? '' : '+';
  const body = value.slice(0, value.length - trailing);
  const pad = ' '.repeat(Math.max(1, indent));
  const lines = body.split('\n').map((line) => (line === '' ? '' : `${pad}${line}`));
  const text = `|${chomp}\n${lines.join('\n')}\n${'\n'.repeat(Math.max(0, trailing - 1))}`;
  try {
    const read = parse(`k: ${text}`) as { k?: unknown } | null;
    return read?.k === value ? text.replaceAll('\n', eol) : undefined;
  } catch {
    return undefined;
  }
}
