/**
 * A taker that stalls inside the take-over mutex (a long collection, a blocked event loop) past
 * the mutex's staleness, but not past its new lease's deadline: another taker removes the stale
 * mutex and takes the expired lease. The stalled one must then take nothing — two leases at once
 * would be two writers. The stall is made at the lease's `inTakeover` hook.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { thisHolder } from './holder.js';
import { tryFileLease } from './lock.js';

describe('a taker stalled inside the take-over mutex', () => {
  it('takes nothing once another took the lease behind its stale mutex: never two leases at once', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'obsync-stall-')), 'prod.lock');
    writeFileSync(
      path,
      JSON.stringify({ token: 'old', ...thisHolder(), command: 'apply', expiresAt: new Date(Date.now() - 1).toISOString() }),
    );
    // Lease 2 s: the mutex is stale after 0.5 s; B's new lease could be written under until 1.6 s.
    const opts = { leaseMs: 2000, renewMs: 600 };
    let resume = (): void => undefined;
    let began = (): void => undefined;
    const stalled = new Promise<void>((r) => (began = r));
    const b = tryFileLease(path, 'prod', 'apply', {
      ...opts,
      inTakeover: () =>
        new Promise<void>((r) => {
          resume = r;
          began();
        }),
    });
    await stalled;
    // B holds the mutex and stalls; once its mutex is stale, C removes it and takes the lease.
    await new Promise((r) => setTimeout(r, 600));
    const c = await tryFileLease(path, 'prod', 'apply', opts);
    resume();
    const bAttempt = await b;
    expect('lease' in c).toBe(true);
    expect('lease' in bAttempt).toBe(false);
    const holder = JSON.parse(readFileSync(path, 'utf8')) as { token: string };
    if ('lease' in c) {
      expect(holder.token).toBe(c.lease.token);
      expect(() => c.lease.check()).not.toThrow();
      await c.lease.release();
    }
  });
});
