/**
 * The `postgres` state backend: the inventory, pending creates, fingerprint key, backups and
 * writer leases of every target in one schema of an existing database, so CI runners start
 * from the last run's state and daemon replicas share it. Tables are created and migrated on open.
 */
import pg from 'pg';
import { LockError, ObsyncError } from '../../core/errors.js';
import type { InventoryBackup, InventoryStore } from '../../core/inventory.js';
import type { Address, Kind } from '../../core/plan.js';
import type { Secret } from '../../core/secret.js';
import type {
  InventoryAccess,
  LeaseAttempt,
  LeaseTiming,
  StateBackend,
  StateBackups,
  StateRecord,
  StateRecords,
  WriterLease,
} from '../backend.js';
import { KEY_BYTES, newFingerprintKey } from '../fingerprint.js';
import { closeConnection, connectPool, guarded, runConnections, transaction, type PgConnection } from './connection.js';
import { leaseRefusal } from '../lease-refusal.js';
import { tryPgLease } from './lease.js';
import { emptyInventory } from '../empty-store.js';
import { migrate, readySchema } from './migrations.js';
import { PgInventory, readEntries } from './store.js';
import { PgReplicaRegistry } from './registry.js';
import { backupRow, keyRow, readRows, sqlText, targetRow } from './rows.js';
import { LeaseRenewals } from './renewals.js';

export interface PostgresStateOptions {
  url: Secret;
  schema: string;
  timing: LeaseTiming;
  /** Create and migrate the tables when needed (commands that write); otherwise they must be there. */
  prepare: boolean;
  /** How many targets' runs use the state at once (one connection each); one command's one run by default. */
  parallelRuns?: number;
}

export async function openPostgresState(opts: PostgresStateOptions): Promise<PostgresStateBackend> {
  const conn = connectPool(opts.url, opts.schema, runConnections(opts.parallelRuns ?? 1));
  let found: 'ready' | 'absent';
  try {
    if (opts.prepare)
      found = await guarded(conn, 'preparing the state schema', () =>
        migrate(conn.pool, opts.schema, undefined, conn.location).then(() => 'ready'),
      );
    else found = await guarded(conn, 'reading the state schema', () => readySchema(conn.pool, opts.schema, conn.location));
  } catch (err) {
    await closeConnection(conn);
    throw err;
  }
  return new PostgresStateBackend(conn, opts.schema, opts.timing, found === 'absent');
}

export class PostgresStateBackend implements StateBackend {
  readonly kind = 'postgres';
  readonly location: string;
  readonly notice: string | undefined;
  /** Absent while the state is not set up (a read-only command): there are no replicas to list. */
  readonly replicas: PgReplicaRegistry | undefined;
  readonly #s: string;
  readonly #renewals: LeaseRenewals;

  /** `absent`: obsync's tables are not there and this (read-only) command reads the state as empty. */
  constructor(
    private readonly conn: PgConnection,
    schema: string,
    readonly timing: LeaseTiming,
    private readonly absent = false,
  ) {
    this.location = conn.location;
    this.#s = pg.escapeIdentifier(schema);
    this.#renewals = new LeaseRenewals(conn, this.#s);
    this.replicas = absent ? undefined : new PgReplicaRegistry(conn, this.#s);
    this.notice = absent
      ? `the PostgreSQL state at ${conn.location} is not set up yet (schema '${schema}' holds no obsync tables): read as empty, and ` +
        `not created by this read-only command; the first \`obsync apply\` creates it (check state.schema / OBSYNC_STATE_SCHEMA if ` +
        `it should exist)`
      : undefined;
  }

  async openInventory(target: string, access: InventoryAccess): Promise<InventoryStore> {
    if (this.absent) {
      if (access.mode !== 'read') throw this.#notSetUp();
      return emptyInventory(target, this.location);
    }
    let own: WriterLease | null = null;
    if (access.mode === 'write') {
      const attempt = await this.tryLease(target, access.command);
      if (!('lease' in attempt)) {
        throw leaseRefusal(target, attempt, `in ${this.location}`);
      }
      own = attempt.lease;
    }
    try {
      // Reading writes nothing: before the first write made a key, any key compares as well (nothing is stored under one yet).
      const key = access.mode === 'read' ? ((await this.fingerprintKey()) ?? newFingerprintKey()) : await this.#keyOrCreate();
      const lease = own ? () => own : access.mode === 'elected' ? access.lease : () => null;
      const inventory = new PgInventory(this.conn, this.#s, target, key, lease, own);
      await inventory.refresh();
      return inventory;
    } catch (err) {
      await own?.release();
      throw err;
    }
  }

  tryLease(target: string, command: string): Promise<LeaseAttempt> {
    if (this.absent) return Promise.reject(this.#notSetUp());
    return tryPgLease(this.conn, this.#s, target, command, this.timing, this.#renewals);
  }

  async targets(): Promise<string[]> {
    if (this.absent) return [];
    const { rows } = await guarded(this.conn, 'listing targets', () =>
      this.conn.pool.query(`SELECT DISTINCT target FROM ${this.#s}.entries ORDER BY target`),
    );
    return readRows('table entries', rows, targetRow, 'target').rows.map((r) => r.target);
  }

  async records(target: string): Promise<StateRecords> {
    if (this.absent) return { records: [], skipped: [] };
    const read = await readEntries(this.conn, this.#s, target);
    return { records: read.records.map((r) => ({ target, ...r })), skipped: read.skipped };
  }

  async backups(target: string): Promise<StateBackups> {
    if (this.absent) return { backups: [], skipped: [] };
    const { rows } = await guarded(this.conn, `reading the backups of target '${target}'`, () =>
      this.conn.pool.query(
        `SELECT id::text AS id, address, object_id, backed_up_at, body FROM ${this.#s}.backups WHERE target = $1 ORDER BY backed_up_at, id`,
        [target],
      ),
    );
    const read = readRows(
      `table backups of target '${target}'`,
      rows,
      backupRow,
      'id',
      (id) => `DELETE FROM ${this.#s}.backups WHERE id = ${sqlText(id)}`,
    );
    const backups = read.rows.map((r): InventoryBackup => {
      const [kind = '', name = ''] = r.address.split('/');
      return {
        target,
        address: r.address as Address,
        kind: kind as Kind,
        name,
        id: r.object_id,
        backedUpAt: r.backed_up_at.toISOString(),
        object: r.body,
      };
    });
    return { backups, skipped: read.skipped };
  }

  async fingerprintKey(): Promise<Buffer | null> {
    if (this.absent) return null;
    const { rows } = await guarded(this.conn, 'reading the fingerprint key', () =>
      this.conn.pool.query(`SELECT fingerprint_key FROM ${this.#s}.meta`),
    );
    if (rows.length === 0) return null;
    return this.#validKey(rows);
  }

  async setFingerprintKey(key: Buffer): Promise<void> {
    if (this.absent) throw this.#notSetUp();
    await guarded(this.conn, 'writing the fingerprint key', () =>
      this.conn.pool.query(
        `INSERT INTO ${this.#s}.meta (fingerprint_key) VALUES ($1) ON CONFLICT (singleton) DO UPDATE SET fingerprint_key = ` +
          `EXCLUDED.fingerprint_key`,
        [key],
      ),
    );
  }

  async importTarget(lease: WriterLease, records: readonly StateRecord[], backups: readonly InventoryBackup[]): Promise<void> {
    if (this.absent) throw this.#notSetUp();
    const s = this.#s;
    await guarded(this.conn, `importing target '${lease.target}'`, () =>
      transaction(this.conn.pool, async (client) => {
        const fence = await client.query(
          `SELECT 1 FROM ${s}.leases WHERE target = $1 AND token = $2::bigint AND expires_at > now() FOR SHARE`,
          [lease.target, lease.token],
        );
        if (fence.rowCount === 0) throw new LockError(`lost the writer lease on target '${lease.target}'`);
        const { rows } = await client.query<{ n: string }>(`SELECT count(*)::text AS n FROM ${s}.entries WHERE target = $1`, [
          lease.target,
        ]);
        const existing = Number(rows[0]?.n ?? 0);
        if (existing > 0)
          throw new ObsyncError('STATE_NOT_EMPTY', `${this.location} already holds ${existing} entries for target '${lease.target}'`);
        for (const r of records) {
          await client.query(`INSERT INTO ${s}.entries (target, address, entry, since) VALUES ($1, $2, $3::jsonb, $4::timestamptz)`, [
            lease.target,
            `${r.entry.kind}/${r.entry.name}`,
            JSON.stringify(r.entry),
            r.since,
          ]);
        }
        for (const b of backups) {
          await client.query(
            `INSERT INTO ${s}.backups (target, address, object_id, backed_up_at, body) VALUES ($1, $2, $3, $4::timestamptz, $5::jsonb)`,
            [lease.target, b.address, b.id, b.backedUpAt, JSON.stringify(b.object ?? null)],
          );
        }
      }),
    );
  }

  async close(): Promise<void> {
    this.#renewals.close();
    await closeConnection(this.conn);
  }

  #notSetUp(): ObsyncError {
    return new ObsyncError(
      'INVARIANT',
      `internal error: a write to the PostgreSQL state at ${this.location}, opened read-only before it was set up (please report this)`,
    );
  }

  /** One key for the whole schema, created by the first obsync that needs it. */
  async #keyOrCreate(): Promise<Buffer> {
    const { rows } = await guarded(this.conn, 'reading the fingerprint key', () =>
      this.conn.pool.query(
        `WITH made AS (INSERT INTO ${this.#s}.meta (fingerprint_key) VALUES ($1) ON CONFLICT (singleton) DO NOTHING RETURNING ` +
          `fingerprint_key)
         SELECT fingerprint_key FROM made UNION ALL SELECT fingerprint_key FROM ${this.#s}.meta LIMIT 1`,
        [newFingerprintKey()],
      ),
    );
    return this.#validKey(rows);
  }

  /** The one key of the schema: a row that is not one fails every run that needs it (there is no other key to go on with). */
  #validKey(rows: readonly unknown[]): Buffer {
    const key = readRows('table meta', rows, keyRow, 'singleton').rows[0]?.fingerprint_key;
    if (!key || key.length < KEY_BYTES)
      throw new ObsyncError('INVENTORY_CORRUPT', `the fingerprint key in ${this.location} (table meta) is missing or damaged`, {
        hint: 'restore it from a copy; without it every write-only secret is seen as changed and sent again once',
      });
    return key;
  }
}
