/**
 * Text from users and servers made inert in obsync's output (DESIGN §4 "Trust rules"). One
 * pass, `safeOutput`, runs on everything printed — plans in every format, errors, logs, saved
 * plan files — after it is laid out (folded, wrapped, joined), at the writers:
 * - characters that act instead of showing are escaped as `\u001b`: controls (escape sequences
 *   that clear the screen or move the cursor, carriage returns, BEL), bidirectional overrides,
 *   zero-width and other invisible characters, line separators, lone surrogates; newlines and
 *   tabs of the layout stay (a server's newline never reaches the pass raw: see `printable`);
 * - GitHub Actions workflow commands are defused: a line that would start with `::` (after
 *   spaces) and `##[` anywhere (the runner's legacy syntax) print with an escaped character, so
 *   `::add-mask::` or `##[stop-commands]` from a service never reach the runner as commands;
 * - obsync's own colours, line clearing and annotations are the only exceptions, and they cannot
 *   be forged: they travel as markers carrying a random per-process key until the pass turns them
 *   into escape sequences (`styled`, `CLEAR_LINE`, `workflowCommand`).
 * The escapes are JSON's own (`\uXXXX`, one per UTF-16 unit), so JSON output stays valid JSON with
 * the same values.
 */

const INVISIBLE = String.raw`\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\p{Default_Ignorable_Code_Point}`;
// An emoji's own presentation selector (❤️) changes nothing but the glyph: shown as it is.
const KEPT = String.raw`(?<=\p{Emoji})[\uFE0E\uFE0F]`;
/** Everything unsafe, newlines and tabs included (one line). */
const UNSAFE_IN_LINE = new RegExp(`(?!${KEPT})[${INVISIBLE}]`, 'gu');
/** Everything unsafe but newlines and tabs (laid-out text). */
const UNSAFE_IN_TEXT = new RegExp(`(?![\\n\\t]|${KEPT})[${INVISIBLE}]`, 'gu');

const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function escapeChar(c: string): string {
  const named = NAMED[c];
  if (named) return named;
  let out = '';
  for (let i = 0; i < c.length; i++) out += `\\u${c.charCodeAt(i).toString(16).padStart(4, '0')}`;
  return out;
}

/** One line of output: every unsafe character escaped, newlines included. */
export function printable(text: string): string {
  return text.replace(UNSAFE_IN_LINE, escapeChar);
}

/**
 * Several lines of output (a multi-line error report): unsafe characters escaped, newlines kept,
 * and every line after the first indented, so no text carried inside a message starts a line of
 * its own (a server's error body cannot print a `Plan:` line).
 */
export function printableLines(text: string): string {
  return printableBlock(text).replace(/\n(?=[^ \n])/g, '\n  ');
}

/** Text whose newlines are encoded by whoever takes it next (an annotation's `%0A`): unsafe characters escaped, newlines and tabs kept. */
export function printableBlock(text: string): string {
  return text.replace(UNSAFE_IN_TEXT, escapeChar);
}

/** Lines laid out by a renderer, one string each, joined: a line break inside one is data and is escaped. */
export function joinLines(lines: readonly string[]): string {
  return lines.map((line) => line.replace(/[\r\n]/g, escapeChar)).join('\n');
}

// Markers: NUL, the process's key, what to emit, NUL. Service data cannot know the key.
const KEY = Array.from(globalThis.crypto.getRandomValues(new Uint8Array(8)), (b) => b.toString(16).padStart(2, '0')).join('');
const MARKER = new RegExp(`\u0000${KEY}([0-9]+|K|C)\u0000`, 'g');
const marker = (what: string) => `\u0000${KEY}${what}\u0000`;

/** Erases the terminal line the cursor is on (the progress line). */
export const CLEAR_LINE = marker('K');

/** SGR codes (on, off) of the formats obsync uses, as node:util's styleText names them. */
const FORMATS = {
  bold: [1, 22],
  dim: [2, 22],
  italic: [3, 23],
  underline: [4, 24],
  red: [31, 39],
  green: [32, 39],
  yellow: [33, 39],
  blue: [34, 39],
  magenta: [35, 39],
  cyan: [36, 39],
  white: [37, 39],
  gray: [90, 39],
} as const;

export type FormatName = keyof typeof FORMATS;
export type Format = FormatName | readonly FormatName[];

/** `text` in `format`, made real by `safeOutput` (the outer format first, as styleText nests them). */
export function styled(format: Format, text: string): string {
  let out = text;
  for (const name of typeof format === 'string' ? [format] : [...format].reverse()) {
    const [on, off] = FORMATS[name];
    out = `${marker(String(on))}${out}${marker(String(off))}`;
  }
  return out;
}

/** A line obsync writes as a GitHub Actions workflow command (an annotation): the one kind of line `::` may start. */
export function workflowCommand(line: string): string {
  return `${marker('C')}${printable(line)}`;
}

/** .NET's TrimStart (the runner's) skips every Unicode space before looking for `::`. */
const COMMAND_START = /^([\s\u0085\u180e]*):(?=:)/u;
const LEGACY_COMMAND = /##\[/g;

/** The last pass over everything printed (see the top of this file). `text` may hold many lines. */
export function safeOutput(text: string): string {
  let out = '';
  let at = 0;
  let commandLine = false;
  let lineStart = true;
  const data = (piece: string) => {
    if (piece === '') return;
    const lines = piece.replace(UNSAFE_IN_TEXT, escapeChar).replace(LEGACY_COMMAND, '##\\u005b').split('\n');
    lines.forEach((line, i) => {
      if (i > 0) {
        out += '\n';
        lineStart = true;
        commandLine = false;
      }
      out += lineStart && !commandLine ? line.replace(COMMAND_START, '$1\\u003a') : line;
      if (/[^\s\u0085\u180e]/u.test(line)) lineStart = false;
    });
  };
  for (const m of text.matchAll(MARKER)) {
    data(text.slice(at, m.index));
    at = m.index + m[0].length;
    const what = m[1] ?? '';
    if (what === 'C') commandLine = lineStart;
    else if (what === 'K') out += '\r\u001b[2K';
    else out += `\u001b[${what}m`;
  }
  data(text.slice(at));
  return out;
}
