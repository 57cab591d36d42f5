/**
 * What a system error code means to a user, and what to do about it: the one table behind every
 * message that says why a file could not be read or written (src/cli/io.ts, src/manifests/atomic-write.ts).
 */
export const SYSTEM_ERRORS: Readonly<Record<string, { what: string; hint?: string }>> = {
  ENOSPC: { what: 'no space left on the device', hint: 'free some disk space and run again' },
  EDQUOT: { what: 'the disk quota is exhausted', hint: 'free some space or raise the quota and run again' },
  EFBIG: { what: 'the file is larger than the file-size limit allows', hint: 'raise the file-size limit (ulimit -f) and run again' },
  EROFS: { what: 'the file system is read-only', hint: 'choose a writable location (e.g. OBSYNC_STATE_DIR or --out)' },
  EACCES: { what: 'permission denied', hint: 'check the permissions of the file and its folder' },
  EPERM: { what: 'operation not permitted', hint: 'check the permissions of the file and its folder' },
  EISDIR: { what: 'it is a directory' },
  ENOTDIR: { what: 'a part of the path is not a directory' },
  ENOENT: { what: 'no such file or directory' },
  EEXIST: { what: 'it already exists' },
  EMFILE: { what: 'too many open files', hint: 'raise the open-file limit (ulimit -n)' },
};

/** The code of a Node system error (`ENOSPC`), if it is one. */
export function systemErrorCode(err: unknown): string | undefined {
  const code = err instanceof Error ? (err as { code?: unknown }).code : undefined;
  return typeof code === 'string' ? code : undefined;
}
