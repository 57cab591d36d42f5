/**
 * The replica registry in PostgreSQL (issue 28): one row per `obsync run` process, renewed by a
 * heartbeat that extends its expiry by one lease in the database's clock. A row past its expiry
 * is a dead replica: the others stop counting it at their next heartbeat. Rows dead for an hour
 * are removed by the next heartbeat of anyone.
 */
import type { HeldLease, ReplicaHeartbeat, ReplicaRecord, ReplicaRegistry } from '../backend.js';
import { guarded, type PgConnection } from './connection.js';

interface Row {
  id: string;
  host: string;
  pid: number;
  version: string;
  lease_ms: number;
  targets: string[];
  leads: string[];
  disagreements: string[];
  listen: string | null;
  started_at: Date;
  heartbeat_at: Date;
  expires_at: Date;
  age_ms: string;
  live: boolean;
}

const COLUMNS = `id, host, pid, version, lease_ms, targets, leads, disagreements, listen, started_at, heartbeat_at, expires_at,
  greatest(0, extract(epoch FROM now() - heartbeat_at) * 1000)::bigint::text AS age_ms, expires_at > now() AS live`;

export class PgReplicaRegistry implements ReplicaRegistry {
  constructor(
    private readonly conn: PgConnection,
    private readonly s: string,
  ) {}

  /** On the dedicated pool (connection.ts): a heartbeat queued behind the runs would let this replica look dead. */
  async heartbeat(me: ReplicaHeartbeat): Promise<ReplicaRecord[]> {
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
      await this.conn.control.query(`DELETE FROM ${s}.replicas WHERE expires_at < now() - interval '1 hour'`);
      const { rows } = await this.conn.control.query<Row>(`SELECT ${COLUMNS} FROM ${s}.replicas WHERE expires_at > now() ORDER BY id`);
      return rows.map(record);
    });
  }

  async leave(id: string): Promise<void> {
    await guarded(this.conn, 'leaving the replica registry', () =>
      this.conn.control.query(`DELETE FROM ${this.s}.replicas WHERE id = $1`, [id]),
    );
  }

  async list(): Promise<ReplicaRecord[]> {
    const { rows } = await guarded(this.conn, 'reading the replica registry', () =>
      this.conn.pool.query<Row>(`SELECT ${COLUMNS} FROM ${this.s}.replicas ORDER BY id`),
    );
    return rows.map(record);
  }

  async leases(): Promise<HeldLease[]> {
    const { rows } = await guarded(this.conn, 'reading the writer leases', () =>
      this.conn.pool.query<{ target: string; host: string; pid: number; command: string; expires_at: Date }>(
        `SELECT target, host, pid, command, expires_at FROM ${this.s}.leases WHERE expires_at > now() ORDER BY target`,
      ),
    );
    return rows.map((r) => ({ target: r.target, host: r.host, pid: r.pid, command: r.command, expiresAt: r.expires_at.toISOString() }));
  }
}

function record(r: Row): ReplicaRecord {
  return {
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
    heartbeatAgeMs: Number(r.age_ms),
    live: r.live,
  };
}
