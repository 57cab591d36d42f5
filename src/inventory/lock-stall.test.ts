/**
 * A taker that stalls inside the take-over mutex (a long collection, a blocked event loop) past
 * the mutex's staleness, but not past its new lease's deadline: another taker removes the stale
 * mutex and takes the expired lease. The stalled one must then take nothing — two leases at once
 * would be two writers. The stall is made by delaying the stalled taker's read of the lock file.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import type * as FsPromises from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { thisHolder } from './holder.js';
import { tryFileLease } from './lock.js';

const stall = vi.hoisted(() => ({ path: '', call: 0, at: 0, ms: 0 }));

vi.mock('node:fs/promises', async (importOriginal) => {
  const real = await importOriginal<typeof FsPromises>();
  return {
    ...real,
    stat: async (...args: Parameters<typeof real.stat>) => {
      if (args[0] === stall.path && ++stall.call === stall.at) await new Promise((r) => setTimeout(r, stall.ms));
      return real.stat(...args);
    },
  };
});

describe('a taker stalled inside the take-over mutex', () => {
  it('takes nothing once another took the lease behind its stale mutex: never two leases at once', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'obsync-stall-')), 'prod.lock');
    writeFileSync(
      path,
      JSON.stringify({ token: 'old', ...thisHolder(), command: 'apply', expiresAt: new Date(Date.now() - 1).toISOString() }),
    );
    // Lease 2 s: the mutex is stale after 0.5 s; B's new lease could be written under until 1.6 s.
    const opts = { leaseMs: 2000, renewMs: 600 };
    Object.assign(stall, { path, call: 0, at: 2, ms: 800 });
    const b = tryFileLease(path, 'prod', 'apply', opts);
    await new Promise((r) => setTimeout(r, 650));
    const c = await tryFileLease(path, 'prod', 'apply', opts);
    const bAttempt = await b;
    const leases = [bAttempt, c].filter((a) => 'lease' in a);
    expect(leases).toHaveLength(1);
    expect('lease' in c).toBe(true);
    const holder = JSON.parse(readFileSync(path, 'utf8')) as { token: string };
    if ('lease' in c) {
      expect(holder.token).toBe(c.lease.token);
      await c.lease.release();
    }
  });
});
