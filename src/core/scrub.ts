/**
 * The one scrubber (DESIGN §4 "Trust rules"): it is told every secret value in play — target
 * credentials (every `Secret` registers itself), values of sensitive manifest fields after
 * interpolation, the state URL's password, the credentials the drivers read for themselves
 * (PGPASSWORD, ~/.pgpass, a proxy's user and password), secrets the service returns — and masks
 * each occurrence in any text obsync prints, logs, serves or sends, whatever the key or text around it.
 *
 * Besides the value as it is, it knows the forms a value takes on the way out (`formsOf`):
 * JSON-escaped once and twice (a server echoing a JSON body inside its JSON error), URL-encoded,
 * hex, base64 at any alignment in both alphabets (an HTTP Basic token), any letter case (a server
 * that upper-cases what it echoes), and cut short: a prefix or suffix of FRAGMENT_MIN units or more
 * (a server that echoes the first 10 characters of a key, or `****` and the last ones). Escapes of
 * every style a server writes — JSON as PHP, Java and Go escape it (`\/`, `\u0026`), HTML
 * (`&amp;`, `&#47;`), percent-encoding of some or every byte in either case — are undone before
 * matching, nested and mixed (./unescape.ts), so each form is found under any of them (an echoed
 * `Authorization: Basic …\/…`). The parts of a secret a server echoes alone are secrets of their
 * own (./secret-parts.ts): a URL's password and token-like segments, a JSON body compact and each
 * of its long strings, the token-like words of a text.
 *
 * It cannot crash and cannot leak through its own failure: matching is linear (./matcher.ts, no
 * regular expression), and an unexpected failure masks the whole text instead of returning it or
 * throwing a message. Values shorter than MIN_LENGTH are not masked (code that prints values at
 * sensitive paths leaves them out itself); values (and fragments) shorter than WHOLE_WORD_BELOW
 * only where they stand as a whole word, so a short value never garbles the words around it — the
 * rule of every path that masks values in text (a `Scrubber` of its own where it must mask shorter ones).
 */
import { MultiMatcher, type Pattern, type Range } from './matcher.js';
import { union } from './ranges.js';
import { isUrl, looksLikeJson, partsOf } from './secret-parts.js';
import { decodedViews, sourceRange } from './unescape.js';

export { connectionSecrets } from './secret-parts.js';

/** How a sensitive value is shown in plans, logs, errors and exports. */
export const SENSITIVE = '(sensitive)';

export const MIN_LENGTH = 4;

/** Shorter values are masked only as whole words (`h(sensitive)aders` is what masking inside words gives). */
export const WHOLE_WORD_BELOW = 12;

/** A prefix or suffix of a secret this long is masked too (shorter than WHOLE_WORD_BELOW: as a word that looks like a token). */
export const FRAGMENT_MIN = 8;

export class Scrubber {
  readonly #values = new Set<string>();
  readonly #patterns: Pattern[] = [];
  #matcher: MultiMatcher | null = null;

  constructor(private readonly minLength = MIN_LENGTH) {}

  /** Remembers a secret value and its derived forms. Safe to call again with the same value; never throws. */
  register(value: string): void {
    if (value.length < this.minLength || this.#values.has(value)) return;
    this.#values.add(value);
    this.#matcher = null;
    try {
      this.#patterns.push(...formsOf(value, this.minLength));
      for (const part of partsOf(value, WHOLE_WORD_BELOW)) this.register(part);
    } catch {
      // Whatever a form's encoder refuses, the value itself is still masked.
      this.#patterns.push({ text: value, foldCase: true, wholeWord: value.length < WHOLE_WORD_BELOW });
    }
  }

  /**
   * Sets the known secrets aside until the returned function puts them back: what a command run
   * in a test's own process starts with, as a new process does (test/support/cli.ts). Without it,
   * a secret another test registered masks a word in the next command's output.
   */
  setAside(): () => void {
    const values = [...this.#values];
    const patterns = [...this.#patterns];
    const reset = (v: readonly string[], p: readonly Pattern[]) => {
      this.#values.clear();
      for (const x of v) this.#values.add(x);
      this.#patterns.length = 0;
      this.#patterns.push(...p);
      this.#matcher = null;
    };
    reset([], []);
    return () => reset(values, patterns);
  }

  /** `text` with every known secret, in any of its forms, replaced by `(sensitive)`. Never throws. */
  scrub(text: string): string {
    if (this.#values.size === 0 || text.length < this.minLength) return text;
    try {
      return masked(text, this.#rangesIn(text));
    } catch {
      // Fail closed, and without a message: an error from here could quote what it was matching.
      return SENSITIVE;
    }
  }

  /** Where `text` holds a secret: as written, and under the escapes a server wrote it in (mapped back to `text`). */
  #rangesIn(text: string): Range[] {
    this.#matcher ??= new MultiMatcher(this.#patterns);
    const found = this.#matcher.ranges(text);
    const views = decodedViews(text);
    if (views.length === 0) return found;
    const all = [...found];
    for (const view of views) for (const [start, end] of this.#matcher.ranges(view.text)) all.push(sourceRange(view, start, end));
    return union(all);
  }

  /** Whether `text` holds a known secret in any form (the same matching as `scrub`). */
  finds(text: string): boolean {
    return this.scrub(text) !== text;
  }

  get size(): number {
    return this.#values.size;
  }
}

/** The process's scrubber: the CLI's writers, the log destination and error builders all use it. */
export const scrubber = new Scrubber();

export function registerSecret(value: string): void {
  scrubber.register(value);
}

export function scrub(text: string): string {
  return scrubber.scrub(text);
}

function masked(text: string, ranges: readonly Range[]): string {
  if (ranges.length === 0) return text;
  let out = '';
  let at = 0;
  for (const [start, end] of ranges) {
    out += text.slice(at, start) + SENSITIVE;
    at = end;
  }
  return out + text.slice(at);
}

/** The forms a value takes in what servers send back and what obsync prints. */
export function formsOf(value: string, minLength = MIN_LENGTH): Pattern[] {
  const wholeWord = value.length < WHOLE_WORD_BELOW;
  const text = (t: string): Pattern => ({ text: t, foldCase: true, wholeWord });
  // A URL or a JSON document is not cut short as a whole (`https://` or `{"text":` would mask
  // everywhere): its parts are secrets of their own, and they are.
  const cut = !isUrl(value) && !looksLikeJson(value) ? { fragments: { min: FRAGMENT_MIN, wholeWordBelow: WHOLE_WORD_BELOW } } : {};
  // Encodings are found inside longer encoded runs (a Basic token holds `id:secret`), never as words.
  const encoded = (t: string, foldCase = false): Pattern => ({ text: t, foldCase, wholeWord: false });
  // A lone surrogate goes out as U+FFFD (what TextEncoder sends); encodeURIComponent would throw on it.
  const wellFormed = value.replace(/\p{Cs}/gu, '\ufffd');
  const once = JSON.stringify(value).slice(1, -1);
  const twice = JSON.stringify(once).slice(1, -1);
  const uri = encodeURIComponent(wellFormed);
  const bytes = new TextEncoder().encode(wellFormed);
  const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
  const forms = [
    { ...text(value), ...cut },
    text(once),
    text(twice),
    text(uri),
    encoded(hex, true),
    ...base64Cores(bytes).map((core) => encoded(core)),
  ];
  if (uri.includes('%20')) forms.push(text(uri.replace(/%20/g, '+')), text(value.replace(/ /g, '+')));
  return forms.filter((f) => f.text.length >= minLength && (f.wholeWord || f.text.length >= 6));
}

/**
 * The part of base64(prefix + value + suffix) that depends only on `value`, for each of the three
 * alignments of `value` in the encoded bytes (standard and URL alphabets). Short values have no
 * core long enough to match safely.
 */
function base64Cores(bytes: Uint8Array): string[] {
  const cores: string[] = [];
  for (const offset of [0, 1, 2]) {
    const padded = new Uint8Array(offset + bytes.length);
    padded.set(bytes, offset);
    const full = Math.floor(padded.length / 3) * 4;
    const skip = [0, 2, 3][offset] ?? 0;
    const core = Buffer.from(padded.buffer, padded.byteOffset, padded.length).toString('base64').slice(skip, full);
    if (core.length >= 6) cores.push(core, core.replace(/\+/g, '-').replace(/\//g, '_'));
  }
  return cores;
}

/** A copy of a JSON-like value (events, status documents) with every string in it, keys included, scrubbed. */
export function scrubDeep<T>(value: T): T {
  if (scrubber.size === 0) return value;
  return deep(value) as T;
}

function deep(value: unknown): unknown {
  if (typeof value === 'string') return scrub(value);
  if (Array.isArray(value)) return value.map(deep);
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([k, v]) => [scrub(k), deep(v)]));
  return value;
}
