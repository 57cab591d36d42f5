/**
 * YAML syntax errors as a person would explain them: one error per mistake, at the line that
 * holds it, with a plain hint (a tab, a missing colon or space after it, an indentation that does
 * not fit, a quote or bracket never closed, a key written twice). The parser reports a mistake
 * several times — every line after a wrong indentation is "not allowed in compact mappings" — so
 * errors inside the block of the first one are its consequences and are left out.
 */
import type { LineCounter } from 'yaml';
import type { Diagnostic } from '../core/diagnostics.js';
import { keyOf, isContent, indentOf, firstColumn, previousContentLine, nextContentLine } from './yaml-lines.js';

interface ParserError {
  code: string;
  message: string;
  pos: [number, number];
}

interface Mistake {
  line: number;
  col: number;
  message: string;
}

export function explainYamlErrors(file: string, text: string, errors: readonly ParserError[], lc: LineCounter): Diagnostic[] {
  // Asked for every document of a file: splitting the whole file for each of 500 error-free documents was most of a large load.
  if (errors.length === 0) return [];
  const lines = text.split('\n');
  // A tab is the cause of whatever the parser says around it (the line above included): first.
  const tabFirst = (e: ParserError) => (e.code === 'TAB_AS_INDENT' ? 0 : 1);
  const sorted = [...errors].sort((a, b) => tabFirst(a) - tabFirst(b) || a.pos[0] - b.pos[0]);
  const out: Diagnostic[] = [];
  const regions: { from: number; to: number }[] = [];
  for (const e of sorted) {
    const { line } = lc.linePos(e.pos[0]);
    if (regions.some((r) => line >= r.from && line <= r.to)) continue;
    const mistake = explain(e, line, lines, lc);
    // The line above a mistake is where the parser often notices it ("…: key:" with the mistake below).
    regions.push({ from: Math.min(line, mistake.line) - 1, to: Math.max(line, blockEnd(lines, mistake.line)) });
    out.push({
      severity: 'error',
      code: e.code === 'RESOURCE_EXHAUSTION' ? 'limit' : 'yaml-syntax',
      message: `YAML: ${mistake.message}`,
      file,
      line: mistake.line,
      col: mistake.col,
    });
  }
  return out.sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
}

/** The parser's first sentence, without its position. */
function parserSentence(e: ParserError): string {
  const first = e.message.split('\n')[0] ?? e.message;
  return first.replace(/ at line \d+, column \d+:?$/, '');
}

function explain(e: ParserError, line: number, lines: readonly string[], lc: LineCounter): Mistake {
  const text = lines[line - 1] ?? '';
  const sentence = parserSentence(e);
  const at = lc.linePos(e.pos[0]);
  const start = { line, col: firstColumn(text) };
  if (e.code === 'TAB_AS_INDENT' || /^[ ]*\t/.test(text))
    return {
      line,
      col: Math.max(1, text.indexOf('\t') + 1),
      message: 'a tab indents this line; YAML indents with spaces only: replace the tab with spaces',
    };
  if (e.code === 'DUPLICATE_KEY') {
    const key = keyOf(text);
    return { ...at, message: `${key ? `the key '${key}'` : 'this key'} appears twice in this mapping (map keys must be unique)` };
  }
  if (e.code === 'MISSING_CHAR' && /closing ["']quote/.test(sentence)) {
    const quote = sentence.includes('"quote') ? '"' : "'";
    const opened = unclosedQuote(lines, line, quote);
    if (opened)
      return { ...opened, message: `the ${quote} opened here is never closed (a value that starts with a quote must end with one)` };
  }
  if (/^Flow (sequence|mapping)/.test(sentence)) {
    const bracket = sentence.startsWith('Flow sequence') ? '[' : '{';
    const opened = unclosedBracket(lines, line, bracket);
    if (opened)
      return {
        ...opened,
        message:
          `the '${bracket}' opened here is never closed with '${bracket === '[' ? ']' : '}'}' (or a line inside it is ` +
          `indented less than its key)`,
      };
  }
  const colon = missingColon(text);
  if (colon) return { ...start, message: colon };
  if (INDENTATION.has(e.code) || /indent|same column|without - indicator|compact mapping|single line/i.test(sentence))
    return { ...start, message: indentation(lines, line) };
  return { ...at, message: sentence };
}

const INDENTATION = new Set(['BAD_INDENT', 'BLOCK_AS_IMPLICIT_KEY', 'MULTILINE_IMPLICIT_KEY']);

/** `-key: a` (no space after a list dash), `w:12` (none after the colon) or `tags [a]` (no colon) on a line that should be `key: value`. */
function missingColon(text: string): string | undefined {
  const dash = /^\s*-([^\s-].*)$/.exec(text);
  if (dash) return `a space is missing after the '-' of this list item: write '- ${dash[1] ?? ''}'`;
  const content = text.replace(/^\s*(-\s+)?/, '');
  if (content === '' || content.startsWith('#') || /^["'[{|>&*!]/.test(content)) return undefined;
  const glued = /^([A-Za-z_][\w.-]*):([^\s/:][^\s]*)/.exec(content);
  if (glued) return `a space is missing after the colon: write '${glued[1]}: ${glued[2]}', not '${glued[0]}'`;
  const noColon = /^([A-Za-z_][\w.-]*)\s+(\S.*)$/.exec(content);
  if (noColon && !/:(\s|$)/.test(content))
    return `a colon is missing after '${noColon[1]}': write '${noColon[1]}: ${noColon[2]?.trim() ?? ''}'`;
  return undefined;
}

function indentation(lines: readonly string[], line: number): string {
  const text = lines[line - 1] ?? '';
  const here = indentOf(text);
  const above = previousContentLine(lines, line);
  const next = nextContentLine(lines, line);
  const nextIndent = next === undefined ? -1 : indentOf(lines[next - 1] ?? '');
  // `key: value` followed by a deeper line: YAML reads that line as more of the value.
  if (next !== undefined && nextIndent > here && /:\s+[^\s#]/.test(text))
    return (
      `line ${next} is indented more than this line (${nextIndent} spaces there, ${here} here), so YAML reads it as more of ` +
      `this line's value: keys of one mapping start in the same column`
    );
  const neighbour = [above, next].find((n) => n !== undefined && indentOf(lines[n - 1] ?? '') !== here);
  const detail =
    neighbour === undefined
      ? ''
      : ` (${here} space${here === 1 ? '' : 's'} here, ${indentOf(lines[neighbour - 1] ?? '')} on line ${neighbour})`;
  return (
    `the indentation of this line does not fit the lines around it${detail}: keys of one mapping, and items of one list, start ` +
    `in the same column`
  );
}

/** The last line of the block the mistake's line sits in: until a line indented no more than its parent. */
function blockEnd(lines: readonly string[], line: number): number {
  const indent = indentOf(lines[line - 1] ?? '');
  let parentIndent = -1;
  for (let i = line - 1; i >= 1; i -= 1) {
    const t = lines[i - 1] ?? '';
    if (isContent(t) && indentOf(t) < indent) {
      parentIndent = indentOf(t);
      break;
    }
  }
  for (let i = line + 1; i <= lines.length; i += 1) {
    const t = lines[i - 1] ?? '';
    if (/^(---|\.\.\.)(\s|$)/.test(t)) return i - 1;
    if (isContent(t) && indentOf(t) <= parentIndent) return i - 1;
  }
  return lines.length;
}

/** The nearest line at or above `line` that opens `quote` without closing it. */
function unclosedQuote(lines: readonly string[], line: number, quote: string): { line: number; col: number } | undefined {
  for (let i = Math.min(line, lines.length); i >= 1; i -= 1) {
    const t = lines[i - 1] ?? '';
    const opens = [...t.matchAll(quote === '"' ? /(?<!\\)"/g : /'/g)].map((m) => m.index);
    if (opens.length % 2 === 1) return { line: i, col: (opens[opens.length - 1] ?? 0) + 1 };
  }
  return undefined;
}

/** The nearest line at or above `line` with more `bracket`s opened than closed. */
function unclosedBracket(lines: readonly string[], line: number, bracket: '[' | '{'): { line: number; col: number } | undefined {
  const close = bracket === '[' ? ']' : '}';
  for (let i = Math.min(line, lines.length); i >= 1; i -= 1) {
    const t = lines[i - 1] ?? '';
    let depth = 0;
    let col = -1;
    for (let c = 0; c < t.length; c += 1) {
      if (t[c] === bracket) {
        depth += 1;
        if (depth === 1) col = c;
      } else if (t[c] === close && depth > 0) depth -= 1;
    }
    if (depth > 0) return { line: i, col: col + 1 };
  }
  return undefined;
}
