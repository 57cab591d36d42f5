/**
 * Where each item of a JSON list body stands in its raw bytes, found without decoding the body or
 * parsing the items: a steady daemon hashes each item's bytes and decodes and parses only the
 * items that changed since its last read (core/item-memo.ts), so a large list is never held as
 * one string beside its parsed tree. The body is the list itself, or an object holding it under
 * `key` (the variant's envelope, as its `unwrap` reads it: the last member of that name).
 *
 * Answers null for anything else and for any body that is not well-formed around the items; the
 * caller then parses the body whole, with its usual errors. The bytes between the items are
 * checked here (separators, brackets, the envelope's other members parsed); each item is valid
 * JSON once parsed by the caller, so an answer other than null means `JSON.parse(text)` would
 * succeed. Scanning bytes is scanning the text: every character JSON gives a meaning to is ASCII,
 * and no byte of a multi-byte UTF-8 character is ASCII.
 */
export interface Span {
  /** The item's first byte. */
  readonly from: number;
  /** The byte after its last. */
  readonly to: number;
}

export function listItemSpans(bytes: Uint8Array, key: string): Span[] | null {
  const scan = new Scanner(bytes);
  const start = scan.skipSpace(0);
  const first = bytes[start];
  let items: Span[] | null = null;
  let end: number | null;
  if (first === OPEN_BRACKET) {
    const list = scan.array(start);
    if (list === null) return null;
    items = list.items;
    end = list.end;
  } else if (first === OPEN_BRACE) {
    end = scan.members(start, (name, from) => {
      if (name !== key) {
        const to = scan.skipValue(from);
        return to !== null && parsed(bytes, from, to) !== undefined ? to : null;
      }
      const list = bytes[from] === OPEN_BRACKET ? scan.array(from) : null;
      items = list?.items ?? null;
      return list?.end ?? null;
    });
  } else return null;
  if (end === null || scan.skipSpace(end) !== bytes.length) return null;
  return items;
}

/**
 * The value of the member `key` of a body that is a JSON object (the last member of that name),
 * parsed alone: the other members are only skipped. Undefined when the body is not an object or
 * is not well-formed, or has no such member.
 */
export function topLevelMember(bytes: Uint8Array, key: string): unknown {
  const scan = new Scanner(bytes);
  const start = scan.skipSpace(0);
  if (bytes[start] !== OPEN_BRACE) return undefined;
  let value: unknown;
  const end = scan.members(start, (name, from) => {
    const to = scan.skipValue(from);
    if (to !== null && name === key) value = parsed(bytes, from, to);
    return to;
  });
  return end === null ? undefined : value;
}

/** The text of bytes[from, to), decoded as the whole body would be (a BOM kept, a bad sequence replaced). */
export function utf8Text(bytes: Uint8Array, from = 0, to = bytes.length): string {
  return UTF8.decode(bytes.subarray(from, to));
}

const UTF8 = new TextDecoder('utf-8', { ignoreBOM: true });

const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;

class Scanner {
  constructor(private readonly bytes: Uint8Array) {}

  /** The first position at or after `i` that is not JSON whitespace. */
  skipSpace(i: number): number {
    const t = this.bytes;
    for (;;) {
      const c = t[i];
      if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return i;
      i += 1;
    }
  }

  /** The position after the string starting at `i` (a quote), or null when it never ends. */
  skipString(i: number): number | null {
    const t = this.bytes;
    for (;;) {
      const close = t.indexOf(QUOTE, i + 1);
      if (close < 0) return null;
      let backslashes = 0;
      while (t[close - 1 - backslashes] === BACKSLASH) backslashes += 1;
      if (backslashes % 2 === 0) return close + 1;
      i = close;
    }
  }

  /** The position after the value starting at `i`, or null. Only its extent is found: the caller parses it. */
  skipValue(i: number): number | null {
    const t = this.bytes;
    const c = t[i];
    if (c === QUOTE) return this.skipString(i);
    if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      let depth = 0;
      const end = t.length;
      for (let j = i; j < end; j++) {
        const d = t[j];
        if (d === QUOTE) {
          // The string's end, found here rather than by a call per string: most are a few bytes long.
          for (j += 1; j < end; j++) {
            const e = t[j];
            if (e === QUOTE) break;
            if (e === BACKSLASH) j += 1;
          }
          if (j >= end) return null;
        } else if (d === OPEN_BRACE || d === OPEN_BRACKET) depth += 1;
        else if (d === CLOSE_BRACE || d === CLOSE_BRACKET) {
          depth -= 1;
          if (depth === 0) return j + 1;
        }
      }
      return null;
    }
    // A number or a literal: up to the next separator or space.
    let j = i;
    while (j < t.length) {
      const d = t[j];
      if (d === COMMA || d === CLOSE_BRACKET || d === CLOSE_BRACE || d === 0x20 || d === 0x0a || d === 0x0d || d === 0x09) break;
      j += 1;
    }
    return j > i ? j : null;
  }

  /** The items of the array starting at `i` (a bracket) and the position after it. */
  array(i: number): { items: Span[]; end: number } | null {
    const t = this.bytes;
    const items: Span[] = [];
    let j = this.skipSpace(i + 1);
    if (t[j] === CLOSE_BRACKET) return { items, end: j + 1 };
    for (;;) {
      const end = this.skipValue(j);
      if (end === null) return null;
      items.push({ from: j, to: end });
      j = this.skipSpace(end);
      const c = t[j];
      if (c === CLOSE_BRACKET) return { items, end: j + 1 };
      if (c !== COMMA) return null;
      j = this.skipSpace(j + 1);
    }
  }

  /**
   * The members of the object starting at `i` (a brace), each given to `member` with its name and
   * where its value starts; `member` answers where the value ends, or null to refuse it (the
   * answer is then null). Answers the position after the object.
   */
  members(i: number, member: (name: string, from: number) => number | null): number | null {
    const t = this.bytes;
    let j = this.skipSpace(i + 1);
    if (t[j] === CLOSE_BRACE) return j + 1;
    for (;;) {
      if (t[j] !== QUOTE) return null;
      const nameEnd = this.skipString(j);
      if (nameEnd === null) return null;
      const name = parsed(t, j, nameEnd);
      if (typeof name !== 'string') return null;
      j = this.skipSpace(nameEnd);
      if (t[j] !== COLON) return null;
      const to = member(name, this.skipSpace(j + 1));
      if (to === null) return null;
      j = this.skipSpace(to);
      const c = t[j];
      if (c === CLOSE_BRACE) return j + 1;
      if (c !== COMMA) return null;
      j = this.skipSpace(j + 1);
    }
  }
}

/** JSON.parse of bytes[from, to) that answers undefined for text that is not JSON. */
function parsed(bytes: Uint8Array, from: number, to: number): unknown {
  try {
    return JSON.parse(utf8Text(bytes, from, to)) as unknown;
  } catch {
    return undefined;
  }
}
