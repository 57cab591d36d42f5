/**
 * Writer leases in PostgreSQL: one row per target with a fencing token from a sequence and an
 * expiry in the database's clock. Taking a lease succeeds only when the row is absent or
 * expired; every inventory write checks the token under a share lock (store.ts), so a deposed
 * holder's late write is refused, never interleaved. The holder renews in the background and
 * gives the lease up locally once a renewal has not succeeded for a whole lease time.
 */
import { randomUUID } from 'node:crypto';
import { BOGUS_EXPIRY_MS, type LeaseAttempt, type LeaseTiming } from '../backend.js';
import { holderState, thisHolder } from '../holder.js';
import { moment, RenewingLease, type Moment } from '../renewing-lease.js';
import { guarded, type PgConnection } from './connection.js';
import type { LeaseRenewals } from './renewals.js';

interface LeaseRow {
  token: string;
}

interface HolderRow {
  token: string;
  holder: string;
  pid: number;
  host: string;
  pidns: string | null;
  command: string;
  acquired_at: Date;
  expires_at: Date;
  remaining_ms: string;
}

export async function tryPgLease(
  conn: PgConnection,
  s: string,
  target: string,
  command: string,
  timing: LeaseTiming,
  renewals: LeaseRenewals,
): Promise<LeaseAttempt> {
  const me = thisHolder();
  const holder = `pid ${me.pid} on ${me.host} (${randomUUID().slice(0, 8)})`;
  // Taken before the statement is sent: the database counts the expiry from no earlier.
  let since: Moment = moment();
  const take = (condition: string, extra: unknown[]) =>
    guarded(conn, `taking the lease of target '${target}'`, () =>
      conn.pool.query<LeaseRow>(
        `INSERT INTO ${s}.leases AS l (target, token, holder, pid, host, pidns, command, acquired_at, expires_at)
         VALUES ($1, nextval('${s.replace(/'/g, "''")}.lease_tokens'), $2, $3, $4, $5, $6, now(), now() + $7 * interval '1 millisecond')
         ON CONFLICT (target) DO UPDATE SET token = EXCLUDED.token, holder = EXCLUDED.holder, pid = EXCLUDED.pid, host = EXCLUDED.host,
           pidns = EXCLUDED.pidns, command = EXCLUDED.command, acquired_at = EXCLUDED.acquired_at, expires_at = EXCLUDED.expires_at
         WHERE ${condition}
         RETURNING token::text AS token`,
        [target, holder, me.pid, me.host, me.pidns ?? null, command, timing.leaseMs, ...extra],
      ),
    );
  const granted = (await take('l.expires_at <= now()', [])).rows[0];
  if (granted) return { lease: new PgLease(conn, s, renewals, target, granted.token, timing, since) };
  const held = await guarded(conn, `reading the lease of target '${target}'`, () =>
    conn.pool.query<HolderRow>(
      `SELECT token::text AS token, holder, pid, host, pidns, command, acquired_at, expires_at, greatest(0, extract(epoch FROM expires_at - now()) * 1000)::bigint::text AS remaining_ms FROM ${s}.leases WHERE target = $1`,
      [target],
    ),
  );
  const h = held.rows[0];
  if (!h) return { heldBy: 'nobody (released meanwhile)', retryInMs: 50 };
  const remaining = Number(h.remaining_ms);
  const state = holderState({ pid: h.pid, host: h.host, pidns: h.pidns ?? undefined });
  // The database's clock counts every expiry, so one further ahead than any lease obsync grants was
  // never written by obsync (a hand edit): stale, unless its holder is a live process of this machine.
  const bogus = remaining > BOGUS_EXPIRY_MS;
  // A holder of this machine whose process is gone (a killed apply) is replaced at once; only that exact lease.
  if (state === 'gone' || (bogus && state !== 'here')) {
    since = moment();
    const replaced = (await take('l.token = $8::bigint', [h.token])).rows[0];
    if (replaced) return { lease: new PgLease(conn, s, renewals, target, replaced.token, timing, since) };
  }
  const who = `${h.command}, ${h.holder}, since ${h.acquired_at.toISOString()}, lease until ${h.expires_at.toISOString()}`;
  return {
    heldBy: bogus
      ? `${who} — further ahead than any lease obsync grants; if pid ${h.pid} on ${h.host} is not obsync, clear it: DELETE FROM ${s}.leases WHERE target = '${target.replace(/'/g, "''")}'`
      : who,
    holderCommand: h.command,
    retryInMs: Math.max(50, Math.min(timing.renewMs, remaining + 50)),
  };
}

class PgLease extends RenewingLease {
  #renewing = false;

  constructor(
    private readonly conn: PgConnection,
    private readonly s: string,
    private readonly renewals: LeaseRenewals,
    target: string,
    token: string,
    timing: LeaseTiming,
    since: Moment,
  ) {
    super(target, token, timing, since, renewals.every);
  }

  protected async giveUp(): Promise<void> {
    // A pooled connection broken by a server restart fails once; a fresh one is tried before giving up (the lease then expires).
    for (let attempt = 0; attempt < 3; attempt += 1) {
      try {
        await this.conn.control.query(`DELETE FROM ${this.s}.leases WHERE target = $1 AND token = $2`, [this.target, this.token]);
        return;
      } catch {
        await new Promise((r) => setTimeout(r, 100 * (attempt + 1)));
      }
    }
  }

  protected async renew(): Promise<void> {
    // Judged locally first: a renewal hanging on a dead network must not keep the lease alive.
    if (this.expired()) return this.lose('it could not be renewed before it expired');
    if (this.#renewing) return;
    this.#renewing = true;
    const sent = moment();
    try {
      // Together with every other lease of this process that renews in this turn (./renewals.ts).
      const renewed = await this.renewals.renew(this.target, this.token, this.timing.leaseMs);
      if (!renewed) this.lose('another obsync took it over');
      else this.renewed(sent);
    } catch {
      // The database is away (restart, network): the next tick tries again, until the lease would have run out.
    } finally {
      this.#renewing = false;
    }
  }
}
