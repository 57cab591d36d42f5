/**
 * Writing a pull's result into the project: every changed file, whole or not at all
 * (src/manifests/atomic-write.ts), only where it still holds the text pull read (a file edited
 * meanwhile is refused, nothing is written), new manifests only where no file is, and a file
 * whose last document was removed deleted. The text passes the one scrubber: a secret the service
 * holds in a name or a query is written as `(sensitive)`.
 */
import { existsSync, mkdirSync, unlinkSync } from 'node:fs';
import { dirname, relative } from 'node:path';
import { ConfigError } from '../core/errors.js';
import { scrub } from '../core/scrub.js';
import { writeFilesAtomically } from '../manifests/atomic-write.js';
import { isWithin } from '../manifests/files.js';
import { filesToWrite, type ReadText } from './pull.js';
import type { PullResult } from './result.js';

export interface Written {
  written: string[];
  deleted: string[];
  /** Files in which a secret obsync knows was written as `(sensitive)`. */
  masked: string[];
}

export function writePull(result: PullResult, options: { within: string; read: ReadText }): Written {
  const files = filesToWrite(result);
  const outside = files.filter((f) => !isWithin(options.within, f.file)).map((f) => f.file);
  if (outside.length > 0) throw new ConfigError(`pull would write outside the project (${outside.join(', ')}); nothing was written`);
  const moved = files.filter((f) => (options.read(f.file) ?? null) !== f.before).map((f) => relative(options.within, f.file));
  if (moved.length > 0)
    throw new ConfigError(`${moved.join(', ')} changed while pull ran; nothing was written`, { hint: 'run obsync pull again' });
  const out: Written = { written: [], deleted: [], masked: [] };
  const staged: { path: string; data: string }[] = [];
  for (const f of files) {
    if (f.after === null) continue;
    const data = scrub(f.after);
    if (data !== f.after) out.masked.push(f.file);
    if (f.before === null) mkdirSync(dirname(f.file), { recursive: true });
    staged.push({ path: f.file, data });
  }
  writeFilesAtomically(staged, { within: options.within });
  out.written = staged.map((s) => s.path);
  for (const f of files)
    if (f.after === null && existsSync(f.file)) {
      unlinkSync(f.file);
      out.deleted.push(f.file);
    }
  return out;
}
