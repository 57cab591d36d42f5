/**
 * Writer leases in PostgreSQL: one row per target with a fencing token from a sequence and an
 * expiry in the database's clock. Taking a lease succeeds only when the row is absent or
 * expired; every inventory write checks the token under a share lock (store.ts), so a deposed
 * holder's late write is refused, never interleaved. The holder renews in the background and
 * gives the lease up locally once a renewal has not succeeded for a whole lease time.
 */
import { randomUUID } from 'node:crypto';
import type { LeaseAttempt, LeaseTiming } from '../backend.js';
import { beyondAnyLease } from '../liveness.js';
import { holderState, thisHolder } from '../holder.js';
import { moment, RenewingLease, type Moment } from '../renewing-lease.js';
import { guarded, type PgConnection } from './connection.js';
import { holderRow, issueText, keyOf, msFromNow, readRows, sqlText, tokenRow } from './rows.js';
import type { LeaseRenewals } from './renewals.js';

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
      conn.pool.query(
        `INSERT INTO ${s}.leases AS l (target, token, holder, pid, host, pidns, command, acquired_at, expires_at)
         VALUES ($1, nextval('${s.replace(/'/g, "''")}.lease_tokens'), $2, $3, $4, $5, $6, now(), now() + $7 * interval '1 millisecond')
         ON CONFLICT (target) DO UPDATE SET token = EXCLUDED.token, holder = EXCLUDED.holder, pid = EXCLUDED.pid, host = EXCLUDED.host,
           pidns = EXCLUDED.pidns, command = EXCLUDED.command, acquired_at = EXCLUDED.acquired_at, expires_at = EXCLUDED.expires_at
         WHERE ${condition}
         RETURNING token::text AS token`,
        [target, holder, me.pid, me.host, me.pidns ?? null, command, timing.leaseMs, ...extra],
      ),
    );
  const granted = tokenOf((await take('l.expires_at <= now()', [])).rows);
  if (granted) return { lease: new PgLease(conn, s, renewals, target, granted, timing, since) };
  const held = await guarded(conn, `reading the lease of target '${target}'`, () =>
    conn.pool.query(
      `SELECT token::text AS token, target, holder, pid, host, pidns, command, acquired_at, expires_at, ${msFromNow('expires_at')} ` +
        `AS expires_in_ms FROM ${s}.leases WHERE target = $1`,
      [target],
    ),
  );
  if (held.rows.length === 0) return { heldBy: 'nobody (released meanwhile)', retryInMs: 50 };
  const read = readRows('table leases', held.rows, holderRow, 'target');
  const h = read.rows[0];
  if (!h) {
    // A row no obsync wrote (hand-edited, damaged): skipped like any unreadable row, so the lease is taken over (by its token only).
    const token = keyOf(held.rows[0], 'token');
    since = moment();
    const replaced = /^\d+$/.test(token) ? tokenOf((await take('l.token = $8::bigint', [token])).rows) : undefined;
    if (replaced) return { lease: new PgLease(conn, s, renewals, target, replaced, timing, since) };
    return {
      heldBy:
        `an unreadable lease row (${read.skipped[0]?.reason ?? 'not readable'}); clear it: DELETE FROM ${s}.leases WHERE ` +
        `target = ${sqlText(target)}`,
      retryInMs: timing.renewMs,
    };
  }
  const remaining = Math.max(0, h.expires_in_ms);
  const state = holderState({ pid: h.pid, host: h.host, pidns: h.pidns ?? undefined });
  // The database's clock counts every expiry, so one further ahead than any lease obsync grants was
  // never written by obsync (a hand edit, liveness.ts): stale, unless its holder is a live process of this machine.
  const bogus = beyondAnyLease(remaining);
  // A holder of this machine whose process is gone (a killed apply) is replaced at once; only that exact lease.
  if (state === 'gone' || (bogus && state !== 'here')) {
    since = moment();
    const replaced = tokenOf((await take('l.token = $8::bigint', [h.token])).rows);
    if (replaced) return { lease: new PgLease(conn, s, renewals, target, replaced, timing, since) };
  }
  const who = `${h.command}, ${h.holder}, since ${h.acquired_at.toISOString()}, lease until ${h.expires_at.toISOString()}`;
  return {
    heldBy: bogus
      ? `${who} — further ahead than any lease obsync grants; if pid ${h.pid} on ${h.host} is not obsync, clear it: DELETE FROM ` +
        `${s}.leases WHERE target = ${sqlText(target)}`
      : who,
    holderCommand: h.command,
    retryInMs: Math.max(50, Math.min(timing.renewMs, remaining + 50)),
  };
}

/** The token a take returned (none: the lease was not granted). */
function tokenOf(rows: readonly unknown[]): string | undefined {
  const [first] = rows;
  if (first === undefined) return undefined;
  const parsed = tokenRow.safeParse(first);
  if (!parsed.success) throw new Error(`the lease token the database returned is not a number: ${issueText(parsed.error.issues[0])}`);
  return parsed.data.token;
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
