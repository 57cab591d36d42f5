/** Writing the exported files below --out-dir: all or nothing, never through a symbolic link, never over other content unforced. */
import { existsSync, lstatSync, mkdirSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ConfigError } from '../../core/errors.js';
import { scrub } from '../../core/scrub.js';
import { writeFilesAtomically } from '../../manifests/atomic-write.js';
import { isWithin, readRegularFile } from '../../manifests/files.js';
import type { CliIO } from '../io.js';

/** Whether a file is there with other content; one that cannot be read as text (a FIFO, a device, a larger file) is other content. */
function differs(path: string, text: string): boolean {
  if (!existsSync(path)) return false;
  try {
    return readRegularFile(path, Buffer.byteLength(text)) !== text;
  } catch {
    return true;
  }
}

/**
 * Writes every file below `outDir`, or nothing: refused when one exists with other content
 * (unless forced), and always when a path would leave the directory through a symbolic link — a
 * folder whose real path is elsewhere, or a link where a file goes. Each folder's real path is
 * checked again right before its files are written; each file is written whole, beside its old
 * one, and the files are renamed into place only once all are written (src/manifests/atomic-write.ts):
 * an export cut short (a full disk, a file-size limit) leaves the old files whole.
 * Their text passes the scrubber: a secret the service holds in a name is written as `(sensitive)`.
 */
export function writeAll(io: CliIO, outDir: string, files: ReadonlyMap<string, string>, force: boolean): void {
  mkdirSync(outDir, { recursive: true });
  const root = realpathSync(outDir);
  const escapes = [...files.keys()].filter((file) => leavesRoot(root, join(outDir, file)));
  if (escapes.length > 0)
    throw new ConfigError(
      `${escapes.length} path${escapes.length === 1 ? '' : 's'} in ${outDir} lead outside it through a ` +
        `symbolic link (${list(escapes)}); nothing was written`,
      { hint: 'export never writes through symbolic links: remove them, or export to another --out-dir' },
    );
  const conflicts = [...files].filter(([file, text]) => differs(join(outDir, file), scrub(text)));
  if (conflicts.length > 0 && !force) {
    throw new ConfigError(
      `${conflicts.length} file${conflicts.length === 1 ? '' : 's'} in ${outDir} already exist with other ` +
        `content (${list(conflicts.map(([f]) => f))}); nothing was written`,
      {
        hint: 'export to an empty --out-dir, or pass --force to overwrite them',
      },
    );
  }
  const masked: string[] = [];
  const written: { path: string; data: string }[] = [];
  for (const [file, text] of files) {
    const path = join(outDir, file);
    mkdirSync(dirname(path), { recursive: true });
    if (leavesRoot(root, path)) throw new ConfigError(`${file} in ${outDir} leads outside it through a symbolic link; nothing was written`);
    const data = scrub(text);
    if (data !== text) masked.push(file);
    written.push({ path, data });
  }
  writeFilesAtomically(written, { within: outDir });
  if (masked.length > 0)
    io.stderr.write(
      `warning: ${list(masked)}: a value the service holds contains a secret obsync knows (a credential, a ` +
        `webhook URL); it is written as (sensitive) — review the object on the service\n`,
    );
}

function list(items: readonly string[]): string {
  return `${items.slice(0, 5).join(', ')}${items.length > 5 ? ', …' : ''}`;
}

/** Whether writing `path` would leave `root`: a link where the file goes, or an existing folder on the way whose real path is outside. */
function leavesRoot(root: string, path: string): boolean {
  if (lstatOrUndefined(path)?.isSymbolicLink()) return true;
  let dir = dirname(path);
  while (!existsSync(dir)) dir = dirname(dir);
  return !isWithin(root, realpathSync(dir));
}

function lstatOrUndefined(path: string): ReturnType<typeof lstatSync> | undefined {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}
