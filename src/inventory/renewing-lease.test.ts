import { describe, expect, it } from 'vitest';
import { LeaseLostError } from '../core/errors.js';
import { moment, RenewingLease, type Moment } from './renewing-lease.js';

/** A lease that never renews by itself (the interval is an hour): the tests move its moments. */
class TestLease extends RenewingLease {
  constructor(since: Moment, leaseMs = 1_000) {
    super('prod', 'token-1', { leaseMs, renewMs: 3_600_000, marginMs: 200 }, since);
  }
  protected renew(): Promise<void> {
    return Promise.resolve();
  }
  protected giveUp(): Promise<void> {
    return Promise.resolve();
  }
  renewedAt(at: Moment): void {
    this.renewed(at);
  }
}

const ago = (ms: number): Moment => ({ mono: performance.now() - ms, wall: Date.now() - ms });

describe('the writer lease as this process sees it', () => {
  it('lets writes through until acquisition + lease − margin, then refuses them and counts as lost', async () => {
    const fresh = new TestLease(moment());
    expect(() => fresh.check()).not.toThrow();
    // Acquired 850 ms ago: 1000 − 200 = 800 ms of writes, already over (a process paused since).
    const paused = new TestLease(ago(850));
    expect(() => paused.check()).toThrow(LeaseLostError);
    expect(() => paused.check()).toThrow(/local deadline passed/);
    expect(paused.lost.aborted).toBe(true);
    await fresh.release();
    await paused.release();
  });

  it('refuses once the wall clock passed the deadline even when the monotonic clock stood still (a frozen VM)', async () => {
    const lease = new TestLease({ mono: performance.now(), wall: Date.now() - 5_000 });
    expect(() => lease.check()).toThrow(LeaseLostError);
    await lease.release();
  });

  it('runs from the last renewal that was sent, never backwards', async () => {
    const lease = new TestLease(ago(700));
    lease.renewedAt(moment());
    lease.renewedAt(ago(900));
    expect(() => lease.check()).not.toThrow();
    await lease.release();
  });

  it('refuses every write once released', async () => {
    const lease = new TestLease(moment());
    await lease.release();
    expect(() => lease.check()).toThrow(/was released/);
  });
});
