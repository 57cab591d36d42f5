/** A lock file against a second writer on the same target: a clear error, never a wait forever. */
import { hostname } from 'node:os';
import { open, readFile, rm } from 'node:fs/promises';
import { LockError } from '../core/errors.js';

interface LockInfo {
  pid: number;
  host: string;
  since: string;
  command?: string;
}

export interface HeldLock {
  path: string;
  release(): Promise<void>;
}

export async function acquireLock(path: string, command: string, now: () => Date = () => new Date()): Promise<HeldLock> {
  const info: LockInfo = { pid: process.pid, host: hostname(), since: now().toISOString(), command };
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      const fh = await open(path, 'wx', 0o600);
      await fh.writeFile(JSON.stringify(info));
      await fh.close();
      return { path, release: () => rm(path, { force: true }) };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = await readHolder(path);
      if (holder && isStale(holder)) {
        await rm(path, { force: true });
        continue;
      }
      throw new LockError(
        `the inventory is locked by another obsync${holder ? ` (pid ${holder.pid} on ${holder.host}, ${holder.command ?? 'running'} since ${holder.since})` : ''}: ${path}`,
        'wait for the other run to finish; if no other obsync is running, delete the lock file',
      );
    }
  }
  throw new LockError(`could not take the inventory lock ${path}`);
}

async function readHolder(path: string): Promise<LockInfo | null> {
  try {
    const parsed = JSON.parse(await readFile(path, 'utf8')) as Partial<LockInfo>;
    if (typeof parsed.pid !== 'number' || typeof parsed.host !== 'string') return null;
    return { pid: parsed.pid, host: parsed.host, since: String(parsed.since ?? '?'), ...(parsed.command ? { command: parsed.command } : {}) };
  } catch {
    return null;
  }
}

/** A lock left by a process of this host that no longer exists (killed, crashed). */
function isStale(holder: LockInfo): boolean {
  if (holder.host !== hostname()) return false;
  if (holder.pid === process.pid) return false;
  try {
    process.kill(holder.pid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}
