/**
 * Reading files safely — the one way obsync reads a file (an ESLint rule keeps it so): only
 * regular files (checked on the open descriptor, so a swapped path cannot slip a device or FIFO
 * in), at most `maxBytes` read (a bounded read, never readFile: `/dev/zero` would grow without
 * end), and `${file:}` targets confined to allowed directory trees after symlinks are resolved.
 */
import { closeSync, constants, fstatSync, lstatSync, openSync, readSync, realpathSync, type Stats } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';

/** Files a user names: manifests, obsync.yaml, `${file:}`, credential `*_FILE`s. */
export const MAX_FILE_BYTES = 1024 * 1024;
/** obsync's own files, which grow with the estate: inventory snapshot and journal, saved plans, backups, sandbox data. */
export const MAX_STATE_FILE_BYTES = 256 * 1024 * 1024;

/** A file that cannot be used, with a reason a user can act on: `<path> is <reason>`. */
export class FileRefusal extends Error {
  constructor(
    readonly code: 'not-regular' | 'too-large' | 'outside' | 'state',
    readonly path: string,
    /** What is wrong, without the path: `not a regular file (a FIFO)`, `larger than 1 MiB`. */
    readonly reason: string,
  ) {
    super(`${path} is ${reason}`);
  }
}

/** The UTF-8 text of a regular file of at most `maxBytes`; throws FileRefusal or the system error. */
export function readRegularFile(path: string, maxBytes: number = MAX_FILE_BYTES): string {
  return readRegularBytes(path, maxBytes).toString('utf8');
}

/** The bytes of a regular file of at most `maxBytes`; throws FileRefusal or the system error. */
export function readRegularBytes(path: string, maxBytes: number = MAX_FILE_BYTES): Buffer {
  const fd = openRegular(path);
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new FileRefusal('not-regular', path, `not a regular file (${kindOf(stat)})`);
    // Read until the end, but never more than one byte past the limit (whatever fstat said: the file may grow).
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(64 * 1024, maxBytes + 1 - total));
      const n = readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) break;
      chunks.push(chunk.subarray(0, n));
      total += n;
      if (total > maxBytes) throw tooLarge(path, maxBytes);
    }
    return Buffer.concat(chunks, total);
  } finally {
    closeSync(fd);
  }
}

/** As readRegularBytes, or undefined when there is no such file (obsync's own files, before their first write). */
export function readRegularBytesIfPresent(path: string, maxBytes: number): Buffer | undefined {
  try {
    return readRegularBytes(path, maxBytes);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** Why a file could not be read, in a few words for a message (`it is a FIFO`, `no such file (ENOENT)`). */
export function unreadableReason(err: unknown): string {
  if (err instanceof FileRefusal) return `it is ${err.reason}`;
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOENT') return 'no such file (ENOENT)';
  if (code === 'EACCES' || code === 'EPERM') return `permission denied (${code})`;
  if (code === 'EISDIR') return 'it is a directory';
  return err instanceof Error ? err.message : String(err);
}

/** Opens for reading without waiting: opening a FIFO must not wait for a writer (it is refused after). */
function openRegular(path: string): number {
  try {
    return openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (err) {
    // A socket cannot be opened at all (ENXIO): say what it is.
    if ((err as NodeJS.ErrnoException).code === 'ENXIO') {
      const stat = lstatSync(path, { throwIfNoEntry: false });
      if (stat && !stat.isFile()) throw new FileRefusal('not-regular', path, `not a regular file (${kindOf(stat)})`);
    }
    throw err;
  }
}

function tooLarge(path: string, maxBytes: number): FileRefusal {
  return new FileRefusal('too-large', path, `larger than ${formatBytes(maxBytes)}`);
}

function formatBytes(bytes: number): string {
  if (bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

/** What a directory entry or a stat says a path is. */
export type FileType = Pick<Stats, 'isFile' | 'isDirectory' | 'isFIFO' | 'isSocket' | 'isCharacterDevice' | 'isBlockDevice'>;

/** `a directory`, `a FIFO`, `a socket`, `a device`, for messages. */
export function kindOf(stat: FileType): string {
  if (stat.isDirectory()) return 'a directory';
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return 'a device';
  if (stat.isFIFO()) return 'a FIFO';
  if (stat.isSocket()) return 'a socket';
  return 'not a file';
}

/** Where `${file:}` may read: below these directories, unless reading anywhere is allowed. */
export interface FileScope {
  roots: readonly string[];
  /** `true`: anywhere; a list: also below these directories. */
  allowOutside?: boolean | readonly string[];
  /** Resolves links (default: the file system's realpath); tests with in-memory files pass their own. */
  realpath?: (path: string) => string;
  /** Never readable, whatever is allowed: obsync's state directory (its inventory and fingerprint key). */
  denied?: readonly string[];
}

/** The real path of `path` when the scope allows it; throws FileRefusal('outside') or the system error (ENOENT). */
export function confine(path: string, scope: FileScope): string {
  const realpath = scope.realpath ?? ((p: string) => realpathSync(p));
  const real = realpath(path);
  if ((scope.denied ?? []).some((dir) => isWithin(realOrSelf(dir, realpath), real)))
    throw new FileRefusal('state', path, `in obsync's state directory (the inventory and its fingerprint key)`);
  if (scope.allowOutside === true) return real;
  const extra = Array.isArray(scope.allowOutside) ? scope.allowOutside : [];
  const roots = [...scope.roots, ...(extra as readonly string[])].map((root) => realOrSelf(root, realpath));
  if (roots.some((root) => isWithin(root, real))) return real;
  const where = scope.roots.length === 1 ? scope.roots[0] : scope.roots.join(', ');
  const shown = real === resolve(path) ? path : `${path} (${real})`;
  throw new FileRefusal('outside', shown, `outside ${where ?? 'the allowed directories'}`);
}

/**
 * Whether `path` is `root` or below it. A name that merely starts with two dots is inside:
 * Kubernetes mounts a ConfigMap as `..data` and `..2024_…` folders.
 */
export function isWithin(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

function realOrSelf(path: string, realpath: (p: string) => string): string {
  try {
    return realpath(path);
  } catch {
    return resolve(path);
  }
}
