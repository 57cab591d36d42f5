/**
 * Reading user-named files safely: only regular files (checked on the open descriptor, so a
 * swapped path cannot slip a device or FIFO in), at most `maxBytes` read (a bounded read, never
 * readFile: `/dev/zero` would grow without end), and `${file:}` targets confined to allowed
 * directory trees after symlinks are resolved.
 */
import { closeSync, constants, fstatSync, openSync, readSync, realpathSync } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';

export const MAX_FILE_BYTES = 1024 * 1024;

/** A file that cannot be used, with a reason a user can act on. */
export class FileRefusal extends Error {
  constructor(
    readonly code: 'not-regular' | 'too-large' | 'outside' | 'state',
    message: string,
  ) {
    super(message);
  }
}

/** The UTF-8 text of a regular file of at most `maxBytes`; throws FileRefusal or the system error. */
export function readRegularFile(path: string, maxBytes: number = MAX_FILE_BYTES): string {
  // O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused below anyway.
  const fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new FileRefusal('not-regular', `${path} is not a regular file (${kindOf(stat)})`);
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
    return Buffer.concat(chunks, total).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

function tooLarge(path: string, maxBytes: number): FileRefusal {
  return new FileRefusal('too-large', `${path} is larger than ${maxBytes === MAX_FILE_BYTES ? '1 MiB' : `${maxBytes} bytes`}`);
}

function kindOf(stat: ReturnType<typeof fstatSync>): string {
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
    throw new FileRefusal('state', `${path} is in obsync's state directory (the inventory and its fingerprint key)`);
  if (scope.allowOutside === true) return real;
  const extra = Array.isArray(scope.allowOutside) ? scope.allowOutside : [];
  const roots = [...scope.roots, ...(extra as readonly string[])].map((root) => realOrSelf(root, realpath));
  if (roots.some((root) => isWithin(root, real))) return real;
  const where = scope.roots.length === 1 ? scope.roots[0] : scope.roots.join(', ');
  const shown = real === resolve(path) ? path : `${path} (${real})`;
  throw new FileRefusal('outside', `${shown} is outside ${where ?? 'the allowed directories'}`);
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
