/**
 * The one scrubber (DESIGN §4 "Trust rules"): it is told every secret value in play — target
 * credentials (every `Secret` registers itself), values of sensitive manifest fields after
 * interpolation, the state URL's password — and masks each occurrence in any text obsync
 * prints, logs or writes, whatever the key or text around it. Besides the raw value it knows
 * the forms a value takes on the way out: JSON-escaped (once and twice: a server echoing a JSON
 * body inside its JSON error), URL-encoded, and base64 at any alignment (an HTTP Basic token).
 * Values shorter than MIN_LENGTH are not masked (they would mask ordinary text); code that
 * prints values at sensitive paths must leave them out itself.
 */

/** How a sensitive value is shown in plans, logs, errors and exports. */
export const SENSITIVE = '(sensitive)';

export const MIN_LENGTH = 4;

export class Scrubber {
  readonly #values = new Set<string>();
  #pattern: RegExp | null = null;

  /** Remembers a secret value (and, for a URL, its password). Safe to call again with the same value. */
  register(value: string): void {
    if (value.length < MIN_LENGTH || this.#values.has(value)) return;
    this.#values.add(value);
    this.#pattern = null;
    for (const part of urlPassword(value)) this.register(part);
  }

  /** `text` with every known secret, in any of its forms, replaced by `(sensitive)`. */
  scrub(text: string): string {
    if (this.#values.size === 0 || text.length < MIN_LENGTH) return text;
    this.#pattern ??= buildPattern(this.#values);
    return text.replace(this.#pattern, SENSITIVE);
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

function buildPattern(values: ReadonlySet<string>): RegExp {
  const forms = new Set<string>();
  for (const value of values) for (const form of formsOf(value)) if (form.length >= MIN_LENGTH) forms.add(form);
  // Longest first: an alternation takes the first alternative that matches.
  const sorted = [...forms].sort((a, b) => b.length - a.length).map(escapeRegExp);
  return new RegExp(sorted.join('|'), 'g');
}

function formsOf(value: string): string[] {
  const once = JSON.stringify(value).slice(1, -1);
  const twice = JSON.stringify(once).slice(1, -1);
  const uri = encodeURIComponent(value);
  return [value, once, twice, uri, uri.replace(/%20/g, '+'), ...base64Cores(value)];
}

/**
 * The part of base64(prefix + value + suffix) that depends only on `value`, for each of the three
 * alignments of `value` in the encoded bytes (standard and URL alphabets). Short values have no
 * core long enough to match safely.
 */
function base64Cores(value: string): string[] {
  const bytes = new TextEncoder().encode(value);
  const cores: string[] = [];
  for (const offset of [0, 1, 2]) {
    const padded = new Uint8Array(offset + bytes.length);
    padded.set(bytes, offset);
    const full = Math.floor(padded.length / 3) * 4;
    const skip = [0, 2, 3][offset] ?? 0;
    const core = toBase64(padded).slice(skip, full);
    if (core.length >= 6) cores.push(core, core.replace(/\+/g, '-').replace(/\//g, '_'));
  }
  return cores;
}

function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary);
}

/** The password of a URL with credentials (`postgres://u:p@host/db`), as written and decoded. */
function urlPassword(value: string): string[] {
  if (!/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*@/i.test(value)) return [];
  try {
    const password = new URL(value).password;
    return password === '' ? [] : [password, decodeURIComponent(password)];
  } catch {
    return [];
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
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
