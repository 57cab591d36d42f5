/**
 * A secret echoed cut short (./matcher.ts): the runs of a text that are a prefix of a pattern, at
 * least `min` units long and as long as they go, found from where the automaton saw the prefix's
 * first `min` units (its anchor). One Knuth–Morris–Pratt scan per pattern, resumed from anchor to
 * anchor and stopped where the prefix breaks, so each unit of the text is looked at about once per
 * pattern whatever the text (a secret of one repeated letter in a long run of that letter stays
 * linear). Suffixes are prefixes of the reversed pattern in the reversed text: the same scan.
 */
/** Where a text holds patterns: `[start, end)`, sorted, overlapping and touching occurrences merged. */
export type Range = [start: number, end: number];

export interface KmpTable {
  units: Uint16Array;
  failure: Int32Array;
}

export function kmpTable(units: Uint16Array): KmpTable {
  const failure = new Int32Array(units.length);
  for (let i = 1, k = 0; i < units.length; i++) {
    while (k > 0 && units[i] !== units[k]) k = failure[k - 1] ?? 0;
    if (units[i] === units[k]) k++;
    // eslint-disable-next-line no-restricted-syntax -- a typed array by index
    failure[i] = k;
  }
  return { units, failure };
}

/**
 * Anchors as they are seen (ascending), as runs `[first, last]`: one closer than `min` units to
 * the last is one run with it (a repeated letter has an anchor at every unit: one run, not
 * thousands of anchors).
 */
export function recordAnchor(runs: Range[], at: number, min: number): void {
  const last = runs.at(-1);
  if (last && at < last[1] + min) last[1] = at;
  else runs.push([at, at]);
}

/** Whether a run `[start, end)` (in the text's own order) of `length` units counts. */
export type Accept = (start: number, end: number, length: number) => boolean;

/**
 * Every maximal run of at least `min` units that is a proper prefix of the table's units (the
 * whole pattern is the automaton's own match), from the anchor runs given (ascending). `unitAt`
 * reads the text (folded or not, forwards or reversed); `n` is its length.
 */
export function prefixRuns(n: number, unitAt: (i: number) => number, table: KmpTable, anchors: readonly Range[], min: number): Range[] {
  const { units, failure } = table;
  const whole = units.length;
  const out: Range[] = [];
  let i = 0;
  let j = 0;
  for (const [first, last] of anchors) {
    // Scanned already, with the prefix state carried through it.
    if (last + min <= i) continue;
    if (first >= i) {
      i = first;
      j = 0;
    }
    while (i < n) {
      const unit = unitAt(i);
      while (j > 0 && (j === whole || unit !== units[j])) j = failure[j - 1] ?? 0;
      if (unit === units[j]) j++;
      i += 1;
      // As long as it goes: the next unit does not carry it on.
      if (j >= min && j < whole && (i === n || unitAt(i) !== units[j])) out.push([i - j, i]);
      if (j < min && i >= last + min) break;
    }
  }
  return out;
}

/**
 * The anchor runs of which a fragment could reach outside the ranges already masked: a fragment of
 * a pattern `length` units long runs from a prefix anchor's start (`from: 'start'`) or to a suffix
 * anchor's end. The usual echo is the whole secret, whose own anchors need no scan.
 */
export function uncovered(anchors: readonly Range[], masked: readonly Range[], length: number, from: 'start' | 'end'): Range[] {
  if (masked.length === 0) return anchors.slice();
  const out: Range[] = [];
  for (const run of anchors) {
    const start = from === 'start' ? run[0] : run[0] - length + 1;
    const end = from === 'start' ? run[1] + length - 1 : run[1];
    let lo = 0;
    let hi = masked.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((masked[mid]?.[0] ?? 0) <= start) lo = mid;
      else hi = mid - 1;
    }
    const around = masked[lo];
    if (!(around && around[0] <= start && end <= around[1])) out.push(run);
  }
  return out;
}

/**
 * The fragments of a pattern in a text: runs from its prefix anchors (anchor runs by start) and
 * to its suffix anchors (anchor runs by end, ascending), as ranges of the text, those `accept` keeps.
 */
export function fragmentRuns(
  n: number,
  unitAt: (i: number) => number,
  tables: { forward: KmpTable; reversed: KmpTable },
  anchors: { prefixStarts: readonly Range[]; suffixEnds: readonly Range[] },
  min: number,
  accept: Accept,
): Range[] {
  const out: Range[] = [];
  for (const [start, end] of prefixRuns(n, unitAt, tables.forward, anchors.prefixStarts, min))
    if (accept(start, end, end - start)) out.push([start, end]);
  if (anchors.suffixEnds.length === 0) return out;
  // An end `e` is the reversed start `n - e`: runs of ends, ascending, are runs of reversed starts read backwards.
  const reversedStarts = anchors.suffixEnds.map(([first, last]): Range => [n - last, n - first]).reverse();
  for (const [rs, re] of prefixRuns(n, (k) => unitAt(n - 1 - k), tables.reversed, reversedStarts, min)) {
    const start = n - re;
    const end = n - rs;
    if (accept(start, end, end - start)) out.push([start, end]);
  }
  return out;
}
