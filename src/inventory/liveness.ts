/**
 * How long anything read back from the state may count as alive: writer leases (both backends)
 * and replica heartbeats (PostgreSQL). One rule for all of them: obsync never grants more than
 * its longest lease, so a claim reaching further ahead than that (plus a minute of clock skew)
 * was not written by a running obsync with the clock as it is now — a hand edit, or a clock
 * that jumped back. Such a claim is reported and not believed.
 */

/** The longest lease obsync grants (state.leaseSeconds ≤ 600). */
export const MAX_LEASE_MS = 600_000;
/** Clock skew tolerated between the writer of a claim and its reader. */
const SKEW_MS = 60_000;
export const BOGUS_EXPIRY_MS = MAX_LEASE_MS + SKEW_MS;

/** Whether an expiry `aheadMs` from now reaches further than any lease obsync grants. */
export function beyondAnyLease(aheadMs: number): boolean {
  return !(aheadMs <= BOGUS_EXPIRY_MS);
}

/** A replica row's times, in milliseconds, all measured by the database's clock. */
export interface HeartbeatTimes {
  /** The lease the replica registered with. */
  leaseMs: number;
  /** How long ago its last heartbeat was (negative: a heartbeat dated in the future). */
  heartbeatAgeMs: number;
  /** How far ahead its stored expiry lies (negative: past). */
  expiresInMs: number;
}

export type Liveness = { live: boolean } | { beyond: string };

/**
 * A replica is live for one lease after its last heartbeat, and no longer: the stored expiry is
 * not trusted on its own (a row with a far-future expiry would count as live for ever, and its
 * targets be led by nobody). A row whose lease, heartbeat or expiry reaches further than any lease
 * obsync grants is `beyond`: not counted, and reported with why.
 */
export function replicaLiveness(t: HeartbeatTimes): Liveness {
  if (!(t.leaseMs > 0 && t.leaseMs <= MAX_LEASE_MS))
    return { beyond: `its lease of ${t.leaseMs} ms is not one obsync grants (at most ${MAX_LEASE_MS} ms)` };
  const heartbeatExpiresInMs = t.leaseMs - t.heartbeatAgeMs;
  if (beyondAnyLease(heartbeatExpiresInMs))
    return { beyond: `its last heartbeat is dated ${Math.round(-t.heartbeatAgeMs / 1000)} s ahead of the database's clock` };
  if (beyondAnyLease(t.expiresInMs))
    return { beyond: `its expiry lies ${Math.round(t.expiresInMs / 1000)} s ahead, further than any lease obsync grants` };
  return { live: heartbeatExpiresInMs > 0 };
}
