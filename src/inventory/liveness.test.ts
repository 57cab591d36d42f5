import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BOGUS_EXPIRY_MS, MAX_LEASE_MS, beyondAnyLease, replicaLiveness } from './liveness.js';

const HOUR = 3_600_000;
const YEAR = 365 * 24 * HOUR;

describe('a replica row is live only by its heartbeat (issue 50)', () => {
  it(
    'is never live longer than one lease after its last heartbeat, whatever expiry it claims, and never live on a claim no obsync ' +
      'grants (property)',
    () => {
      fc.assert(
        fc.property(
          fc.oneof(fc.integer({ min: 1, max: MAX_LEASE_MS }), fc.integer({ min: -HOUR, max: 10 * MAX_LEASE_MS })),
          fc.integer({ min: -YEAR, max: YEAR }),
          fc.oneof(fc.integer({ min: -YEAR, max: YEAR }), fc.constantFrom(Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, Number.NaN)),
          (leaseMs, heartbeatAgeMs, expiresInMs) => {
            const liveness = replicaLiveness({ leaseMs, heartbeatAgeMs, expiresInMs });
            const claim = Math.max(leaseMs - heartbeatAgeMs, expiresInMs);
            if ('live' in liveness && liveness.live) {
              expect(heartbeatAgeMs).toBeLessThan(leaseMs);
              expect(leaseMs).toBeLessThanOrEqual(MAX_LEASE_MS);
              // Alive at most until the cap: the heartbeat's lease and the stored expiry both within it.
              expect(claim).toBeLessThanOrEqual(BOGUS_EXPIRY_MS);
            }
            const bogus = !(leaseMs > 0 && leaseMs <= MAX_LEASE_MS) || !(claim <= BOGUS_EXPIRY_MS);
            expect('beyond' in liveness).toBe(bogus);
          },
        ),
        { numRuns: 2000 },
      );
    },
  );

  it('the red team row: an old heartbeat with a far-future expiry is dead; a recent one is reported and ignored, never live', () => {
    expect(replicaLiveness({ leaseMs: 30_000, heartbeatAgeMs: HOUR, expiresInMs: 10 * YEAR })).toMatchObject({
      beyond: expect.stringContaining('further than any lease obsync grants') as unknown,
    });
    expect(replicaLiveness({ leaseMs: 30_000, heartbeatAgeMs: 1_000, expiresInMs: 10 * YEAR })).toHaveProperty('beyond');
    // A clock that jumped back an hour: the heartbeat is dated ahead.
    expect(replicaLiveness({ leaseMs: 30_000, heartbeatAgeMs: -HOUR, expiresInMs: HOUR + 30_000 })).toMatchObject({
      beyond: "its last heartbeat is dated 3600 s ahead of the database's clock",
    });
    expect(replicaLiveness({ leaseMs: 30_000, heartbeatAgeMs: 10_000, expiresInMs: 20_000 })).toEqual({ live: true });
    expect(replicaLiveness({ leaseMs: 30_000, heartbeatAgeMs: 40_000, expiresInMs: -10_000 })).toEqual({ live: false });
  });

  it('one bound for leases and heartbeats: the longest lease obsync grants and a minute of skew', () => {
    expect(beyondAnyLease(BOGUS_EXPIRY_MS)).toBe(false);
    expect(beyondAnyLease(BOGUS_EXPIRY_MS + 1)).toBe(true);
    expect(beyondAnyLease(Number.NaN)).toBe(true);
    expect(beyondAnyLease(Number.POSITIVE_INFINITY)).toBe(true);
  });
});
