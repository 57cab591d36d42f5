/** Plain column tables for the terminal (`state list`, `keys list`, `query`): cells escaped, columns padded, numbers right-aligned. */
import { printable } from '../core/printable.js';

export type Align = 'left' | 'right';

export function formatTable(header: readonly string[], rows: readonly (readonly string[])[], align: readonly Align[] = []): string {
  const all = [header, ...rows].map((row) => row.map((cell) => printable(cell)));
  const widths = header.map((_, i) => Math.max(...all.map((row) => (row[i] ?? '').length)));
  return all
    .map(
      (row) =>
        row
          .map((cell, i) => (align[i] === 'right' ? cell.padStart(widths[i] ?? 0) : cell.padEnd(widths[i] ?? 0)))
          .join('  ')
          .trimEnd() + '\n',
    )
    .join('');
}
