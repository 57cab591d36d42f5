/**
 * The file backend's writer lease: `<dir>/<target>.lock` names its holder and when the lease
 * expires; the holder renews it in the background. A lease past its expiry is taken over, so a
 * holder killed by the OOM killer, restarted as PID 1 in a new container or rescheduled to
 * another pod is replaced within the lease time (a PID check alone judged those "live").
 * A holder of this host and PID namespace whose process is gone is replaced at once.
 * Take-over and renewal run under a short `.takeover` mutex so two processes never both win.
 */
import { randomUUID } from 'node:crypto';
import { link, rename, rm, stat, writeFile } from 'node:fs/promises';
import * as z from 'zod';
import { FileRefusal, readRegularFile } from '../manifests/files.js';
import { leaseMarginMs, type LeaseAttempt, type LeaseTiming, type WriterLease } from './backend.js';
import { holderState, thisHolder } from './holder.js';
import { beyondAnyLease } from './liveness.js';
import { leaseRefusal } from './lease-refusal.js';
import { moment, RenewingLease, type Moment } from './renewing-lease.js';
import { mutexStaleMs, withMutex, safeJson } from './lease-mutex.js';

const leaseFile = z.object({
  token: z.string().optional(),
  pid: z.number(),
  host: z.string(),
  pidns: z.string().optional(),
  command: z.string().optional(),
  since: z.string().optional(),
  expiresAt: z.string().optional(),
});

type LeaseFile = z.infer<typeof leaseFile>;

export interface FileLeaseOptions extends LeaseTiming {
  now?: () => number;
  /** Awaited inside the take-over mutex, after the holder was judged gone and before the lock is replaced (tests stall a taker here). */
  inTakeover?: () => Promise<void>;
}

export async function tryFileLease(path: string, target: string, command: string, opts: FileLeaseOptions): Promise<LeaseAttempt> {
  const now = opts.now ?? Date.now;
  // Taken before anything is written: the lease's local deadline counts from no later than its expiry does.
  const since = moment();
  const info = leaseInfo(randomUUID(), command, now(), opts.leaseMs);
  const tmp = `${path}.${info.token}.tmp`;
  await writeFile(tmp, JSON.stringify(info), { mode: 0o600 });
  try {
    if (await linkIfAbsent(tmp, path)) return { lease: new FileLease(path, target, info, opts, since) };
    const holder = await readHolder(path, opts.leaseMs);
    if (holder && !isStale(holder, now()))
      return { heldBy: describeHolder(holder, now(), path), holderCommand: holder.command, retryInMs: retryIn(holder, now(), opts) };
    const took = await withMutex(`${path}.takeover`, mutexStaleMs(opts.leaseMs), async (stillHeld) => {
      const current = await readHolder(path, opts.leaseMs);
      if (current && !isStale(current, now())) return false;
      await opts.inTakeover?.();
      // A taker stalled in here takes nothing: once its mutex may have been removed as stale,
      // another may have taken the lease meanwhile, and past its new lease's deadline it could
      // not write anyway. Its late rename would only put a second writer beside the first.
      if (!stillHeld() || performance.now() >= since.mono + opts.leaseMs - leaseMarginMs(opts)) return false;
      await rename(tmp, path);
      return true;
    });
    if (took) return { lease: new FileLease(path, target, info, opts, since) };
    const winner = await readHolder(path, opts.leaseMs);
    return {
      heldBy: winner ? describeHolder(winner, now(), path) : 'another obsync',
      holderCommand: winner?.command,
      retryInMs: winner ? retryIn(winner, now(), opts) : opts.renewMs,
    };
  } finally {
    await rm(tmp, { force: true });
  }
}

/** apply, state rm: the lease now, or a LockError saying who holds it and until when. */
export async function acquireFileLease(path: string, target: string, command: string, opts: FileLeaseOptions): Promise<WriterLease> {
  const attempt = await tryFileLease(path, target, command, opts);
  if ('lease' in attempt) return attempt.lease;
  throw leaseRefusal(target, attempt, `(lock file ${path})`);
}

class FileLease extends RenewingLease {
  #info: LeaseFile;

  constructor(
    private readonly path: string,
    target: string,
    info: LeaseFile & { token: string },
    private readonly opts: FileLeaseOptions,
    since: Moment,
  ) {
    super(target, info.token, opts, since);
    this.#info = info;
  }

  protected async giveUp(): Promise<void> {
    await withMutex(`${this.path}.takeover`, mutexStaleMs(this.opts.leaseMs), async (stillHeld) => {
      // Stalled in here, it might remove a successor's lock: it leaves it to expire instead.
      if ((await readHolder(this.path, this.opts.leaseMs))?.token === this.token && stillHeld()) await rm(this.path, { force: true });
    }).catch(() => undefined);
  }

  protected async renew(): Promise<void> {
    const now = (this.opts.now ?? Date.now)();
    const sent = moment();
    try {
      // A renewal that stalls in here needs no stillHeld(): a successor enters only once this lease expired, after its local deadline.
      const kept = await withMutex(`${this.path}.takeover`, mutexStaleMs(this.opts.leaseMs), async () => {
        if ((await readHolder(this.path, this.opts.leaseMs))?.token !== this.token) return 'taken';
        const next = { ...this.#info, expiresAt: new Date(now + this.opts.leaseMs).toISOString() };
        const tmp = `${this.path}.${this.token}.tmp`;
        await writeFile(tmp, JSON.stringify(next), { mode: 0o600 });
        // Checked last, immediately before the lock file is replaced: a holder paused past its
        // deadline (its mutex since removed as stale) must not overwrite the lock of its successor.
        if (this.pastDeadline()) {
          await rm(tmp, { force: true });
          return 'late';
        }
        await rename(tmp, this.path);
        this.#info = next;
        return 'renewed';
      });
      if (kept === 'renewed') this.renewed(sent);
      else if (kept === 'late') this.lose('its local deadline passed before the renewal was written (was this process paused?)');
      else this.lose('another obsync took the lease over');
    } catch {
      // A failed renewal (disk full, mutex busy) is retried at the next tick, until the lease runs out.
      if (Date.parse(this.#info.expiresAt ?? '') <= now) this.lose('the lease could not be renewed before it expired');
    }
  }
}

function leaseInfo(token: string, command: string, now: number, leaseMs: number): LeaseFile & { token: string } {
  return { token, ...thisHolder(), command, since: new Date(now).toISOString(), expiresAt: new Date(now + leaseMs).toISOString() };
}

async function linkIfAbsent(from: string, to: string): Promise<boolean> {
  try {
    await link(from, to);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
}

/** The holder, with an expiry; a lock file of an older obsync (no expiry) or a damaged one expires a lease after its last change. */
async function readHolder(path: string, leaseMs: number): Promise<(LeaseFile & { expiresAt: string }) | null> {
  let raw: string;
  let mtime: number;
  try {
    raw = readLockFile(path);
    mtime = (await stat(path)).mtimeMs;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  const parsed = leaseFile.safeParse(safeJson(raw));
  const fallbackExpiry = new Date(mtime + leaseMs).toISOString();
  if (!parsed.success) return { pid: -1, host: '?', command: 'unreadable lock file', expiresAt: fallbackExpiry };
  return { ...parsed.data, expiresAt: parsed.data.expiresAt ?? fallbackExpiry };
}

/** A lock file is a few hundred bytes; one that is not a regular file or far larger is damaged (read as unreadable, so it expires). */
function readLockFile(path: string): string {
  try {
    return readRegularFile(path, 64 * 1024);
  } catch (err) {
    if (err instanceof FileRefusal) return '';
    throw err;
  }
}

function isStale(holder: LeaseFile & { expiresAt: string }, now: number): boolean {
  const expiresAt = Date.parse(holder.expiresAt);
  const state = holderState(holder);
  if (expiresAt <= now || state === 'gone') return true;
  // A claim beyond any lease obsync grants (liveness.ts) is stale, unless its holder is a live process here (the lock-out names it).
  return beyondAnyLease(expiresAt - now) && state !== 'here';
}

function retryIn(holder: { expiresAt: string }, now: number, opts: LeaseTiming): number {
  return Math.max(50, Math.min(opts.renewMs, Date.parse(holder.expiresAt) - now + 50));
}

function describeHolder(h: LeaseFile & { expiresAt: string }, now: number, path: string): string {
  const held = `${h.command ?? 'running'}, pid ${h.pid} on ${h.host}${h.since ? ` since ${h.since}` : ''}, lease until ${h.expiresAt}`;
  if (!beyondAnyLease(Date.parse(h.expiresAt) - now)) return held;
  return (
    `${held} — further ahead than any lease obsync grants, so not written by a running obsync with a correct clock; if pid ` +
    `${h.pid} is not obsync, delete ${path}`
  );
}
