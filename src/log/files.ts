/**
 * Files obsync writes for the user (a saved plan): their text passes the scrubber and the output
 * pass like everything obsync prints (JSON stays JSON: the escapes are its own). Written whole or
 * not at all (src/manifests/atomic-write.ts), and a failed write names the file (a full disk says
 * which file could not be written, not just `ENOSPC: ..., write`); a device or FIFO (`--out /dev/stdout`) is written to as a stream.
 */
import { finalText } from '../core/output.js';
import { writeFileAtomically } from '../manifests/atomic-write.js';

export function writeScrubbedFile(path: string, text: string, options: { mode?: number } = {}): void {
  writeFileAtomically(path, finalText(text), { mode: options.mode ?? 0o600, streams: 'write' });
}
