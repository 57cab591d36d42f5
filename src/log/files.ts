/**
 * Files obsync writes for the user (a saved plan, backups, exports): their text passes the
 * scrubber like everything obsync prints, and a failed write names the file (a full disk says
 * which file could not be written, not just `ENOSPC: ..., write`).
 */
import { writeFile } from 'node:fs/promises';
import { scrub } from '../core/scrub.js';

export async function writeScrubbedFile(path: string, text: string, options: { mode?: number } = {}): Promise<void> {
  try {
    await writeFile(path, scrub(text), { mode: options.mode ?? 0o600 });
  } catch (err) {
    if (err instanceof Error && (err as NodeJS.ErrnoException).path === undefined) Object.assign(err, { path });
    throw err;
  }
}
