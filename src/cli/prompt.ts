/**
 * A question asked on the terminal (apply's and `keys delete`'s confirmation). readline draws the
 * prompt with its own cursor control (move to column, clear to the end of the screen), which must
 * reach the terminal as it is: it writes to `io.terminal`, the raw stream, never to `io.stderr`,
 * whose output pass escapes every control character (it would print `\u001b[1G` as text). The
 * question's words are text obsync composed around names from manifests and servers: they take
 * the output pass (`finalText`) once, before readline gets them.
 */
import { createInterface } from 'node:readline/promises';
import { finalText } from '../core/output.js';
import type { CliIO } from './io.js';

/** The answer typed, or null when Ctrl-C was pressed at the prompt (readline takes it on a terminal). */
export async function askOnTerminal(io: CliIO, question: string): Promise<string | null> {
  const rl = createInterface({ input: io.stdin, output: io.terminal, terminal: io.terminal.isTTY === true });
  const cancelled = new AbortController();
  rl.once('SIGINT', () => cancelled.abort());
  try {
    return await rl.question(finalText(question), { signal: cancelled.signal }).catch((err: unknown) => {
      if (cancelled.signal.aborted) return null;
      throw err;
    });
  } finally {
    rl.close();
  }
}
