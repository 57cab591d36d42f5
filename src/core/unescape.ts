/**
 * The text a server meant, under the escapes it wrote it in (for the scrubber, ./scrub.ts): one
 * pass decodes, wherever they occur and mixed in any way, the escapes of JSON as PHP, Java and Go
 * write them (`\/`, `\"`, `\\`, `\u0026`, `\u003c`), of JavaScript and Python (`\x2f`), of HTML
 * (`&amp;`, `&lt;`, `&#47;`, `&#x2F;`, `&sol;`) and of URLs (`%2F`, `%2f`, `%E7%A7%98`, every byte
 * or some), and says for each unit of the result which characters of the input it came from.
 * A secret found in the decoded text is masked over those characters. Escapes nested in escapes
 * (`&amp;#47;`, `%5C%2F`) are undone by decoding the result again (`decodedViews`, a few levels).
 *
 * Linear, no regular expression over the text, never throws; what is not a complete escape stays
 * as it is. `+` stays `+` (in base64 it is data, not a space: the scrubber knows form-encoding).
 */

export interface DecodedView {
  text: string;
  /**
   * For each unit of `text`, where the input characters it came from start; they end where the
   * next unit's start (`sourceRange`). Units of one escape (a surrogate pair) share their start.
   */
  starts: Int32Array;
  /** The length of the text the view was decoded from (the end of its last unit). */
  sourceLength: number;
}

/** The characters of the source that `[start, end)` of the view came from. */
export function sourceRange(view: DecodedView, start: number, end: number): [number, number] {
  const { starts } = view;
  const from = starts[start] ?? view.sourceLength;
  const last = starts[end - 1] ?? from;
  let next = end;
  while (next < starts.length && starts[next] === last) next++;
  return [from, next < starts.length ? (starts[next] ?? view.sourceLength) : view.sourceLength];
}

/** How many times a text is decoded again (an escape inside an escape inside an escape). */
export const VIEW_LEVELS = 3;

/** Whether `text` may hold an escape this module decodes (the fast path: most text holds none). */
export function mayHoldEscapes(text: string): boolean {
  return text.includes('\\') || text.includes('&') || text.includes('%');
}

/**
 * The decoded forms of `text`, each over the previous one, mapped back to `text` itself; none when
 * it holds no escape. At most VIEW_LEVELS, and one stops as soon as decoding changes nothing.
 */
export function decodedViews(text: string): DecodedView[] {
  const views: DecodedView[] = [];
  let current = text;
  let starts: Int32Array | null = null;
  for (let level = 0; level < VIEW_LEVELS && mayHoldEscapes(current); level++) {
    const view = decodeOnce(current);
    if (view.text === current) break;
    // Back to the original text through the previous level's map.
    const previous = starts;
    const mapped: DecodedView = previous
      ? { text: view.text, starts: view.starts.map((i) => previous[i] ?? 0), sourceLength: text.length }
      : view;
    views.push(mapped);
    current = mapped.text;
    starts = mapped.starts;
  }
  return views;
}

/** One level: every complete escape decoded. */
export function decodeOnce(text: string): DecodedView {
  // A decoded escape is never longer than the escape: the view fits in the text's length.
  const starts = new Int32Array(text.length);
  let out = '';
  let n = 0;
  let plainFrom = 0;
  const keepPlain = (to: number) => {
    out += text.slice(plainFrom, to);
    // eslint-disable-next-line no-restricted-syntax -- a typed array by index
    for (let k = plainFrom; k < to; k++, n++) starts[n] = k;
  };
  let i = 0;
  while (i < text.length) {
    const unit = text.charCodeAt(i);
    const escape =
      unit === BACKSLASH ? backslash(text, i) : unit === AMPERSAND ? entity(text, i) : unit === PERCENT ? percent(text, i) : null;
    if (!escape) {
      i += 1;
      continue;
    }
    keepPlain(i);
    out += escape.decoded;
    starts.fill(i, n, n + escape.decoded.length);
    n += escape.decoded.length;
    i = escape.end;
    plainFrom = i;
  }
  keepPlain(text.length);
  return { text: out, starts: starts.subarray(0, n), sourceLength: text.length };
}

interface Escape {
  decoded: string;
  /** Index just past the escape. */
  end: number;
}

const BACKSLASH = 0x5c;
const AMPERSAND = 0x26;
const PERCENT = 0x25;
const SEMICOLON = 0x3b;

const SIMPLE: Record<string, string> = {
  '/': '/',
  '\\': '\\',
  '"': '"',
  "'": "'",
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
};

function backslash(text: string, at: number): Escape | null {
  const next = text.charAt(at + 1);
  const simple = Object.hasOwn(SIMPLE, next) ? SIMPLE[next] : undefined;
  if (simple !== undefined) return { decoded: simple, end: at + 2 };
  if (next === 'u') return hexEscape(text, at + 2, 4);
  if (next === 'x') return hexEscape(text, at + 2, 2);
  return null;
}

function hexEscape(text: string, from: number, digits: number): Escape | null {
  const code = hexAt(text, from, digits);
  return code === null ? null : { decoded: String.fromCharCode(code), end: from + digits };
}

/** Named references servers use for characters a secret holds (HTML escapers, `htmlspecialchars`, OWASP encoders). */
const NAMED: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  sol: '/',
  bsol: '\\',
  plus: '+',
  equals: '=',
  colon: ':',
  semi: ';',
  comma: ',',
  period: '.',
  num: '#',
  percnt: '%',
  commat: '@',
  excl: '!',
  quest: '?',
  dollar: '$',
  lpar: '(',
  rpar: ')',
  ast: '*',
  lowbar: '_',
  hyphen: '-',
  grave: '`',
  tilde: '~',
  lsqb: '[',
  rsqb: ']',
  lcub: '{',
  rcub: '}',
  verbar: '|',
  hat: '^',
  nbsp: '\u00a0',
};

const MAX_ENTITY = 12;

function entity(text: string, at: number): Escape | null {
  // Looked for within MAX_ENTITY units only: a text of many `&` and no `;` stays linear.
  let semi = -1;
  for (let k = at + 1; k < text.length && k - at <= MAX_ENTITY; k++)
    if (text.charCodeAt(k) === SEMICOLON) {
      semi = k;
      break;
    }
  if (semi < 0) return null;
  const body = text.slice(at + 1, semi);
  if (body.startsWith('#')) {
    const hex = body.charAt(1) === 'x' || body.charAt(1) === 'X';
    const digits = body.slice(hex ? 2 : 1);
    if (digits === '' || !(hex ? /^[0-9a-f]+$/i : /^[0-9]+$/).test(digits)) return null;
    const code = Number.parseInt(digits, hex ? 16 : 10);
    return code > 0x10ffff ? null : { decoded: String.fromCodePoint(code), end: semi + 1 };
  }
  const name = body.toLowerCase();
  const decoded = Object.hasOwn(NAMED, name) ? NAMED[name] : undefined;
  return decoded === undefined ? null : { decoded, end: semi + 1 };
}

/** `%XX`, and a UTF-8 sequence of them (`%E7%A7%98` is one character); an incomplete or invalid sequence is left alone. */
function percent(text: string, at: number): Escape | null {
  const first = hexAt(text, at + 1, 2);
  if (first === null) return null;
  if (first < 0x80) return { decoded: String.fromCharCode(first), end: at + 3 };
  const more = first >= 0xf0 && first <= 0xf4 ? 3 : first >= 0xe0 && first <= 0xef ? 2 : first >= 0xc2 && first <= 0xdf ? 1 : -1;
  if (more < 0) return null;
  let code = first & (0xff >> (more + 2));
  for (let k = 1; k <= more; k++) {
    const at3 = at + 3 * k;
    const byte = text.charCodeAt(at3) === PERCENT ? hexAt(text, at3 + 1, 2) : null;
    if (byte === null || (byte & 0xc0) !== 0x80) return null;
    code = (code << 6) | (byte & 0x3f);
  }
  const minimum = [0, 0x80, 0x800, 0x10000][more] ?? 0;
  if (code < minimum || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return null;
  return { decoded: String.fromCodePoint(code), end: at + 3 * (more + 1) };
}

function hexAt(text: string, from: number, digits: number): number | null {
  if (from + digits > text.length) return null;
  let value = 0;
  for (let k = 0; k < digits; k++) {
    const d = hexDigit(text.charCodeAt(from + k));
    if (d < 0) return null;
    value = value * 16 + d;
  }
  return value;
}

function hexDigit(unit: number): number {
  if (unit >= 0x30 && unit <= 0x39) return unit - 0x30;
  const lower = unit | 0x20;
  if (lower >= 0x61 && lower <= 0x66) return lower - 0x61 + 10;
  return -1;
}
