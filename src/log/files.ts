/**
 * Files obsync writes for the user (a saved plan): their text passes the scrubber and the output
 * pass like everything obsync prints (JSON stays JSON: the escapes are its own), and a failed write names the file (a full disk says
 * which file could not be written, not just `ENOSPC: ..., write`).
 */
import { writeFile } from 'node:fs/promises';
import { finalText } from '../core/output.js';

export async function writeScrubbedFile(path: string, text: string, options: { mode?: number } = {}): Promise<void> {
  try {
    await writeFile(path, finalText(text), { mode: options.mode ?? 0o600 });
  } catch (err) {
    if (err instanceof Error && (err as NodeJS.ErrnoException).path === undefined) (err as NodeJS.ErrnoException).path = path;
    throw err;
  }
}
