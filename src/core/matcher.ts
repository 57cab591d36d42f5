/**
 * Many patterns found in one pass over a text (Aho–Corasick), for the scrubber and the credential
 * guard: linear in the text whatever the number and length of the patterns, and no regular
 * expression (V8 refuses one built from a single 22 KB secret, and its error message quotes the
 * pattern). A pattern longer than ANCHOR units enters the automaton by its first ANCHOR units
 * only; where that anchor occurs, one KMP pass over the text finds the whole pattern. So the
 * automaton has at most ANCHOR states per pattern, and a 200,000-character secret costs memory in
 * proportion to its length, never a trie node per character.
 */

export interface Pattern {
  text: string;
  /** Letters compare without case (UTF-16 unit by unit): a server that upper-cases a URL it echoes. */
  foldCase: boolean;
  /** Counts only where it stands as a whole word: no letter, digit or `_` joined to it on either side. */
  wholeWord: boolean;
}

/** Where a text holds patterns: `[start, end)`, sorted, overlapping and touching occurrences merged. */
export type Range = [start: number, end: number];

const ANCHOR = 64;
const ROOT = 0;
/** Transitions are keyed `state * UNITS + code unit` in one map (a map per state would cost far more). */
const UNITS = 0x10000;

export class MultiMatcher {
  readonly #patterns: readonly Pattern[];
  readonly #goto = new Map<number, number>();
  readonly #out: (number[] | undefined)[] = [undefined];
  readonly #fail: Int32Array;
  /** The nearest state along the failure links that ends a pattern's key (ROOT: none). */
  readonly #dict: Int32Array;
  readonly #long = new Map<number, { units: Uint16Array; failure: Int32Array }>();

  constructor(patterns: readonly Pattern[]) {
    this.#patterns = dedupe(patterns);
    const parent = [ROOT];
    const via = [0];
    const depth = [0];
    this.#patterns.forEach((pattern, index) => {
      let state = ROOT;
      const keyLength = Math.min(pattern.text.length, ANCHOR);
      for (let i = 0; i < keyLength; i++) {
        const unit = fold(pattern.text.charCodeAt(i));
        let next = this.#goto.get(state * UNITS + unit);
        if (next === undefined) {
          next = parent.length;
          parent.push(state);
          via.push(unit);
          depth.push(i + 1);
          this.#out.push(undefined);
          this.#goto.set(state * UNITS + unit, next);
        }
        state = next;
      }
      // eslint-disable-next-line no-restricted-syntax -- an array by state number
      (this.#out[state] ??= []).push(index);
    });
    this.#fail = new Int32Array(parent.length);
    this.#dict = new Int32Array(parent.length);
    for (const state of byDepth(depth)) {
      const up = parent[state] ?? ROOT;
      if (up === ROOT) continue;
      const unit = via[state] ?? 0;
      let f = this.#fail[up] ?? ROOT;
      let target = this.#goto.get(f * UNITS + unit);
      while (target === undefined && f !== ROOT) {
        f = this.#fail[f] ?? ROOT;
        target = this.#goto.get(f * UNITS + unit);
      }
      const fail = target ?? ROOT;
      // eslint-disable-next-line no-restricted-syntax -- an array by state number
      this.#fail[state] = fail;
      // eslint-disable-next-line no-restricted-syntax -- an array by state number
      this.#dict[state] = this.#out[fail] ? fail : (this.#dict[fail] ?? ROOT);
    }
  }

  get size(): number {
    return this.#patterns.length;
  }

  /** Every occurrence of every pattern in `text`, merged into sorted, disjoint ranges. */
  ranges(text: string): Range[] {
    const found: Range[] = [];
    const longFrom = new Map<number, number>();
    let state = ROOT;
    for (let i = 0; i < text.length; i++) {
      state = this.#step(state, fold(text.charCodeAt(i)));
      for (let node = this.#out[state] ? state : (this.#dict[state] ?? ROOT); node !== ROOT; node = this.#dict[node] ?? ROOT) {
        for (const index of this.#out[node] ?? []) {
          const pattern = this.#patterns[index];
          if (!pattern) continue;
          if (pattern.text.length > ANCHOR) {
            if (!longFrom.has(index)) longFrom.set(index, i + 1 - ANCHOR);
            continue;
          }
          const start = i + 1 - pattern.text.length;
          if (confirmed(pattern, text, start)) addSorted(found, start, i + 1);
        }
      }
    }
    if (longFrom.size === 0) return found;
    const all = [...found];
    for (const [index, from] of longFrom) all.push(...this.#search(index, text, from));
    return union(all);
  }

  #step(state: number, unit: number): number {
    let s = state;
    let next = this.#goto.get(s * UNITS + unit);
    while (next === undefined && s !== ROOT) {
      s = this.#fail[s] ?? ROOT;
      next = this.#goto.get(s * UNITS + unit);
    }
    return next ?? ROOT;
  }

  /** Every occurrence of a long pattern from `from` on (KMP: linear in the text, however often its anchor repeats). */
  #search(index: number, text: string, from: number): Range[] {
    const pattern = this.#patterns[index];
    if (!pattern) return [];
    const { units, failure } = this.#table(index, pattern);
    const out: Range[] = [];
    const unitAt = pattern.foldCase ? (i: number) => fold(text.charCodeAt(i)) : (i: number) => text.charCodeAt(i);
    let j = 0;
    for (let i = from; i < text.length; i++) {
      const unit = unitAt(i);
      while (j > 0 && unit !== units[j]) j = failure[j - 1] ?? 0;
      if (unit === units[j]) j++;
      if (j < units.length) continue;
      const start = i + 1 - units.length;
      if (!pattern.wholeWord || standsAlone(text, start, i + 1)) addSorted(out, start, i + 1);
      // Overlapping occurrences too: the union must cover every one, as for the short patterns.
      j = failure[j - 1] ?? 0;
    }
    return out;
  }

  #table(index: number, pattern: Pattern): { units: Uint16Array; failure: Int32Array } {
    let table = this.#long.get(index);
    if (table) return table;
    const units = new Uint16Array(pattern.text.length);
    for (let i = 0; i < units.length; i++) {
      const unit = pattern.text.charCodeAt(i);
      // eslint-disable-next-line no-restricted-syntax -- an array by index
      units[i] = pattern.foldCase ? fold(unit) : unit;
    }
    const failure = new Int32Array(units.length);
    for (let i = 1, k = 0; i < units.length; i++) {
      while (k > 0 && units[i] !== units[k]) k = failure[k - 1] ?? 0;
      if (units[i] === units[k]) k++;
      // eslint-disable-next-line no-restricted-syntax -- an array by index
      failure[i] = k;
    }
    table = { units, failure };
    this.#long.set(index, table);
    return table;
  }
}

function dedupe(patterns: readonly Pattern[]): Pattern[] {
  const seen = new Map<string, Pattern>();
  for (const p of patterns) {
    if (p.text === '') continue;
    seen.set(`${p.foldCase ? 1 : 0}${p.wholeWord ? 1 : 0}${p.text}`, p);
  }
  return [...seen.values()];
}

/** States in breadth-first order (by depth), so a state's failure link is known before its children's. */
function byDepth(depth: readonly number[]): number[] {
  const buckets: number[][] = [];
  // eslint-disable-next-line no-restricted-syntax -- an array by depth
  depth.forEach((d, state) => (buckets[d] ??= []).push(state));
  return buckets.flat();
}

/** The automaton matched the key case-insensitively: an exact pattern checks its units, a word its borders. */
function confirmed(pattern: Pattern, text: string, start: number): boolean {
  if (!pattern.foldCase && !text.startsWith(pattern.text, start)) return false;
  return !pattern.wholeWord || standsAlone(text, start, start + pattern.text.length);
}

const WORD = /[\p{L}\p{N}\p{M}_]/u;

function isWordUnit(text: string, index: number): boolean {
  const unit = text[index];
  return unit !== undefined && WORD.test(unit);
}

/** Nothing word-like is joined to `text[start, end)`: a boundary on each side, as `\b` would see it. */
export function standsAlone(text: string, start: number, end: number): boolean {
  const joinedBefore = start > 0 && isWordUnit(text, start - 1) && isWordUnit(text, start);
  const joinedAfter = end < text.length && isWordUnit(text, end) && isWordUnit(text, end - 1);
  return !joinedBefore && !joinedAfter;
}

/** Adds `[start, end)` to ranges found in order of their ends (each `end` ≥ every earlier one). */
function addSorted(ranges: Range[], start: number, end: number): void {
  let from = start;
  for (let last = ranges.at(-1); last && last[1] >= from; last = ranges.at(-1)) {
    from = Math.min(from, last[0]);
    ranges.pop();
  }
  ranges.push([from, end]);
}

function union(ranges: Range[]): Range[] {
  ranges.sort((a, b) => a[0] - b[0]);
  const out: Range[] = [];
  for (const [start, end] of ranges) {
    const last = out.at(-1);
    if (last && start <= last[1]) last[1] = Math.max(last[1], end);
    else out.push([start, end]);
  }
  return out;
}

let folds: Uint16Array | undefined;

/** A UTF-16 unit without case: lower(upper(c)) where both stay one unit (so `ſ`, `S` and `s` meet), else itself. */
export function fold(unit: number): number {
  if (unit < 0x80) return unit >= 0x41 && unit <= 0x5a ? unit + 0x20 : unit;
  folds ??= new Uint16Array(UNITS);
  const known = folds[unit] ?? 0;
  if (known !== 0) return known;
  const char = String.fromCharCode(unit);
  const upper = char.toUpperCase();
  const lower = (upper.length === 1 ? upper : char).toLowerCase();
  const folded = lower.length === 1 ? lower.charCodeAt(0) : unit;
  // eslint-disable-next-line no-restricted-syntax -- a typed array by code unit
  folds[unit] = folded;
  return folded;
}
