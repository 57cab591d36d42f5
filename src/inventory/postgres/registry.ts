/**
 * The replica registry in PostgreSQL (issue 28): one row per `obsync run` process, renewed by a
 * heartbeat in the database's clock. A replica is live for one lease after its last heartbeat
 * (../liveness.ts): the others stop counting it at their next heartbeat. Rows dead for an hour
 * are removed by the next heartbeat of anyone. A row that is not readable, or claims a lease no
 * obsync grants, is skipped and named (./rows.ts): it never stops the others.
 */
import type { SkippedRow } from '../../core/inventory.js';
import type { HeldLease, LeasesRead, RegistryRead, ReplicaHeartbeat, ReplicaRecord, ReplicaRegistry } from '../backend.js';
import { beyondAnyLease, replicaLiveness } from '../liveness.js';
import { guarded, type PgConnection } from './connection.js';
import { leaseRow, msFromNow, readRows, replicaRow, sqlText } from './rows.js';

const COLUMNS = `id, host, pid, version, lease_ms, targets, leads, disagreements, listen, started_at, heartbeat_at, expires_at,
  ${msFromNow('heartbeat_at')} AS heartbeat_in_ms, ${msFromNow('expires_at')} AS expires_in_ms`;

export class PgReplicaRegistry implements ReplicaRegistry {
  constructor(
    private readonly conn: PgConnection,
    private readonly s: string,
  ) {}

  /** On the dedicated pool (connection.ts): a heartbeat queued behind the runs would let this replica look dead. */
  async heartbeat(me: ReplicaHeartbeat): Promise<RegistryRead> {
    const s = this.s;
    return guarded(this.conn, 'renewing this replica in the registry', async () => {
      await this.conn.control.query(
        `INSERT INTO ${s}.replicas AS r (id, host, pid, version, lease_ms, targets, leads, disagreements, listen, expires_at)
         VALUES ($1, $2, $3, $4, $5::integer, $6::jsonb, $7::jsonb, $8::jsonb, $9, now() + $5::integer * interval '1 millisecond')
         ON CONFLICT (id) DO UPDATE SET version = EXCLUDED.version, lease_ms = EXCLUDED.lease_ms, targets = EXCLUDED.targets,
           leads = EXCLUDED.leads, disagreements = EXCLUDED.disagreements, listen = EXCLUDED.listen,
           heartbeat_at = now(), expires_at = EXCLUDED.expires_at`,
        [
          me.id,
          me.host,
          me.pid,
          me.version,
          me.leaseMs,
          JSON.stringify(me.targets),
          JSON.stringify(me.leads),
          JSON.stringify(me.disagreements),
          me.listen ?? null,
        ],
      );
      // Dead for an hour by its heartbeat, whatever expiry it claims.
      await this.conn.control.query(`DELETE FROM ${s}.replicas WHERE heartbeat_at < now() - interval '1 hour'`);
      const { rows } = await this.conn.control.query(`SELECT ${COLUMNS} FROM ${s}.replicas ORDER BY id`);
      const read = this.#replicas(rows);
      return { replicas: read.replicas.filter((r) => r.live), skipped: read.skipped };
    });
  }

  async leave(id: string): Promise<void> {
    await guarded(this.conn, 'leaving the replica registry', () =>
      this.conn.control.query(`DELETE FROM ${this.s}.replicas WHERE id = $1`, [id]),
    );
  }

  async list(): Promise<RegistryRead> {
    const { rows } = await guarded(this.conn, 'reading the replica registry', () =>
      this.conn.pool.query(`SELECT ${COLUMNS} FROM ${this.s}.replicas ORDER BY id`),
    );
    return this.#replicas(rows);
  }

  async leases(): Promise<LeasesRead> {
    const { rows } = await guarded(this.conn, 'reading the writer leases', () =>
      this.conn.pool.query(
        `SELECT target, host, pid, command, expires_at, ${msFromNow('expires_at')} AS expires_in_ms FROM ${this.s}.leases ORDER BY target`,
      ),
    );
    const read = readRows(
      'table leases',
      rows,
      leaseRow,
      'target',
      (t) => `the next obsync to compete for target '${t}' replaces it, or: ${this.#delete('leases', 'target', t)}`,
    );
    const leases: HeldLease[] = [];
    const skipped: SkippedRow[] = [...read.skipped];
    for (const r of read.rows) {
      if (beyondAnyLease(r.expires_in_ms)) {
        skipped.push({
          table: 'table leases',
          key: r.target,
          reason: `its expiry lies ${Math.round(r.expires_in_ms / 1000)} s ahead, further than any lease obsync grants`,
          hint: `unless pid ${r.pid} on ${r.host} is a running obsync, ${this.#delete('leases', 'target', r.target)}`,
        });
      } else if (r.expires_in_ms > 0) {
        leases.push({ target: r.target, host: r.host, pid: r.pid, command: r.command, expiresAt: r.expires_at.toISOString() });
      }
    }
    return { leases, skipped };
  }

  /** Every readable replica with its liveness; unreadable rows and rows claiming more than any lease, skipped. */
  #replicas(rows: readonly unknown[]): RegistryRead {
    const hint = (id: string) =>
      `a running replica writes its row again at its next heartbeat; otherwise ${this.#delete('replicas', 'id', id)}`;
    const read = readRows('table replicas', rows, replicaRow, 'id', hint);
    const replicas: ReplicaRecord[] = [];
    const skipped = [...read.skipped];
    for (const r of read.rows) {
      const heartbeatAgeMs = -r.heartbeat_in_ms;
      const liveness = replicaLiveness({ leaseMs: r.lease_ms, heartbeatAgeMs, expiresInMs: r.expires_in_ms });
      if ('beyond' in liveness) {
        skipped.push({ table: 'table replicas', key: r.id, reason: liveness.beyond, hint: hint(r.id) });
        continue;
      }
      replicas.push({
        id: r.id,
        host: r.host,
        pid: r.pid,
        version: r.version,
        leaseMs: r.lease_ms,
        targets: r.targets,
        leads: r.leads,
        disagreements: r.disagreements,
        listen: r.listen ?? undefined,
        startedAt: r.started_at.toISOString(),
        heartbeatAt: r.heartbeat_at.toISOString(),
        expiresAt: r.expires_at.toISOString(),
        heartbeatAgeMs: Math.max(0, heartbeatAgeMs),
        live: liveness.live,
      });
    }
    return { replicas, skipped };
  }

  #delete(table: string, column: string, key: string): string {
    return `DELETE FROM ${this.s}.${table} WHERE ${column} = ${sqlText(key)}`;
  }
}
