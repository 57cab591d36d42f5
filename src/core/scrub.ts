/**
 * The one scrubber (DESIGN §4 "Trust rules"): it is told every secret value in play — target
 * credentials (every `Secret` registers itself), values of sensitive manifest fields after
 * interpolation, the state URL's password, secrets the service returns — and masks each
 * occurrence in any text obsync prints, logs or writes, whatever the key or text around it.
 *
 * Besides the value as it is, it knows the forms a value takes on the way out (`formsOf`):
 * JSON-escaped once and twice (a server echoing a JSON body inside its JSON error), URL-encoded,
 * hex, base64 at any alignment in both alphabets (an HTTP Basic token), and any letter case (a
 * server that upper-cases what it echoes). A secret URL also registers the parts a server echoes
 * alone: its password, and the path segments and query values that look like tokens.
 *
 * It cannot crash and cannot leak through its own failure: matching is one linear pass
 * (./matcher.ts, no regular expression), and an unexpected failure masks the whole text instead
 * of returning it or throwing a message. Values shorter than MIN_LENGTH are not masked (code that
 * prints values at sensitive paths leaves them out itself); values shorter than WHOLE_WORD_BELOW
 * only where they stand as a whole word, so a short value never garbles the words around it.
 */
import { MultiMatcher, type Pattern, type Range } from './matcher.js';

/** How a sensitive value is shown in plans, logs, errors and exports. */
export const SENSITIVE = '(sensitive)';

export const MIN_LENGTH = 4;

/** Shorter values are masked only as whole words (`h(sensitive)aders` is what masking inside words gives). */
export const WHOLE_WORD_BELOW = 12;

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
      for (const part of urlParts(value)) this.register(part);
    } catch {
      // Whatever a form's encoder refuses, the value itself is still masked.
      this.#patterns.push({ text: value, foldCase: true, wholeWord: value.length < WHOLE_WORD_BELOW });
    }
  }

  /** `text` with every known secret, in any of its forms, replaced by `(sensitive)`. Never throws. */
  scrub(text: string): string {
    if (this.#values.size === 0 || text.length < this.minLength) return text;
    try {
      this.#matcher ??= new MultiMatcher(this.#patterns);
      return masked(text, this.#matcher.ranges(text));
    } catch {
      // Fail closed, and without a message: an error from here could quote what it was matching.
      return SENSITIVE;
    }
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
  // Encodings are found inside longer encoded runs (a Basic token holds `id:secret`), never as words.
  const encoded = (t: string, foldCase = false): Pattern => ({ text: t, foldCase, wholeWord: false });
  // A lone surrogate goes out as U+FFFD (what TextEncoder sends); encodeURIComponent would throw on it.
  const wellFormed = value.replace(/\p{Cs}/gu, '\ufffd');
  const once = JSON.stringify(value).slice(1, -1);
  const twice = JSON.stringify(once).slice(1, -1);
  const uri = encodeURIComponent(wellFormed);
  const bytes = new TextEncoder().encode(wellFormed);
  const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
  const forms = [text(value), text(once), text(twice), text(uri), encoded(hex, true), ...base64Cores(bytes).map((core) => encoded(core))];
  if (uri.includes('%20')) forms.push(text(uri.replace(/%20/g, '+')));
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

/** A path segment or query value worth masking alone: a token (digits in it, or long), not a word like `services`. */
function tokenLike(part: string): boolean {
  return part.length >= 20 || (part.length >= 8 && /\d/.test(part));
}

/**
 * The parts of a secret URL (`https://hooks.example.com/services/T0/B0/XXXX?token=…`,
 * `postgres://u:p@host/db`) that a server may echo on their own: the password, always, and the
 * path segments and query values that look like tokens — each as written and decoded.
 */
function urlParts(value: string): string[] {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) return [];
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return [];
  }
  const parts = new Set<string>();
  const add = (raw: string, always = false) => {
    for (const form of [raw, decoded(raw)]) if (form !== value && (always || tokenLike(form))) parts.add(form);
  };
  if (url.password !== '') add(url.password, true);
  for (const segment of url.pathname.split('/')) if (segment !== '') add(segment);
  for (const pair of url.search.replace(/^\?/, '').split('&')) {
    const raw = pair.slice(pair.indexOf('=') + 1);
    if (raw !== '') add(raw.replace(/\+/g, ' '));
  }
  return [...parts];
}

function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
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
