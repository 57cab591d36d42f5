/**
 * Issue 13, item 10: the writer lock is a lease with heartbeat and expiry. A holder that died
 * where its PID means nothing here (restarted as PID 1 in a new container, rescheduled to
 * another pod) is replaced within the lease time instead of blocking forever; two live writers
 * still exclude each other, however long they run.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LockError } from '../../src/core/errors.js';
import type { WriterLease } from '../../src/inventory/backend.js';
import { LeaseElector } from '../../src/inventory/elector.js';
import { FileStateBackend } from '../../src/inventory/file-backend.js';
import { acquireFileLease, tryFileLease } from '../../src/inventory/lock.js';
import { until } from '../support/wait.js';

const timing = { leaseMs: 1_500, renewMs: 300 };

function stateDir(): string {
  return mkdtempSync(join(tmpdir(), 'obsync-lease-'));
}

/** A lock left by a holder that is gone, renewed last just now: its lease runs for another `ms`. */
function deadHolderLock(dir: string, holder: { pid: number; host: string; pidns?: string }, ms: number): void {
  writeFileSync(
    join(dir, 'prod.lock'),
    JSON.stringify({
      token: 'old',
      ...holder,
      command: 'run',
      since: new Date().toISOString(),
      expiresAt: new Date(Date.now() + ms).toISOString(),
    }),
  );
}

async function leaseWhenFree(path: string): Promise<WriterLease> {
  return until(
    'the lease',
    async () => {
      const attempt = await tryFileLease(path, 'prod', 'run', timing);
      return 'lease' in attempt ? attempt.lease : undefined;
    },
    { timeoutMs: 10_000 },
  );
}

describe('the file lease', () => {
  it('replaces a holder restarted as the same PID in another container once its lease expires', async () => {
    const dir = stateDir();
    // Same host name, same PID as ours (PID 1 == PID 1), another PID namespace: the old PID check called it alive forever.
    deadHolderLock(dir, { pid: process.pid, host: hostname(), pidns: 'pid:[4026530000]' }, 1_000);
    await expect(acquireFileLease(join(dir, 'prod.lock'), 'prod', 'run', timing)).rejects.toThrow(
      /held by a running obsync daemon, obsync run \(run, pid \d+ on .* lease until/,
    );
    const lease = await leaseWhenFree(join(dir, 'prod.lock'));
    expect(JSON.parse(readFileSync(join(dir, 'prod.lock'), 'utf8'))).toMatchObject({ token: lease.token, pid: process.pid });
    await lease.release();
  });

  it('replaces a holder of another host (a rescheduled pod) once its lease expires', async () => {
    const dir = stateDir();
    deadHolderLock(dir, { pid: 7, host: 'obsync-7f9c-old-pod' }, 800);
    const lease = await leaseWhenFree(join(dir, 'prod.lock'));
    await lease.release();
  });

  it('keeps two live writers apart for longer than the lease: the holder renews it', async () => {
    const dir = stateDir();
    const first = await acquireFileLease(join(dir, 'prod.lock'), 'prod', 'apply', timing);
    const expiresAt = () => Date.parse((JSON.parse(readFileSync(join(dir, 'prod.lock'), 'utf8')) as { expiresAt: string }).expiresAt);
    const initial = expiresAt();
    // Wait (on the file, not the clock) until the holder has renewed past its first expiry.
    await until(
      'a renewal past the first expiry',
      () => (expiresAt() > initial + timing.leaseMs / 2 && Date.now() > initial ? true : undefined),
      { timeoutMs: 10_000 },
    );
    await expect(acquireFileLease(join(dir, 'prod.lock'), 'prod', 'apply', timing)).rejects.toBeInstanceOf(LockError);
    expect(first.lost.aborted).toBe(false);
    await first.release();
    const second = await acquireFileLease(join(dir, 'prod.lock'), 'prod', 'apply', timing);
    await second.release();
  });

  it('stops the writes of a holder whose lease was taken over', async () => {
    const dir = stateDir();
    const backend = new FileStateBackend(dir, timing);
    const inventory = await backend.openInventory('prod', { mode: 'write', command: 'apply' });
    const lock = JSON.parse(readFileSync(join(dir, 'prod.lock'), 'utf8')) as Record<string, unknown>;
    writeFileSync(join(dir, 'prod.lock'), JSON.stringify({ ...lock, token: 'someone-else' }));
    await until(
      'the holder to notice',
      async () => {
        try {
          await inventory.put({
            kind: 'Dashboard',
            name: 'a',
            id: '1',
            status: 'owned',
            naturalKey: 'name:a',
            updatedAt: '2026-01-01T00:00:00.000Z',
          });
          await inventory.remove('Dashboard/a');
          return undefined;
        } catch (err) {
          return err instanceof LockError ? true : undefined;
        }
      },
      { timeoutMs: 10_000 },
    );
    await inventory.close();
  });

  it('lets a restarted daemon take over from its dead predecessor instead of crash-looping', async () => {
    const dir = stateDir();
    deadHolderLock(dir, { pid: process.pid, host: hostname(), pidns: 'pid:[4026530000]' }, 1_000);
    const elector = new LeaseElector(new FileStateBackend(dir, timing), 'prod', { command: 'run' });
    const changes: boolean[] = [];
    elector.start((leader) => changes.push(leader));
    expect(elector.isLeader()).toBe(false);
    await until('leadership', () => (elector.isLeader() ? true : undefined), { timeoutMs: 10_000 });
    expect(elector.describe()).toMatch(/this replica leads/);
    expect(changes).toEqual([true]);
    await elector.stop();
  });
});
