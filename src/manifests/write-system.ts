/**
 * The file-system calls an atomic write makes (./atomic-write.ts), and the error it ends with: a
 * seam, so a test can fail any call at any byte as a full disk or a file-size limit would.
 */
import {
  closeSync,
  constants,
  fchmodSync,
  fsyncSync,
  linkSync,
  lstatSync,
  openSync,
  renameSync,
  unlinkSync,
  writeSync,
  type Stats,
} from 'node:fs';
import { ObsyncError } from '../core/errors.js';
import { SYSTEM_ERRORS, systemErrorCode } from '../core/system-errors.js';

/** The real calls, or a test's (a failure injected at any byte). */
export interface WriteSystem {
  open(path: string, flags: number, mode: number): number;
  /** Writes some of `data` at the file's position; answers how many bytes. */
  write(fd: number, data: Uint8Array, offset: number, length: number): number;
  fsync(fd: number): void;
  fchmod(fd: number, mode: number): void;
  close(fd: number): void;
  rename(from: string, to: string): void;
  link(existing: string, created: string): void;
  unlink(path: string): void;
  lstat(path: string): Stats | undefined;
  /** Makes a rename in `dir` durable; best effort (not every system can open a directory). */
  syncDirectory(dir: string): void;
}

export const NODE_WRITE_SYSTEM: WriteSystem = {
  open: (path, flags, mode) => openSync(path, flags, mode),
  write: (fd, data, offset, length) => writeSync(fd, data, offset, length),
  fsync: (fd) => fsyncSync(fd),
  fchmod: (fd, mode) => fchmodSync(fd, mode),
  close: (fd) => closeSync(fd),
  rename: (from, to) => renameSync(from, to),
  link: (existing, created) => linkSync(existing, created),
  unlink: (path) => unlinkSync(path),
  lstat: (path) => lstatSync(path, { throwIfNoEntry: false }),
  syncDirectory(dir) {
    try {
      const fd = openSync(dir, constants.O_RDONLY);
      try {
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
    } catch {
      // Windows cannot open a directory; the rename itself is atomic either way.
    }
  },
};

/** What became of the target when a write failed. */
export type Left = 'unchanged' | 'absent' | 'stream';

/** A file obsync could not write, named, with what it left there: the old file whole, or nothing. */
export class FileWriteError extends ObsyncError {
  override readonly name = 'FileWriteError';
  constructor(
    readonly path: string,
    /** Why, without the path: `no space left on the device (ENOSPC)`. */
    readonly reason: string,
    readonly left: Left,
    options: { hint?: string | undefined; cause?: unknown; also?: string; errno?: string } = {},
  ) {
    const kept = left === 'unchanged' ? `; ${path} is unchanged` : left === 'absent' ? '; nothing was written there' : '';
    super('FILE_WRITE', `cannot write ${path}: ${reason}${kept}${options.also ? `; ${options.also}` : ''}`, {
      ...(options.hint === undefined ? {} : { hint: options.hint }),
      cause: options.cause,
    });
    this.errno = options.errno ?? systemErrorCode(options.cause);
  }

  /** The system's code (`ENOSPC`, `EEXIST`), when there is one. */
  readonly errno: string | undefined;
}

/** The error of a write that failed at `path`, with what it left there. */
export function writeFailure(path: string, err: unknown, left: Left): FileWriteError {
  if (err instanceof FileWriteError) return err;
  const code = systemErrorCode(err);
  const known = code === undefined ? undefined : SYSTEM_ERRORS[code];
  const reason = known ? `${known.what} (${code})` : err instanceof Error ? err.message : String(err);
  return new FileWriteError(path, reason, left, { hint: known?.hint, cause: err });
}

/** The same error, saying what became of the other files of a batch. */
export function withAlso(err: FileWriteError, also: string): FileWriteError {
  return new FileWriteError(err.path, err.reason, err.left, {
    hint: err.hint,
    cause: err.cause,
    also,
    ...(err.errno ? { errno: err.errno } : {}),
  });
}

export function systemError(code: string, message: string): NodeJS.ErrnoException {
  const err: NodeJS.ErrnoException = new Error(message);
  err.code = code;
  return err;
}
