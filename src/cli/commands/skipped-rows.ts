/** The state commands' word on rows of the state they left out (not readable, or a second owner of one object). */
import { skippedRowText, type SkippedRow } from '../../core/inventory.js';
import { printable } from '../../core/printable.js';
import type { CliIO } from '../io.js';

export function skippedLine(row: SkippedRow): string {
  return `warning: ${skippedRowText(row)}`;
}

/** A warning line on stderr for each row (escaped: a row's text is data). */
export function reportSkipped(io: CliIO, rows: readonly SkippedRow[]): void {
  for (const row of rows) io.stderr.write(`${printable(skippedLine(row))}\n`);
}
