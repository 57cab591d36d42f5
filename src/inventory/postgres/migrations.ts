/**
 * Versioned migrations of the state schema, applied automatically when the backend opens, in
 * one transaction under an advisory lock (two processes starting at once apply them once).
 * A migration is never edited once released: add the next version instead.
 */
import pg from 'pg';
import * as z from 'zod';
import { ObsyncError } from '../../core/errors.js';
import { transaction } from './connection.js';
import { doubleOwnerRow, sqlText, versionRow } from './rows.js';

export interface Migration {
  version: number;
  name: string;
  /** Refuses, with what to do, a state this migration cannot take as it is (run first, in the migration's transaction). */
  check?(client: pg.ClientBase, schema: string, location: string): Promise<void>;
  sql(schema: string): string;
}

/** One object, one owner (issue 53): no two entries of a target record one id of one kind. */
export const ONE_OWNER_INDEX = 'entries_one_owner';

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'inventory, leases, fingerprint key, backups',
    sql: (s) => `
      CREATE TABLE ${s}.meta (
        singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
        fingerprint_key bytea NOT NULL
      );
      CREATE TABLE ${s}.entries (
        target text NOT NULL,
        address text NOT NULL,
        entry jsonb NOT NULL,
        since timestamptz NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (target, address)
      );
      CREATE SEQUENCE ${s}.lease_tokens;
      CREATE TABLE ${s}.leases (
        target text PRIMARY KEY,
        token bigint NOT NULL,
        holder text NOT NULL,
        pid integer NOT NULL,
        host text NOT NULL,
        pidns text,
        command text NOT NULL,
        acquired_at timestamptz NOT NULL,
        expires_at timestamptz NOT NULL
      );
      CREATE TABLE ${s}.backups (
        id bigserial PRIMARY KEY,
        target text NOT NULL,
        address text NOT NULL,
        object_id text NOT NULL,
        backed_up_at timestamptz NOT NULL,
        body jsonb
      );
      CREATE INDEX backups_by_target ON ${s}.backups (target, backed_up_at);`,
  },
  {
    version: 2,
    name: 'replica registry (targets shared by replicas)',
    sql: (s) => `
      CREATE TABLE ${s}.replicas (
        id text PRIMARY KEY,
        host text NOT NULL,
        pid integer NOT NULL,
        version text NOT NULL,
        lease_ms integer NOT NULL,
        targets jsonb NOT NULL,
        leads jsonb NOT NULL DEFAULT '[]',
        disagreements jsonb NOT NULL DEFAULT '[]',
        listen text,
        started_at timestamptz NOT NULL DEFAULT now(),
        heartbeat_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL
      );`,
  },
  {
    version: 3,
    name: 'one owner per object (unique kind and id per target)',
    check: refuseDoubleOwners,
    sql: (s) => `
      CREATE UNIQUE INDEX ${ONE_OWNER_INDEX} ON ${s}.entries (target, (entry->>'kind'), (entry->>'id')) WHERE entry->>'id' IS NOT NULL;`,
  },
  {
    version: 4,
    name: "notes of a target (the daemon's drift history)",
    sql: (s) => `
      CREATE TABLE ${s}.notes (
        target text NOT NULL,
        name text NOT NULL,
        body jsonb NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (target, name)
      );`,
  },
];

/**
 * Objects two entries own already (written before the index, or by hand): the index cannot be
 * made, and which owner is right is the user's call. Named, with the statements that repair it.
 */
async function refuseDoubleOwners(client: pg.ClientBase, s: string, location: string): Promise<void> {
  // What the index counts: rows with a kind and an id (NULLs are distinct in a unique index).
  const { rows } = await client.query(
    `SELECT target, entry->>'kind' AS kind, entry->>'id' AS id, array_agg(address ORDER BY address) AS addresses
     FROM ${s}.entries WHERE entry->>'kind' IS NOT NULL AND entry->>'id' IS NOT NULL GROUP BY 1, 2, 3 HAVING count(*) > 1 ORDER BY 1, 2, 3`,
  );
  if (rows.length === 0) return;
  const doubles = z.array(doubleOwnerRow).parse(rows);
  const listed = doubles.map((d) => `target '${d.target}': ${d.kind} ${d.id} is owned by ${d.addresses.join(' and ')}`);
  const example = doubles[0];
  const keep = example?.addresses[0] ?? '';
  throw new ObsyncError(
    'STATE_DOUBLE_OWNER',
    `the PostgreSQL state at ${location} records ${doubles.length} object(s) under two addresses at once, which this obsync no ` +
      `longer accepts (an object would flip between two manifests): ` +
      `${listed.slice(0, 10).join('; ')}${listed.length > 10 ? `; and ${listed.length - 10} more` : ''}. Nothing was changed`,
    {
      hint:
        `for each, keep the address a manifest declares and delete the other rows, e.g. DELETE FROM ${s}.entries WHERE target = ` +
        `${sqlText(example?.target ?? '')} AND address IN (${(example?.addresses ?? [])
          .filter((a) => a !== keep)
          .map(sqlText)
          .join(', ')}); then run again`,
    },
  );
}

/** The version a schema is at (0: none applied yet). */
function schemaVersion(rows: readonly unknown[]): number {
  return z.array(versionRow).parse(rows)[0]?.v ?? 0;
}

export const LATEST_VERSION = Math.max(...MIGRATIONS.map((m) => m.version));

/** Brings the schema to the latest version; refuses a schema written by a newer obsync. Returns the versions applied. */
export async function migrate(
  pool: pg.Pool,
  schema: string,
  migrations: readonly Migration[] = MIGRATIONS,
  location = `schema ${schema}`,
): Promise<number[]> {
  const s = pg.escapeIdentifier(schema);
  const latest = Math.max(...migrations.map((m) => m.version));
  return transaction(pool, async (client) => {
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`obsync-migrate:${schema}`]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${s}`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${s}.schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz ` +
        `NOT NULL DEFAULT now())`,
    );
    const current = schemaVersion((await client.query(`SELECT max(version) AS v FROM ${s}.schema_migrations`)).rows);
    if (current > latest) {
      throw new ObsyncError(
        'STATE_TOO_NEW',
        `the state schema '${schema}' is at version ${current}, newer than this obsync knows (${latest})`,
        { hint: 'upgrade obsync: an older version must not write a newer state' },
      );
    }
    const applied: number[] = [];
    for (const m of [...migrations].sort((a, b) => a.version - b.version)) {
      if (m.version <= current) continue;
      await m.check?.(client, s, location);
      await client.query(m.sql(s));
      await client.query(`INSERT INTO ${s}.schema_migrations (version, name) VALUES ($1, $2)`, [m.version, m.name]);
      applied.push(m.version);
    }
    return applied;
  });
}

/**
 * Read-only commands (plan, state list) never create or migrate the schema. `absent`: obsync's
 * tables are not there (read as an empty state); a schema of another version is an error saying
 * what to run.
 */
export async function readySchema(pool: pg.Pool, schema: string, location: string): Promise<'ready' | 'absent'> {
  const s = pg.escapeIdentifier(schema);
  const { rows } = await pool.query<{ t: string | null }>('SELECT to_regclass($1)::text AS t', [`${s}.schema_migrations`]);
  if (!rows[0]?.t) return 'absent';
  const current = schemaVersion((await pool.query(`SELECT max(version) AS v FROM ${s}.schema_migrations`)).rows);
  if (current === LATEST_VERSION) return 'ready';
  if (current > LATEST_VERSION) {
    throw new ObsyncError(
      'STATE_TOO_NEW',
      `the state schema '${schema}' is at version ${current}, newer than this obsync knows (${LATEST_VERSION})`,
      {
        hint: 'upgrade obsync: an older version must not write a newer state',
      },
    );
  }
  throw new ObsyncError(
    'STATE_OUTDATED',
    `the PostgreSQL state at ${location} is at version ${current}; this obsync reads version ${LATEST_VERSION}`,
    {
      hint: 'read-only commands never migrate it: run `obsync apply` once (it migrates the tables), then plan again',
    },
  );
}
