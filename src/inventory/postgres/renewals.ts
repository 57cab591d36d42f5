/**
 * The lease renewals of one process on one PostgreSQL state, as one UPDATE per tick (issue 28).
 * One statement per lease made a replica of 200 targets send 200 renewals every renewal
 * interval over its two control connections; each needs a turn of a busy event loop to be read,
 * so they queued past the local deadline and the replica lost leases it held (then took them
 * back, and ran again: a round never ended). All leases tick on one shared timer, the renewals
 * asked for in the same turn go out together, and each lease learns whether its row (target and
 * token) was still there.
 */
import type { Every } from '../renewing-lease.js';
import type { PgConnection } from './connection.js';
import { readRows, renewedRow } from './rows.js';

interface Pending {
  target: string;
  token: string;
  /** true: renewed; false: the row is gone or holds another token (another holder took over). */
  settle: (renewed: boolean) => void;
  fail: (err: unknown) => void;
}

export class LeaseRenewals {
  /** Ticks per interval length (every lease of a backend has the same, but nothing relies on it). */
  readonly #ticks = new Map<number, { ticks: Set<() => void>; stop: () => void }>();
  /** Renewals waiting for the end of this turn, per lease length. */
  readonly #batches = new Map<number, Pending[]>();

  constructor(
    private readonly conn: Pick<PgConnection, 'control'>,
    private readonly s: string,
  ) {}

  /** The shared timer: one interval per length, kept while any lease ticks on it. */
  readonly every: Every = (tick, ms) => {
    let group = this.#ticks.get(ms);
    if (!group) {
      const ticks = new Set<() => void>();
      const timer = setInterval(() => {
        for (const t of [...ticks]) t();
      }, ms);
      timer.unref();
      group = { ticks, stop: () => clearInterval(timer) };
      this.#ticks.set(ms, group);
    }
    const { ticks } = group;
    ticks.add(tick);
    return () => {
      ticks.delete(tick);
      if (ticks.size === 0 && this.#ticks.get(ms)?.ticks === ticks) {
        this.#ticks.get(ms)?.stop();
        this.#ticks.delete(ms);
      }
    };
  };

  /** Extends the lease (target, token) by `leaseMs` from the database's now, together with the others asked for in this turn. */
  renew(target: string, token: string, leaseMs: number): Promise<boolean> {
    return new Promise((settle, fail) => {
      let batch = this.#batches.get(leaseMs);
      if (!batch) {
        batch = [];
        this.#batches.set(leaseMs, batch);
        setImmediate(() => void this.#send(leaseMs));
      }
      batch.push({ target, token, settle, fail });
    });
  }

  /** Timers a stopped backend no longer needs (a lease still held then lapses, as when the process stops). */
  close(): void {
    for (const group of this.#ticks.values()) group.stop();
    this.#ticks.clear();
  }

  async #send(leaseMs: number): Promise<void> {
    const batch = this.#batches.get(leaseMs) ?? [];
    this.#batches.delete(leaseMs);
    try {
      // On the dedicated pool: never queued behind the runs of this replica's targets.
      const { rows } = await this.conn.control.query(
        `UPDATE ${this.s}.leases AS l SET expires_at = now() + $3 * interval '1 millisecond'
         FROM unnest($1::text[], $2::bigint[]) AS r(target, token)
         WHERE l.target = r.target AND l.token = r.token
         RETURNING l.target, l.token::text AS token`,
        [batch.map((p) => p.target), batch.map((p) => p.token), leaseMs],
      );
      // Rows that are not a target and its token renew nothing (./rows.ts): that lease is then lost, never assumed renewed.
      const renewed = new Set(readRows('table leases', rows, renewedRow, 'target').rows.map((r) => `${r.target}\u0000${r.token}`));
      for (const p of batch) p.settle(renewed.has(`${p.target}\u0000${p.token}`));
    } catch (err) {
      for (const p of batch) p.fail(err);
    }
  }
}
