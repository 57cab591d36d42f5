/** The mutex a lease's take-over and renewal hold: a file created exclusively, removed once stale. */
import { randomUUID } from 'node:crypto';
import { open, rm, stat } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { LockError } from '../core/errors.js';
import { readRegularFile } from '../manifests/files.js';

/**
 * A take-over or renewal holds the mutex for a few file operations. One left behind by a process
 * that crashed, or that was paused inside it, is removed after this long: a quarter of the lease
 * (between 0.5 and 10 s), so a paused holder never keeps the next writer out past its own lease.
 * Removing it early is safe: a renewal is never written past its holder's local deadline.
 */
export function mutexStaleMs(leaseMs: number): number {
  return Math.min(10_000, Math.max(500, Math.round(leaseMs / 4)));
}

/**
 * Runs `fn` holding `path` (created exclusively, with a token of this call); waits while another
 * holds it, removing it once older than `staleMs`. `fn` is given `stillHeld`: true while the
 * mutex is certainly still this call's — held for under half its staleness (so no waiter can have
 * judged it stale) and still carrying its token. `fn` checks it immediately before it writes.
 * Released only while it is still this call's.
 */
export async function withMutex<T>(path: string, staleMs: number, fn: (stillHeld: () => boolean) => Promise<T>): Promise<T> {
  const token = randomUUID();
  const deadline = Date.now() + staleMs + 1000;
  for (;;) {
    try {
      const fh = await open(path, 'wx', 0o600);
      try {
        await fh.writeFile(token);
      } catch (err) {
        await fh.close();
        await rm(path, { force: true });
        throw err;
      }
      await fh.close();
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const age = await stat(path).then(
        (s) => Date.now() - s.mtimeMs,
        () => 0,
      );
      if (age > staleMs) await rm(path, { force: true });
      else if (Date.now() > deadline)
        throw new LockError(`the lock take-over mutex ${path} stays busy`, 'if no obsync is running, delete it');
      else await sleep(20);
    }
  }
  const acquired = performance.now();
  const stillHeld = () => performance.now() - acquired < staleMs / 2 && readMutex(path) === token;
  try {
    return await fn(stillHeld);
  } finally {
    // Not another's: a holder paused here may find its mutex removed as stale and taken since.
    if (readMutex(path) === token) await rm(path, { force: true });
  }
}

function readMutex(path: string): string | undefined {
  try {
    return readRegularFile(path, 1024);
  } catch {
    return undefined;
  }
}

export function safeJson(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return null;
  }
}
