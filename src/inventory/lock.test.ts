/**
 * The file lease and a holder paused at the worst moment: inside its take-over mutex. The next
 * writer is not kept out past the mutex's staleness (a quarter of the lease), and the paused
 * holder, once it resumes, writes no renewal over its successor's lock.
 */
import { mkdtempSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { thisHolder } from './holder.js';
import { tryFileLease } from './lock.js';

const lockPath = () => join(mkdtempSync(join(tmpdir(), 'obsync-lock-')), 'prod.lock');

/** Blocks this process's event loop, as a SIGSTOP or a long collection would. */
function freeze(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

describe('the file lease with a holder paused inside its take-over mutex', () => {
  it('lets the next writer take an expired lease once the mutex left behind is stale, not "stays busy"', async () => {
    const path = lockPath();
    // An expired lease of a holder that still runs (this very process, another token), paused
    // with the mutex held: its file is fresh.
    writeFileSync(
      path,
      JSON.stringify({ token: 'paused', ...thisHolder(), command: 'apply', expiresAt: new Date(Date.now() - 1).toISOString() }),
    );
    writeFileSync(`${path}.takeover`, 'paused-mutex');
    const started = Date.now();
    const attempt = await tryFileLease(path, 'prod', 'apply', { leaseMs: 2000, renewMs: 600 });
    expect('lease' in attempt ? 'taken' : attempt.heldBy).toBe('taken');
    // The mutex of a 2 s lease is stale after 0.5 s (it was 10 s for any lease: the next writer
    // failed with "stays busy" after 1 s). The bound is generous: only the order of magnitude counts.
    const waited = Date.now() - started;
    expect(waited).toBeGreaterThanOrEqual(400);
    expect(waited).toBeLessThan(5000);
    expect((JSON.parse(readFileSync(path, 'utf8')) as { token: string }).token).not.toBe('paused');
    if ('lease' in attempt) await attempt.lease.release();
  });

  it('writes no renewal once its local deadline has passed, and loses the lease instead', async () => {
    const path = lockPath();
    const attempt = await tryFileLease(path, 'prod', 'run', { leaseMs: 1000, renewMs: 300, marginMs: 200 });
    if (!('lease' in attempt)) throw new Error('no lease');
    const { lease } = attempt;
    const before = readFileSync(path, 'utf8');
    const mtime = statSync(path).mtimeMs;
    // Frozen past the lease: the renewal tick that fires on resuming finds the deadline gone.
    freeze(1100);
    await new Promise<void>((resolve) => lease.lost.addEventListener('abort', () => resolve(), { once: true }));
    expect(String(lease.lost.reason)).toMatch(/local deadline passed before the renewal was written/);
    expect(readFileSync(path, 'utf8')).toBe(before);
    expect(statSync(path).mtimeMs).toBe(mtime);
    expect(() => lease.check()).toThrow(/lost the writer lease/);
    await lease.release();
  });

  it('takes nothing when its wait outlasted the deadline of the lease it would take', async () => {
    const path = lockPath();
    const expired = JSON.stringify({ token: 'old', ...thisHolder(), command: 'apply', expiresAt: new Date(Date.now() - 1).toISOString() });
    writeFileSync(path, expired);
    // A mutex kept fresh for 600 ms, then left: stale 500 ms later, past the 800 ms a 1 s lease
    // (margin 200 ms) may be written under, and before the waiter gives up (1.5 s).
    writeFileSync(`${path}.takeover`, 'busy');
    const fresh = setInterval(() => utimesSync(`${path}.takeover`, new Date(), new Date()), 50);
    setTimeout(() => clearInterval(fresh), 600);
    // On a machine slow enough to delay the waiter past its 1.5 s, it fails "stays busy" instead: no lease either way.
    const attempt = await tryFileLease(path, 'prod', 'apply', { leaseMs: 1000, renewMs: 300, marginMs: 200 }).catch((error: unknown) => ({
      error,
    }));
    clearInterval(fresh);
    expect('lease' in attempt).toBe(false);
    expect(readFileSync(path, 'utf8')).toBe(expired);
  });
});
