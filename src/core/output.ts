/**
 * What obsync prints in its final form: known secrets masked (./scrub.ts), then the one output
 * pass (./printable.ts `safeOutput`: unsafe characters escaped, workflow commands defused,
 * obsync's own colours made real). The writers of stdout and stderr (cli/io.ts) apply it to
 * everything; so do the log destination and the saved plan file. Apply it exactly once: a second
 * pass would escape the colours the first one made.
 */
import { safeOutput } from './printable.js';
import { scrub } from './scrub.js';

export function finalText(text: string): string {
  return safeOutput(scrub(text));
}

/** Set on a stream that applies `finalText` to what it is given (cli/io.ts `outputWriter`). */
export const OUTPUT_WRITER = Symbol.for('obsync.outputWriter');

export function isOutputWriter(stream: unknown): boolean {
  return typeof stream === 'object' && stream !== null && OUTPUT_WRITER in stream;
}
