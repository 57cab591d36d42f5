/**
 * Many patterns found in one pass over a text (Aho–Corasick), for the scrubber and the credential
 * guard: linear in the text whatever the number and length of the patterns, and no regular
 * expression (V8 refuses one built from a single 22 KB secret, and its error message quotes the
 * pattern). A pattern longer than ANCHOR units enters the automaton by its first ANCHOR units
 * only; where that anchor occurs, one KMP pass over the text finds the whole pattern. So the
 * automaton has at most ANCHOR states per pattern, and a 200,000-character secret costs memory in
 * proportion to its length, never a trie node per character.
 */

import { fragmentRuns, kmpTable, recordAnchor, uncovered, type KmpTable, type Range } from './fragments.js';
import { addSorted, union } from './ranges.js';
import { variedEnough, tokenLike, standsAlone, fold } from './text-units.js';

export interface Pattern {
  text: string;
  /** Letters compare without case (UTF-16 unit by unit): a server that upper-cases a URL it echoes. */
  foldCase: boolean;
  /** Counts only where it stands as a whole word: no letter, digit or `_` joined to it on either side. */
  wholeWord: boolean;
  /**
   * Also its prefixes and suffixes of at least `min` units (a server that echoes a secret cut
   * short, or its end after `****`), each as long as it goes; one shorter than `wholeWordBelow`
   * only where it stands as a word and looks like a token (./fragments.ts).
   */
  fragments?: { min: number; wholeWordBelow: number };
}

/** What a key of the automaton stands for: the pattern's start (its whole), or the start or end of its fragments. */
const WHOLE = 0;

const PREFIX = 1;

const SUFFIX = 2;

/** An entry of the automaton is `pattern index << ROLE_BITS | role`. */
const ROLE_BITS = 2;

const ROLE_MASK = 3;

export type { Range } from './fragments.js';

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
  readonly #long = new Map<number, KmpTable>();
  readonly #reversed = new Map<number, KmpTable>();

  constructor(patterns: readonly Pattern[]) {
    this.#patterns = dedupe(patterns);
    const parent = [ROOT];
    const via = [0];
    const depth = [0];
    for (const { key, entry } of this.#patterns.flatMap(keysOf)) {
      let state = ROOT;
      for (let i = 0; i < key.length; i++) {
        const unit = fold(key.charCodeAt(i));
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
      (this.#out[state] ??= []).push(entry);
    }
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

  /** Every occurrence of every pattern in `text` (and of the fragments it knows), merged into sorted, disjoint ranges. */
  ranges(text: string): Range[] {
    const found: Range[] = [];
    const longFrom = new Map<number, number>();
    const fragments = new Map<number, Anchors>();
    let state = ROOT;
    for (let i = 0; i < text.length; i++) {
      state = this.#step(state, fold(text.charCodeAt(i)));
      for (let node = this.#out[state] ? state : (this.#dict[state] ?? ROOT); node !== ROOT; node = this.#dict[node] ?? ROOT) {
        for (const entry of this.#out[node] ?? []) {
          const index = entry >> ROLE_BITS;
          const pattern = this.#patterns[index];
          if (!pattern) continue;
          const role = entry & ROLE_MASK;
          if (role !== WHOLE) {
            let seen = fragments.get(index);
            if (!seen) fragments.set(index, (seen = { prefixStarts: [], suffixEnds: [], wholeEnd: -1 }));
            const min = pattern.fragments?.min ?? 1;
            if (role === PREFIX) recordAnchor(seen.prefixStarts, i + 1 - min, min);
            // The end of the whole pattern just found (its key is longer, so it came first): nothing to scan for.
            else if (seen.wholeEnd !== i + 1) recordAnchor(seen.suffixEnds, i + 1, min);
            continue;
          }
          if (pattern.text.length > ANCHOR) {
            if (!longFrom.has(index)) longFrom.set(index, i + 1 - ANCHOR);
            continue;
          }
          const start = i + 1 - pattern.text.length;
          if (!confirmed(pattern, text, start)) continue;
          addSorted(found, start, i + 1);
          if (pattern.fragments) wholeFound(fragments, index, start, i + 1);
        }
      }
    }
    if (longFrom.size === 0 && fragments.size === 0) return found;
    const all = [...found];
    for (const [index, from] of longFrom) all.push(...this.#search(index, text, from));
    const wholes = union(all);
    for (const [index, anchors] of fragments) all.push(...this.#fragments(index, text, anchors, wholes));
    return union(all);
  }

  /** The prefixes and suffixes of a pattern in `text`, from where their anchors were seen. */
  #fragments(index: number, text: string, seen: Anchors, wholes: readonly Range[]): Range[] {
    const pattern = this.#patterns[index];
    const rule = pattern?.fragments;
    if (!pattern || !rule) return [];
    const length = pattern.text.length;
    const anchors = {
      prefixStarts: uncovered(seen.prefixStarts, wholes, length, 'start'),
      suffixEnds: uncovered(seen.suffixEnds, wholes, length, 'end'),
    };
    if (anchors.prefixStarts.length === 0 && anchors.suffixEnds.length === 0) return [];
    const forward = this.#table(index, pattern);
    let reversed = this.#reversed.get(index);
    if (!reversed) {
      reversed = kmpTable(forward.units.slice().reverse());
      this.#reversed.set(index, reversed);
    }
    const unitAt = pattern.foldCase ? (i: number) => fold(text.charCodeAt(i)) : (i: number) => text.charCodeAt(i);
    const accept = (start: number, end: number, length: number) =>
      variedEnough(text, start, end) && (length >= rule.wholeWordBelow || (standsAlone(text, start, end) && tokenLike(text, start, end)));
    return fragmentRuns(text.length, unitAt, { forward, reversed }, anchors, rule.min, accept);
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

  #table(index: number, pattern: Pattern): KmpTable {
    let table = this.#long.get(index);
    if (table) return table;
    const units = new Uint16Array(pattern.text.length);
    for (let i = 0; i < units.length; i++) {
      const unit = pattern.text.charCodeAt(i);
      // eslint-disable-next-line no-restricted-syntax -- an array by index
      units[i] = pattern.foldCase ? fold(unit) : unit;
    }
    table = kmpTable(units);
    this.#long.set(index, table);
    return table;
  }
}

/** Where a pattern's fragments may be: runs of its prefix anchors (by start) and suffix anchors (by end). */
interface Anchors {
  prefixStarts: Range[];
  suffixEnds: Range[];
  /** Where the last whole occurrence found ends (-1: none). */
  wholeEnd: number;
}

/**
 * A whole occurrence `[start, end)` of a pattern with fragments: the prefix anchor it began with
 * needs no scan (every fragment from there lies inside it), and the suffix anchor ending with it is
 * not noted. The usual echo is the whole secret: its fragments then cost nothing.
 */
function wholeFound(fragments: Map<number, Anchors>, index: number, start: number, end: number): void {
  let seen = fragments.get(index);
  if (!seen) fragments.set(index, (seen = { prefixStarts: [], suffixEnds: [], wholeEnd: -1 }));
  const last = seen.prefixStarts.at(-1);
  if (last && last[0] === start && last[1] === start) seen.prefixStarts.pop();
  seen.wholeEnd = end;
}

/** The keys a pattern enters the automaton by: its start (ANCHOR units at most) and, with fragments, its first and last `min` units. */
function keysOf(pattern: Pattern, index: number): { key: string; entry: number }[] {
  const keys = [{ key: pattern.text.slice(0, ANCHOR), entry: (index << ROLE_BITS) | WHOLE }];
  const min = pattern.fragments?.min ?? 0;
  if (min > 0 && min <= ANCHOR && pattern.text.length > min)
    keys.push(
      { key: pattern.text.slice(0, min), entry: (index << ROLE_BITS) | PREFIX },
      { key: pattern.text.slice(-min), entry: (index << ROLE_BITS) | SUFFIX },
    );
  return keys;
}

/** One pattern per text and matching rule; the same text with and without fragments is one, with them. */
function dedupe(patterns: readonly Pattern[]): Pattern[] {
  const seen = new Map<string, Pattern>();
  for (const p of patterns) {
    if (p.text === '') continue;
    const key = `${p.foldCase ? 1 : 0}${p.wholeWord ? 1 : 0}${p.text}`;
    const known = seen.get(key);
    if (!known?.fragments || (p.fragments && p.fragments.min < known.fragments.min)) seen.set(key, p);
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
