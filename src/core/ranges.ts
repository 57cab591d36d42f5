/** Ranges `[start, end)` of a text, merged where they overlap or touch. */
import type { Range } from './fragments.js';

/** Adds `[start, end)` to ranges found in order of their ends (each `end` ≥ every earlier one). */
export function addSorted(ranges: Range[], start: number, end: number): void {
  let from = start;
  for (let last = ranges.at(-1); last && last[1] >= from; last = ranges.at(-1)) {
    from = Math.min(from, last[0]);
    ranges.pop();
  }
  ranges.push([from, end]);
}

export function union(ranges: Range[]): Range[] {
  ranges.sort((a, b) => a[0] - b[0]);
  const out: Range[] = [];
  for (const [start, end] of ranges) {
    const last = out.at(-1);
    if (last && start <= last[1]) last[1] = Math.max(last[1], end);
    else out.push([start, end]);
  }
  return out;
}
