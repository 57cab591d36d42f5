/**
 * One target's inventory in PostgreSQL. Every write is one statement (its own transaction),
 * committed before it resolves, and fenced: it only happens while the writer's lease row still
 * carries its token, under a share lock so a take-over waits for it and refuses it after.
 */
import { LeaseLostError, LockError, ObsyncError } from '../../core/errors.js';
import type { WriteFence } from '../../core/fence.js';
import {
  entryAddress,
  keptEntry,
  moveRefusal,
  movedEntry,
  Owners,
  soleOwners,
  type InventoryBackup,
  type InventoryEntry,
  type InventoryStore,
  type NoteName,
  type SkippedRow,
} from '../../core/inventory.js';
import type { Address } from '../../core/plan.js';
import type { Json } from '../../core/wire.js';
import { heldLease, type WriterLease } from '../backend.js';
import { hmacFingerprint } from '../fingerprint.js';
import { guarded, type PgConnection } from './connection.js';
import { ONE_OWNER_INDEX } from './migrations.js';
import { entryRow, readRows, sqlText } from './rows.js';

const FENCE = (s: string) =>
  `fence AS (SELECT 1 FROM ${s}.leases WHERE target = $1 AND token = $2::bigint AND expires_at > now() FOR SHARE)`;

export class PgInventory implements InventoryStore {
  #entries = new Map<Address, InventoryEntry>();
  #owners = new Owners();
  #skipped: SkippedRow[] = [];
  #loadedUnder: string | null | undefined = undefined;
  #closed = false;

  constructor(
    private readonly conn: PgConnection,
    private readonly s: string,
    readonly target: string,
    private readonly key: Buffer,
    private readonly lease: () => WriterLease | null,
    private readonly own: WriterLease | null,
  ) {}

  entries(): InventoryEntry[] {
    return [...this.#entries.values()];
  }

  get(address: Address): InventoryEntry | undefined {
    return this.#entries.get(address);
  }

  skipped(): readonly SkippedRow[] {
    return this.#skipped;
  }

  async put(entry: InventoryEntry): Promise<void> {
    const token = this.#token();
    const address = entryAddress(entry);
    const refusal = this.#owners.refusal(this.target, entry);
    if (refusal) throw refusal;
    const { rowCount } = await guarded(this.conn, `recording ${address}`, () =>
      this.conn.pool
        .query(
          `WITH ${FENCE(this.s)}
         INSERT INTO ${this.s}.entries (target, address, entry, since) SELECT $1, $3, $4::jsonb, $5::timestamptz FROM fence
         ON CONFLICT (target, address) DO UPDATE SET entry = EXCLUDED.entry, updated_at = now()`,
          [this.target, token, address, JSON.stringify(entry), entry.updatedAt],
        )
        .catch((err: unknown) => {
          throw this.#secondOwner(err, entry) ?? err;
        }),
    );
    if (rowCount === 0) throw this.#fenced();
    this.#owners.delete(this.#entries.get(address));
    this.#entries.set(address, keptEntry(entry));
    this.#owners.set(entry);
    this.#forgetSkipped(address);
  }

  async remove(address: Address): Promise<void> {
    const token = this.#token();
    const { rows } = await guarded(this.conn, `forgetting ${address}`, () =>
      this.conn.pool.query<{ ok: boolean }>(
        `WITH ${FENCE(this.s)},
         gone AS (DELETE FROM ${this.s}.entries WHERE target = $1 AND address = $3 AND EXISTS (SELECT 1 FROM fence) RETURNING 1)
         SELECT EXISTS (SELECT 1 FROM fence) AS ok, (SELECT count(*) FROM gone) AS n`,
        [this.target, token, address],
      ),
    );
    if (!rows[0]?.ok) throw this.#fenced();
    this.#owners.delete(this.#entries.get(address));
    this.#entries.delete(address);
    this.#forgetSkipped(address);
  }

  /** One statement: the row changes its address and entry, fenced, and only onto a free address. */
  async move(from: Address, to: Address, updatedAt: string): Promise<InventoryEntry> {
    const entry = this.#entries.get(from);
    const refusal = moveRefusal(this, from, to);
    if (refusal || !entry) throw refusal ?? new Error(`no entry ${from}`);
    const moved = movedEntry(entry, to, updatedAt);
    const token = this.#token();
    const { rows } = await guarded(this.conn, `moving ${from} to ${to}`, () =>
      this.conn.pool.query<{ ok: boolean; n: string }>(
        `WITH ${FENCE(this.s)},
         moved AS (UPDATE ${this.s}.entries SET address = $4, entry = $5::jsonb, updated_at = now()
                   WHERE target = $1 AND address = $3 AND EXISTS (SELECT 1 FROM fence)
                     AND NOT EXISTS (SELECT 1 FROM ${this.s}.entries WHERE target = $1 AND address = $4) RETURNING 1)
         SELECT EXISTS (SELECT 1 FROM fence) AS ok, (SELECT count(*) FROM moved)::text AS n`,
        [this.target, token, from, to, JSON.stringify(moved)],
      ),
    );
    if (!rows[0]?.ok) throw this.#fenced();
    if (rows[0].n !== '1')
      throw new LockError(
        `the state of target '${this.target}' changed under this obsync: ${from} could not be moved to ${to}`,
        'run again: the next run reads the state afresh',
      );
    const frozen = keptEntry(moved);
    this.#owners.delete(entry);
    this.#entries.delete(from);
    this.#entries.set(to, frozen);
    this.#owners.set(frozen);
    return frozen;
  }

  fingerprint(value: string): string {
    return hmacFingerprint(this.key, value);
  }

  async refresh(): Promise<void> {
    const lease = this.#usableLease();
    if (lease && lease.token === this.#loadedUnder) return;
    const read = await readEntries(this.conn, this.s, this.target);
    this.#entries = new Map(read.records.map((r) => [entryAddress(r.entry), r.entry]));
    this.#owners = new Owners(this.#entries.values());
    this.#skipped = read.skipped;
    this.#loadedUnder = lease?.token ?? null;
  }

  flush(): Promise<void> {
    return Promise.resolve();
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.own?.release();
  }

  async saveBackup(backup: InventoryBackup): Promise<string> {
    const token = this.#token();
    const { rows } = await guarded(this.conn, `keeping a backup of ${backup.address}`, () =>
      this.conn.pool.query<{ id: string }>(
        `WITH ${FENCE(this.s)}
         INSERT INTO ${this.s}.backups (target, address, object_id, backed_up_at, body) ` +
          'SELECT $1, $3, $4, $5::timestamptz, $6::jsonb FROM fence RETURNING id::text AS id',
        [this.target, token, backup.address, backup.id, backup.backedUpAt, JSON.stringify(backup.object ?? null)],
      ),
    );
    const id = rows[0]?.id;
    if (id === undefined) throw this.#fenced();
    return `${this.conn.location}: backups #${id}`;
  }

  async readNote(name: NoteName): Promise<unknown> {
    const { rows } = await guarded(this.conn, `reading the ${name} note of target '${this.target}'`, () =>
      this.conn.pool.query<{ body: unknown }>(`SELECT body FROM ${this.s}.notes WHERE target = $1 AND name = $2`, [this.target, name]),
    );
    return rows[0]?.body ?? null;
  }

  async writeNote(name: NoteName, value: Json): Promise<void> {
    const token = this.#token();
    const { rowCount } = await guarded(this.conn, `writing the ${name} note of target '${this.target}'`, () =>
      this.conn.pool.query(
        `WITH ${FENCE(this.s)}
         INSERT INTO ${this.s}.notes (target, name, body) SELECT $1, $3, $4::jsonb FROM fence
         ON CONFLICT (target, name) DO UPDATE SET body = EXCLUDED.body, updated_at = now()`,
        [this.target, token, name, JSON.stringify(value)],
      ),
    );
    if (rowCount === 0) throw this.#fenced();
  }

  #usableLease(): WriterLease | null {
    return heldLease(this.lease());
  }

  /** The write fence of this inventory's lease (also of the service writes of its run). */
  writeFence(): WriteFence {
    return { check: () => void this.#token() };
  }

  /** The token to write under: the lease the entries were read under, still held (the database checks it again). */
  #token(): string {
    const lease = this.lease();
    if (!lease)
      throw new ObsyncError(
        'INVENTORY_READONLY',
        `internal: the inventory of target '${this.target}' was opened read-only and cannot be written`,
      );
    lease.check();
    if (lease.token !== this.#loadedUnder)
      throw new LeaseLostError(
        `the writer lease on target '${this.target}' changed hands since the inventory was read`,
        'the next run re-reads it and starts over',
      );
    return lease.token;
  }

  #forgetSkipped(address: Address): void {
    if (this.#skipped.some((r) => r.key === address)) this.#skipped = this.#skipped.filter((r) => r.key !== address);
  }

  /** The database's own refusal of a second owner (another obsync recorded one since this one read, or a skipped row owns it). */
  #secondOwner(err: unknown, entry: InventoryEntry): ObsyncError | undefined {
    const e = err as { code?: string; constraint?: string };
    if (e.code !== '23505' || e.constraint !== ONE_OWNER_INDEX) return undefined;
    return new ObsyncError(
      'STATE_OWNER',
      `${entryAddress(entry)} cannot be recorded with id ${entry.id ?? ''} in the state of target '${this.target}': another row of ` +
        `${this.conn.location}, table entries, owns that object already`,
      {
        hint:
          `\`obsync state list --target ${this.target}\` shows its owner: one object has one address (\`obsync state mv\` ` +
          `renames, \`obsync state rm\` forgets)`,
      },
    );
  }

  #fenced(): LeaseLostError {
    return new LeaseLostError(
      `the write to target '${this.target}' was refused: this obsync no longer holds its writer lease`,
      'another obsync took the target over; this run stops and the leader carries on',
    );
  }
}

/**
 * A target's entries as read: every row parsed at the edge (./rows.ts); a row that is not an entry,
 * or one of two owners of one object, is left out and named, and nothing is planned at its address.
 */
export async function readEntries(
  conn: PgConnection,
  s: string,
  target: string,
): Promise<{ records: { entry: InventoryEntry; since: string }[]; skipped: SkippedRow[] }> {
  const { rows } = await guarded(conn, `reading the inventory of target '${target}'`, () =>
    conn.pool.query(`SELECT address, entry, since FROM ${s}.entries WHERE target = $1 ORDER BY address`, [target]),
  );
  const hint = (address: string) =>
    `fix the row, or forget it: \`obsync state rm --target ${target} ${address}\` (or DELETE FROM ${s}.entries WHERE target = ` +
    `${sqlText(target)} AND address = ${sqlText(address)}); obsync then adopts the object again by natural key`;
  const read = readRows(`table entries of target '${target}'`, rows, entryRow, 'address', hint);
  const since = new Map(read.rows.map((r) => [entryAddress(r.entry), r.since.toISOString()]));
  const owners = soleOwners(
    read.rows.map((r) => r.entry),
    `table entries of target '${target}'`,
  );
  return {
    records: owners.kept.map((e) => ({ entry: keptEntry(e), since: since.get(entryAddress(e)) ?? e.updatedAt })),
    skipped: [...read.skipped, ...owners.skipped],
  };
}
