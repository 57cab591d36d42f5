/**
 * Writing a file into the user's project — the one way obsync does it (export, init, schema, a
 * saved plan; an ESLint rule keeps it so): whole or not at all. The bytes go to a temporary file
 * beside the target (the same directory, so the rename stays on one file system), created
 * exclusively and never through a link, flushed to the disk (fsync), then renamed over the target.
 * A failure at any step — a full disk, a file-size limit (EFBIG), a refused rename — removes the
 * temporary file and leaves the old file whole, and the error names the file. Several files (an
 * export) are all written first and renamed only once every one of them is complete.
 *
 * The target itself is never a link (refused: a link is the user's, and may lead out of the
 * project). A device or FIFO in its place (`--out /dev/stdout`) is a stream, not content to keep:
 * written directly when the caller allows it, refused otherwise.
 */
import { randomBytes } from 'node:crypto';
import { constants, existsSync, realpathSync, type Stats } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { systemErrorCode } from '../core/system-errors.js';
import { isWithin, kindOf } from './files.js';
import { FileWriteError, NODE_WRITE_SYSTEM, systemError, withAlso, writeFailure, type Left, type WriteSystem } from './write-system.js';

export { FileWriteError, NODE_WRITE_SYSTEM, type WriteSystem } from './write-system.js';

export interface AtomicWriteOptions {
  /** Permissions of a new file (default 0o644, less the umask); a replaced file keeps its own. */
  mode?: number;
  /** `replace` (default) an existing file, or `create` one: an existing entry of that name is refused (EEXIST) at the rename itself. */
  existing?: 'replace' | 'create';
  /** A device or FIFO in the target's place (`--out /dev/stdout`): `write` to it directly, or `refuse` (default). */
  streams?: 'write' | 'refuse';
  /** The project's folder: the target's folder must really be inside it (a folder on the way that links out of it is refused). */
  within?: string;
  system?: WriteSystem;
}

/** A file written beside its target, not yet in its place. */
export interface StagedFile {
  readonly path: string;
  /** Renames it over the target (links it, for `create`); on failure it is removed and the target left as it was. */
  commit(): void;
  /** Removes it (another file of the batch failed). */
  discard(): void;
}

/** Writes one file whole, or leaves the old one whole (FileWriteError). */
export function writeFileAtomically(path: string, data: string | Uint8Array, options: AtomicWriteOptions = {}): void {
  const staged = stageFile(path, data, options);
  staged.commit();
  (options.system ?? NODE_WRITE_SYSTEM).syncDirectory(dirname(path));
}

/** Writes every file, or none: all are staged first, and renamed only when every one is complete. */
export function writeFilesAtomically(
  files: readonly { path: string; data: string | Uint8Array }[],
  options: AtomicWriteOptions = {},
): void {
  const staged: StagedFile[] = [];
  try {
    for (const f of files) staged.push(stageFile(f.path, f.data, options));
  } catch (err) {
    for (const s of staged) s.discard();
    throw files.length > 1 && err instanceof FileWriteError ? withAlso(err, `none of the ${files.length} files was changed`) : err;
  }
  staged.forEach((s, i) => {
    try {
      s.commit();
    } catch (err) {
      for (const rest of staged.slice(i + 1)) rest.discard();
      const also = `${i} of the ${files.length} files were written before it, the ${files.length - i - 1} after it are unchanged`;
      throw err instanceof FileWriteError && files.length > 1 ? withAlso(err, also) : err;
    }
  });
  const sys = options.system ?? NODE_WRITE_SYSTEM;
  for (const dir of new Set(files.map((f) => dirname(f.path)))) sys.syncDirectory(dir);
}

/** Writes `data` to a temporary file beside `path`, complete and on the disk; `commit` puts it in place. */
export function stageFile(path: string, data: string | Uint8Array, options: AtomicWriteOptions = {}): StagedFile {
  const sys = options.system ?? NODE_WRITE_SYSTEM;
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  const before = statTarget(sys, path);
  const left: Left = before ? 'unchanged' : 'absent';
  if (options.within !== undefined) confineFolder(path, options.within, left);
  if (before?.isSymbolicLink())
    throw new FileWriteError(path, 'it is a symbolic link, and obsync neither writes through links nor replaces them', left);
  if (before && options.existing === 'create') throw new FileWriteError(path, 'it already exists (EEXIST)', left, { errno: 'EEXIST' });
  if (before && !before.isFile()) {
    if (options.streams === 'write' && (before.isFIFO() || before.isCharacterDevice())) return writeStream(sys, path, bytes);
    throw new FileWriteError(path, `it is ${kindOf(before)}, not a regular file`, left);
  }
  const temp = tempBeside(path);
  let fd: number | undefined;
  try {
    fd = sys.open(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0), options.mode ?? 0o644);
    writeAll(sys, fd, bytes);
    if (before) sys.fchmod(fd, before.mode & 0o7777);
    sys.fsync(fd);
    const closing = fd;
    fd = undefined;
    sys.close(closing);
  } catch (err) {
    if (fd !== undefined) quietly(() => sys.close(fd as number));
    quietly(() => sys.unlink(temp));
    throw writeFailure(path, err, left);
  }
  let done = false;
  return {
    path,
    commit() {
      if (done) return;
      done = true;
      try {
        if (options.existing === 'create') createFrom(sys, temp, path);
        else sys.rename(temp, path);
      } catch (err) {
        quietly(() => sys.unlink(temp));
        throw writeFailure(path, err, left);
      }
    },
    discard() {
      if (done) return;
      done = true;
      quietly(() => sys.unlink(temp));
    },
  };
}

/** The target as it is now (not followed), or undefined when there is none. */
function statTarget(sys: WriteSystem, path: string): Stats | undefined {
  try {
    return sys.lstat(path);
  } catch (err) {
    throw writeFailure(path, err, 'absent');
  }
}

/** Refuses a target whose folder (its nearest existing one) really lies outside `root`: a link on the way leads out. */
function confineFolder(path: string, root: string, left: Left): void {
  let dir = dirname(path);
  while (!existsSync(dir) && dirname(dir) !== dir) dir = dirname(dir);
  const real = realpathSync(dir);
  if (!isWithin(realpathSync(root), real))
    throw new FileWriteError(path, `${dir} leads to ${real} through a symbolic link, out of ${root}`, left, {
      hint: 'obsync writes into the project only: remove the link, or choose another folder',
    });
}

/** `.name.obsync-1a2b3c4d5e6f.tmp`: hidden, and not named like a manifest, so no walk or watcher takes it for one. */
function tempBeside(path: string): string {
  return join(dirname(path), `.${basename(path).slice(0, 100)}.obsync-${randomBytes(6).toString('hex')}.tmp`);
}

function writeAll(sys: WriteSystem, fd: number, bytes: Uint8Array): void {
  for (let offset = 0; offset < bytes.length; ) {
    const n = sys.write(fd, bytes, offset, bytes.length - offset);
    if (n <= 0) throw systemError('EIO', 'the write made no progress');
    offset += n;
  }
}

/** A new file only: a hard link fails when the name is taken, whatever took it meanwhile; without hard links, checked then renamed. */
function createFrom(sys: WriteSystem, temp: string, path: string): void {
  try {
    sys.link(temp, path);
  } catch (err) {
    if (!['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS'].includes(systemErrorCode(err) ?? '')) throw err;
    if (sys.lstat(path)) throw systemError('EEXIST', 'it already exists');
    sys.rename(temp, path);
    return;
  }
  quietly(() => sys.unlink(temp));
}

/** A device or FIFO: no content to keep, written as it is. */
function writeStream(sys: WriteSystem, path: string, bytes: Uint8Array): StagedFile {
  let fd: number | undefined;
  try {
    fd = sys.open(path, constants.O_WRONLY | (constants.O_NOFOLLOW ?? 0), 0o644);
    writeAll(sys, fd, bytes);
    const closing = fd;
    fd = undefined;
    sys.close(closing);
  } catch (err) {
    if (fd !== undefined) quietly(() => sys.close(fd as number));
    throw writeFailure(path, err, 'stream');
  }
  return { path, commit() {}, discard() {} };
}

function quietly(f: () => void): void {
  try {
    f();
  } catch {
    // Cleaning up after a failure: the failure is what the user needs to hear of.
  }
}
