/**
 * The raw text of each item of a JSON list body, found without parsing the items: a steady daemon
 * hashes each item's bytes and parses only the items that changed since its last read
 * (core/item-memo.ts). The body is the list itself, or an object holding it under `key` (the
 * variant's envelope, as its `unwrap` reads it: the last member of that name).
 *
 * Answers null for anything else and for any body that is not well-formed around the items; the
 * caller then parses the body whole, with its usual errors. The text between the items is checked
 * here (separators, brackets, the envelope's other members parsed); each item is valid JSON once
 * parsed by the caller, so an answer other than null means `JSON.parse(text)` would succeed.
 */
export function listItemTexts(text: string, key: string): string[] | null {
  const scan = new Scanner(text);
  const start = scan.skipSpace(0);
  const first = text.charCodeAt(start);
  let items: string[] | null = null;
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
        return to !== null && parsed(text.slice(from, to)) !== undefined ? to : null;
      }
      const list = text.charCodeAt(from) === OPEN_BRACKET ? scan.array(from) : null;
      items = list?.items ?? null;
      return list?.end ?? null;
    });
  } else return null;
  if (end === null || scan.skipSpace(end) !== text.length) return null;
  return items;
}

/**
 * The value of the member `key` of a body that is a JSON object (the last member of that name),
 * parsed alone: the other members are only skipped. Undefined when the body is not an object or
 * is not well-formed, or has no such member.
 */
export function topLevelMember(text: string, key: string): unknown {
  const scan = new Scanner(text);
  const start = scan.skipSpace(0);
  if (text.charCodeAt(start) !== OPEN_BRACE) return undefined;
  let value: unknown;
  const end = scan.members(start, (name, from) => {
    const to = scan.skipValue(from);
    if (to !== null && name === key) value = parsed(text.slice(from, to));
    return to;
  });
  return end === null ? undefined : value;
}

const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;

class Scanner {
  constructor(private readonly text: string) {}

  /** The first position at or after `i` that is not JSON whitespace. */
  skipSpace(i: number): number {
    const t = this.text;
    for (;;) {
      const c = t.charCodeAt(i);
      if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return i;
      i += 1;
    }
  }

  /** The position after the string starting at `i` (a quote), or null when it never ends. */
  skipString(i: number): number | null {
    const t = this.text;
    for (;;) {
      const close = t.indexOf('"', i + 1);
      if (close < 0) return null;
      let backslashes = 0;
      while (t.charCodeAt(close - 1 - backslashes) === BACKSLASH) backslashes += 1;
      if (backslashes % 2 === 0) return close + 1;
      i = close;
    }
  }

  /** The position after the value starting at `i`, or null. Only its extent is found: the caller parses it. */
  skipValue(i: number): number | null {
    const t = this.text;
    const c = t.charCodeAt(i);
    if (c === QUOTE) return this.skipString(i);
    if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      let depth = 0;
      for (let j = i; j < t.length; j++) {
        const d = t.charCodeAt(j);
        if (d === QUOTE) {
          const after = this.skipString(j);
          if (after === null) return null;
          j = after - 1;
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
      const d = t.charCodeAt(j);
      if (d === COMMA || d === CLOSE_BRACKET || d === CLOSE_BRACE || d === 0x20 || d === 0x0a || d === 0x0d || d === 0x09) break;
      j += 1;
    }
    return j > i ? j : null;
  }

  /** The items of the array starting at `i` (a bracket) and the position after it. */
  array(i: number): { items: string[]; end: number } | null {
    const t = this.text;
    const items: string[] = [];
    let j = this.skipSpace(i + 1);
    if (t.charCodeAt(j) === CLOSE_BRACKET) return { items, end: j + 1 };
    for (;;) {
      const end = this.skipValue(j);
      if (end === null) return null;
      items.push(t.slice(j, end));
      j = this.skipSpace(end);
      const c = t.charCodeAt(j);
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
    const t = this.text;
    let j = this.skipSpace(i + 1);
    if (t.charCodeAt(j) === CLOSE_BRACE) return j + 1;
    for (;;) {
      if (t.charCodeAt(j) !== QUOTE) return null;
      const nameEnd = this.skipString(j);
      if (nameEnd === null) return null;
      const name = parsed(t.slice(j, nameEnd));
      if (typeof name !== 'string') return null;
      j = this.skipSpace(nameEnd);
      if (t.charCodeAt(j) !== COLON) return null;
      const to = member(name, this.skipSpace(j + 1));
      if (to === null) return null;
      j = this.skipSpace(to);
      const c = t.charCodeAt(j);
      if (c === CLOSE_BRACE) return j + 1;
      if (c !== COMMA) return null;
      j = this.skipSpace(j + 1);
    }
  }
}

/** JSON.parse that answers undefined for text that is not JSON. */
function parsed(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
