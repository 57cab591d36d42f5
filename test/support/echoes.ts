/**
 * How servers echo a secret (issues 50 and 53): in part, percent-encoded, and escaped in the
 * styles of JSON (PHP and Java write `\/`, Go `\u0026`, Python `\u79d8`), JavaScript (`\x2f`) and
 * HTML (`&amp;`, `&#47;`, `&#x2F;`, `&sol;`) — character by character, mixed, and nested. For the
 * scrubber's tests and the hostile end-to-end tests.
 */
import fc from 'fast-check';

const units = (c: string) => Array.from({ length: c.length }, (_, i) => c.charCodeAt(i));
const hex = (n: number, width: number, upper: boolean) => {
  const h = n.toString(16).padStart(width, '0');
  return upper ? h.toUpperCase() : h;
};

/** One character as each style writes it (a style that has no escape for it leaves it as it is). */
export const ESCAPES = {
  'JSON \\u (Go, Java, Python)': (c: string) =>
    units(c)
      .map((u) => `\\u${hex(u, 4, false)}`)
      .join(''),
  'JSON \\u, capitals': (c: string) =>
    units(c)
      .map((u) => `\\u${hex(u, 4, true)}`)
      .join(''),
  'JSON \\/ (PHP, Java)': (c: string) => (c === '/' ? '\\/' : c === '\\' ? '\\\\' : c === '"' ? '\\"' : c),
  'Go json (<, >, &)': (c: string) => ({ '<': '\\u003c', '>': '\\u003e', '&': '\\u0026' })[c] ?? c,
  'JavaScript \\x': (c: string) => (c.charCodeAt(0) < 0x100 ? `\\x${hex(c.charCodeAt(0), 2, false)}` : c),
  'HTML decimal': (c: string) => `&#${c.codePointAt(0) ?? 0};`,
  'HTML hex': (c: string) => `&#x${hex(c.codePointAt(0) ?? 0, 1, true)};`,
  'HTML named': (c: string) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;', '/': '&#47;' })[c] ?? c,
  'percent, upper case': (c: string) => [...Buffer.from(c)].map((b) => `%${hex(b, 2, true)}`).join(''),
  'percent, lower case': (c: string) => [...Buffer.from(c)].map((b) => `%${hex(b, 2, false)}`).join(''),
} as const;

export type EscapeStyle = keyof typeof ESCAPES;
export const STYLES = Object.keys(ESCAPES) as EscapeStyle[];

/** Characters that start an escape: never left alone where another character is escaped (they would be read as one). */
const INTRODUCERS = new Set(['\\', '&', '%']);

/** `text` with each character written the way `choice` says (0: as it is), cycling through `choice`. */
export function escapedPerCharacter(text: string, choice: readonly number[]): string {
  return [...text]
    .map((c, i) => {
      const pick = choice[i % choice.length] ?? 0;
      if (pick === 0 && !INTRODUCERS.has(c)) return c;
      const out = ESCAPES[STYLES[pick % STYLES.length] ?? 'HTML decimal'](c);
      return out === c && INTRODUCERS.has(c) ? ESCAPES['HTML decimal'](c) : out;
    })
    .join('');
}

/** `text` in one style throughout, as a server that escapes its whole output writes it. */
export function escapedWith(text: string, style: EscapeStyle): string {
  return [...text].map((c) => (INTRODUCERS.has(c) && ESCAPES[style](c) === c ? ESCAPES['HTML decimal'](c) : ESCAPES[style](c))).join('');
}

/** Every byte percent-encoded, each hex digit in the case `upper` says (cycling). */
export function percentEncoded(text: string, upper: readonly boolean[]): string {
  return [...Buffer.from(text)].map((b, i) => `%${hex(b, 2, upper[i % upper.length] ?? true)}`).join('');
}

export const basic = (id: string, secret: string) => Buffer.from(`${id}:${secret}`).toString('base64');

/** Secrets as services issue them: API keys, passwords with punctuation, keys with `/` and `+`, non-ASCII. */
export const secretShapes = fc.oneof(
  fc.stringMatching(/^[A-Za-z0-9]{16,48}$/),
  fc.stringMatching(/^[A-Za-z0-9+/]{16,40}={0,2}$/),
  fc.stringMatching(/^sk-[A-Za-z0-9_-]{20,40}$/),
  fc
    .array(fc.constantFrom(...'aZ9/+=:&<>"\'\\%_-. ', '秘', '🔑', 'é', 'k', 'Q', '7'), { minLength: 12, maxLength: 40 })
    .map((cs) => cs.join(''))
    .filter((s) => s.trim() === s && /[A-Za-z0-9秘🔑é]/u.test(s)),
);

/** Text around an echo: anything but letters and digits joined to it. */
export const around = fc.string({ maxLength: 20 }).map((s) => ` ${s.replace(/[\p{L}\p{N}_\\&%]/gu, '')} `);
