/** The PostgreSQL state backend against a real server: migrations, durable fenced writes, leases, key, backups. */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LockError, ObsyncError } from '../../src/core/errors.js';
import type { InventoryEntry } from '../../src/core/inventory.js';
import { Secret } from '../../src/core/secret.js';
import type { WriterLease } from '../../src/inventory/backend.js';
import { LATEST_VERSION, migrate, MIGRATIONS } from '../../src/inventory/postgres/migrations.js';
import { openPostgresState, type PostgresStateBackend } from '../../src/inventory/postgres/backend.js';
import { LeaseRenewals } from '../../src/inventory/postgres/renewals.js';
import { startPostgres, type PgServer } from '../support/postgres.js';
import { until } from '../support/wait.js';

let server: PgServer;
const opened: PostgresStateBackend[] = [];

beforeAll(async () => {
  server = await startPostgres();
});
afterAll(async () => {
  for (const b of opened) await b.close();
  await server.close();
});

async function backend(schema: string, leaseSeconds = 30): Promise<PostgresStateBackend> {
  const b = await openPostgresState({
    url: new Secret(server.url),
    schema,
    timing: { leaseMs: leaseSeconds * 1000, renewMs: Math.floor((leaseSeconds * 1000) / 3) },
    prepare: true,
  });
  opened.push(b);
  return b;
}

const entry = (name: string, id: string | null, status: InventoryEntry['status'] = 'owned'): InventoryEntry => ({
  kind: 'Dashboard',
  name,
  id,
  status,
  naturalKey: `name:${name}`,
  updatedAt: '2026-01-01T00:00:00.000Z',
});

async function sql<T extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: server.url });
  await client.connect();
  try {
    return (await client.query<T>(text, values)).rows;
  } finally {
    await client.end();
  }
}

describe('postgres state backend', () => {
  it('creates its tables once with versioned migrations, also when two processes start at once', async () => {
    const schema = server.freshSchema();
    const [a, b] = await Promise.all([backend(schema), backend(schema)]);
    expect(a.location).toContain(`schema ${schema}`);
    const versions = await sql<{ version: number }>(`SELECT version FROM "${schema}".schema_migrations ORDER BY version`);
    expect(versions.map((v) => v.version)).toEqual(MIGRATIONS.map((m) => m.version));
    const pool = new pg.Pool({ connectionString: server.url });
    try {
      expect(await migrate(pool, schema)).toEqual([]);
      // A later version is applied on top, in order, once.
      const later = LATEST_VERSION + 1;
      const next = [...MIGRATIONS, { version: later, name: 'test', sql: (s: string) => `CREATE TABLE ${s}.extra (x int)` }];
      expect(await migrate(pool, schema, next)).toEqual([later]);
      expect(await migrate(pool, schema, next)).toEqual([]);
      // A schema written by a newer obsync is refused, not written.
      await expect(migrate(pool, schema)).rejects.toThrow(`version ${later}, newer than this obsync knows (${LATEST_VERSION})`);
    } finally {
      await pool.end();
    }
    expect(b.kind).toBe('postgres');
  });

  it('keeps entries, pending creates and their first-seen time for a fresh process', async () => {
    const schema = server.freshSchema();
    const first = await backend(schema);
    const inv = await first.openInventory('prod', { mode: 'write', command: 'apply' });
    await inv.put(entry('a', null, 'pending'));
    await inv.put({ ...entry('a', '1'), updatedAt: '2026-02-01T00:00:00.000Z' });
    await inv.put(entry('b', '2'));
    await inv.remove('Dashboard/b');
    // Killed without close: every write was already committed.
    const fresh = await backend(schema);
    const again = await fresh.openInventory('prod', { mode: 'read' });
    expect(again.entries()).toEqual([{ ...entry('a', '1'), updatedAt: '2026-02-01T00:00:00.000Z' }]);
    const { records } = await fresh.records('prod');
    expect(records.map((r) => [r.entry.name, r.since])).toEqual([['a', '2026-01-01T00:00:00.000Z']]);
    expect(await fresh.targets()).toEqual(['prod']);
    await inv.close();
  });

  it('shares one fingerprint key between processes, so a fresh runner sees an unchanged secret as unchanged', async () => {
    const schema = server.freshSchema();
    // Reading writes nothing, not even the key: the first writer makes it.
    const reader = await backend(schema);
    await (await reader.openInventory('prod', { mode: 'read' })).close();
    expect(await reader.fingerprintKey()).toBeNull();
    const a = await (await backend(schema)).openInventory('prod', { mode: 'write', command: 'apply' });
    const b = await (await backend(schema)).openInventory('staging', { mode: 'read' });
    expect(a.fingerprint('s3cret')).toBe(b.fingerprint('s3cret'));
    await a.close();
    const other = await (await backend(server.freshSchema())).openInventory('prod', { mode: 'write', command: 'apply' });
    expect(other.fingerprint('s3cret')).not.toBe(b.fingerprint('s3cret'));
    await other.close();
  });

  it('lets one writer per target in, others in parallel, and names the holder without the password', async () => {
    const b = await backend(server.freshSchema());
    const first = await b.openInventory('prod', { mode: 'write', command: 'apply' });
    const err = await b.openInventory('prod', { mode: 'write', command: 'apply' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LockError);
    expect(String((err as Error).message)).toMatch(/locked by another obsync \(apply, pid \d+ on .* lease until/);
    expect(String((err as Error).message)).not.toContain(server.password);
    const other = await b.openInventory('staging', { mode: 'write', command: 'apply' });
    await other.put(entry('x', '9'));
    await other.close();
    await first.close();
    const third = await b.openInventory('prod', { mode: 'write', command: 'apply' });
    await third.close();
  });

  it('refuses the late write of a holder whose lease was taken over (fencing)', async () => {
    const b = await backend(server.freshSchema());
    const schema = b.location.replace(/.*schema (\w+)\)$/, '$1');
    const old = await b.openInventory('prod', { mode: 'write', command: 'run' });
    await old.put(entry('a', '1'));
    // The old holder stalls past its expiry; a new one takes the target over.
    await sql(`UPDATE "${schema}".leases SET expires_at = now() - interval '1 second'`);
    const attempt = await b.tryLease('prod', 'run');
    expect('lease' in attempt).toBe(true);
    await expect(old.put(entry('late', '2'))).rejects.toBeInstanceOf(LockError);
    await expect(old.remove('Dashboard/a')).rejects.toBeInstanceOf(LockError);
    const rows = await sql<{ address: string }>(`SELECT address FROM "${schema}".entries`);
    expect(rows.map((r) => r.address)).toEqual(['Dashboard/a']);
    if ('lease' in attempt) await attempt.lease.release();
  });

  it(
    'moves an entry in one fenced statement, keeping its first-seen time; a deposed holder, an unknown source or an owned destination ' +
      'move nothing',
    async () => {
      const b = await backend(server.freshSchema());
      const schema = b.location.replace(/.*schema (\w+)\)$/, '$1');
      const inv = await b.openInventory('prod', { mode: 'write', command: 'apply' });
      await inv.put({ ...entry('old', '1'), tiles: { p99: 't1' } });
      await inv.put(entry('other', '2'));
      const moved = await inv.move('Dashboard/old', 'Dashboard/new', '2026-02-02T00:00:00.000Z');
      expect(moved).toMatchObject({ name: 'new', id: '1', tiles: { p99: 't1' } });
      expect((await b.records('prod')).records.map((r) => [`${r.entry.kind}/${r.entry.name}`, r.entry.id, r.since])).toEqual([
        ['Dashboard/new', '1', '2026-01-01T00:00:00.000Z'],
        ['Dashboard/other', '2', '2026-01-01T00:00:00.000Z'],
      ]);
      await expect(inv.move('Dashboard/nope', 'Dashboard/x', 'now')).rejects.toThrow(/Dashboard\/nope is not in the state/);
      await expect(inv.move('Dashboard/new', 'Dashboard/other', 'now')).rejects.toThrow(/Dashboard\/other is already in the state/);
      await sql(`UPDATE "${schema}".leases SET expires_at = now() - interval '1 second'`);
      const attempt = await b.tryLease('prod', 'apply');
      expect('lease' in attempt).toBe(true);
      await expect(inv.move('Dashboard/new', 'Dashboard/newer', 'now')).rejects.toBeInstanceOf(LockError);
      const rows = await sql<{ address: string }>(`SELECT address FROM "${schema}".entries ORDER BY address`);
      expect(rows.map((r) => r.address)).toEqual(['Dashboard/new', 'Dashboard/other']);
      if ('lease' in attempt) await attempt.lease.release();
    },
  );

  it('hands the lease of a holder that died to the next one within the lease time', async () => {
    const schema = server.freshSchema();
    const dying = await backend(schema, 2);
    const held = await dying.tryLease('prod', 'run');
    expect('lease' in held).toBe(true);
    await dying.close(); // no release: its renewals now fail, like a killed process's
    const heir = await backend(schema, 2);
    const blocked = await heir.tryLease('prod', 'run');
    expect(blocked).toMatchObject({ heldBy: expect.stringContaining('run') as unknown });
    let lease: WriterLease | undefined;
    const deadline = Date.now() + 10_000;
    while (!lease && Date.now() < deadline) {
      const attempt = await heir.tryLease('prod', 'run');
      if ('lease' in attempt) lease = attempt.lease;
      else await new Promise((r) => setTimeout(r, attempt.retryInMs));
    }
    expect(lease).toBeDefined();
    await lease?.release();
  });

  it('keeps backups in a table, only under the lease', async () => {
    const b = await backend(server.freshSchema());
    const inv = await b.openInventory('prod', { mode: 'write', command: 'apply' });
    const where = await inv.saveBackup({
      target: 'prod',
      address: 'Dashboard/a',
      kind: 'Dashboard',
      name: 'a',
      id: 'd1',
      backedUpAt: '2026-03-01T00:00:00.000Z',
      object: { name: 'A' },
    });
    expect(where).toMatch(/backups #\d+/);
    expect((await b.backups('prod')).backups).toEqual([
      {
        target: 'prod',
        address: 'Dashboard/a',
        kind: 'Dashboard',
        name: 'a',
        id: 'd1',
        backedUpAt: '2026-03-01T00:00:00.000Z',
        object: { name: 'A' },
      },
    ]);
    await inv.close();
    const reader = await b.openInventory('prod', { mode: 'read' });
    await expect(
      reader.saveBackup({ target: 'prod', address: 'Dashboard/a', kind: 'Dashboard', name: 'a', id: 'd1', backedUpAt: 'x', object: null }),
    ).rejects.toBeInstanceOf(ObsyncError);
  });

  it('keeps a note of a target for a fresh process, written only under the lease, and a deposed holder writes none', async () => {
    const b = await backend(server.freshSchema());
    const schema = b.location.replace(/.*schema (\w+)\)$/, '$1');
    const inv = await b.openInventory('prod', { mode: 'write', command: 'run' });
    expect(await inv.readNote('drift-history')).toBeNull();
    await inv.writeNote('drift-history', { version: 1, seen: [] });
    await inv.writeNote('drift-history', { version: 1, seen: ['again'] });
    const reader = await b.openInventory('prod', { mode: 'read' });
    expect(await reader.readNote('drift-history')).toEqual({ version: 1, seen: ['again'] });
    await expect(reader.writeNote('drift-history', {})).rejects.toMatchObject({ code: 'INVENTORY_READONLY' });
    expect(await (await b.openInventory('staging', { mode: 'read' })).readNote('drift-history')).toBeNull();
    // Taken over behind its back: the database refuses the late write.
    await sql(`UPDATE "${schema}".leases SET expires_at = now() - interval '1 second'`);
    const attempt = await b.tryLease('prod', 'run');
    expect('lease' in attempt).toBe(true);
    await expect(inv.writeNote('drift-history', { stale: true })).rejects.toBeInstanceOf(LockError);
    expect(await reader.readNote('drift-history')).toEqual({ version: 1, seen: ['again'] });
    if ('lease' in attempt) await attempt.lease.release();
  });

  it('fails at start with a clear error naming the URL without its password when nothing listens', async () => {
    const url = server.url.replace(`:${server.port}/`, ':1/');
    const err = await openPostgresState({
      url: new Secret(url),
      schema: 'obsync',
      timing: { leaseMs: 30_000, renewMs: 10_000 },
      prepare: true,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ObsyncError);
    const text = `${(err as ObsyncError).message} ${(err as ObsyncError).hint ?? ''}`;
    expect(text).toContain('cannot reach the PostgreSQL state at postgres://obsync@127.0.0.1:1/postgres');
    expect(text).not.toContain(server.password);
  });

  it('reports a wrong password without echoing either password', async () => {
    const url = server.url.replace(server.password, 'not-the-password');
    const err = await openPostgresState({
      url: new Secret(url),
      schema: 'obsync',
      timing: { leaseMs: 30_000, renewMs: 10_000 },
      prepare: true,
    }).catch((e: unknown) => e);
    expect((err as ObsyncError).code).toBe('STATE_AUTH');
    expect((err as Error).message).not.toContain('not-the-password');
    expect((err as Error).message).not.toContain(server.password);
  });

  it('leaves an unreadable row out and names it, instead of failing the whole inventory (issue 53)', async () => {
    const b = await backend(server.freshSchema());
    const schema = b.location.replace(/.*schema (\w+)\)$/, '$1');
    const inv = await b.openInventory('prod', { mode: 'write', command: 'apply' });
    await inv.put(entry('a', '1'));
    await inv.put(entry('b', '2'));
    await inv.close();
    await sql(`UPDATE "${schema}".entries SET entry = '{"kind":"Nope"}' WHERE address = 'Dashboard/a'`);
    const reader = await b.openInventory('prod', { mode: 'read' });
    expect(reader.entries().map((e) => e.name)).toEqual(['b']);
    expect(reader.skipped()).toEqual([
      expect.objectContaining({
        table: "table entries of target 'prod'",
        key: 'Dashboard/a',
        reason: expect.stringMatching(/^entry\.kind: /) as unknown,
      }),
    ]);
    expect((await b.records('prod')).skipped.map((r) => r.key)).toEqual(['Dashboard/a']);
  });

  it('renews its leases and heartbeats while every connection of the runs is waiting (issue 28)', async () => {
    const schema = server.freshSchema();
    const b = await backend(schema, 1.5);
    const held = await b.tryLease('prod', 'run');
    if (!('lease' in held)) throw new Error('no lease');
    const expiry = async () => (await sql<{ e: Date }>(`SELECT expires_at AS e FROM "${schema}".leases`))[0]?.e.getTime() ?? 0;
    const before = await expiry();
    // Many targets' runs at once, each waiting on the database: more queries than the runs' pool has connections.
    const blocker = new pg.Client({ connectionString: server.url });
    await blocker.connect();
    await blocker.query(`BEGIN; LOCK TABLE "${schema}".entries IN ACCESS EXCLUSIVE MODE`);
    const runs = Array.from({ length: 8 }, (_, i) => b.records(`t${i}`));
    try {
      const replicas = await b.replicas?.heartbeat({
        id: 'r1',
        host: 'h',
        pid: 1,
        version: 'v',
        leaseMs: 1500,
        targets: ['prod'],
        leads: ['prod'],
        disagreements: [],
      });
      expect(replicas?.replicas.map((r) => r.id)).toEqual(['r1']);
      // Renewed (its expiry moved on) before the lease could have run out, or lost: it must be the first.
      const outcome = await until('the lease renewed or lost', async () =>
        held.lease.lost.aborted ? 'lost' : (await expiry()) > before ? 'renewed' : undefined,
      );
      expect(outcome).toBe('renewed');
      expect(() => held.lease.check()).not.toThrow();
    } finally {
      await blocker.query('ROLLBACK');
      await blocker.end();
    }
    expect((await Promise.all(runs)).map((r) => r.records.length)).toEqual(Array(8).fill(0));
    await held.lease.release();
  });

  it('renews the leases of all its targets in one statement per tick, and loses only a lease another holder took (issue 28)', async () => {
    const schema = server.freshSchema();
    const b = await backend(schema, 1.5);
    const targets = Array.from({ length: 40 }, (_, i) => `t${i}`);
    const leases = await Promise.all(
      targets.map(async (t) => {
        const attempt = await b.tryLease(t, 'run');
        if (!('lease' in attempt)) throw new Error(`no lease on ${t}`);
        return attempt.lease;
      }),
    );
    const expiries = async () =>
      new Map(
        (await sql<{ target: string; e: Date }>(`SELECT target, expires_at AS e FROM "${schema}".leases`)).map((r) => [
          r.target,
          r.e.getTime(),
        ]),
      );
    const before = await expiries();
    // Another holder takes t7 over (a new token, as tryLease would give it).
    // Its expiry as of the take-over: a renewal of its old holder may have landed since `before` was read.
    const [taken] = await sql<{ e: Date }>(
      `UPDATE "${schema}".leases SET token = token + 1000 WHERE target = 't7' RETURNING expires_at AS e`,
    );
    await until('t7 lost', () => (leases[7]?.lost.aborted ? true : undefined));
    const after = await until('every other lease renewed', async () => {
      const now = await expiries();
      return targets.every((t) => t === 't7' || (now.get(t) ?? 0) > (before.get(t) ?? 0)) ? now : undefined;
    });
    expect(after.size).toBe(40);
    // The renewal of the deposed holder left the new holder's row as it was.
    expect(after.get('t7')).toBe(taken?.e.getTime());
    expect(String(leases[7]?.lost.reason)).toMatch(/another obsync took it over/);
    expect(leases.filter((l) => l.lost.aborted)).toHaveLength(1);
    for (const l of leases) if (!l.lost.aborted) expect(() => l.check()).not.toThrow();
    await Promise.all(leases.map((l) => l.release()));
  });

  it('sends the renewals asked for in one turn as one statement, telling each lease whether its row was still its own', async () => {
    const schema = server.freshSchema();
    await backend(schema); // creates the tables
    await sql(
      `INSERT INTO "${schema}".leases (target, token, holder, pid, host, command, acquired_at, expires_at)
       SELECT 't' || i, i, 'h', 1, 'host', 'run', now(), now() + interval '1 second' FROM generate_series(1, 30) AS i`,
    );
    const pool = new pg.Pool({ connectionString: server.url, max: 2 });
    const statements: string[] = [];
    const control = { query: (text: string, values: unknown[]) => (statements.push(text), pool.query(text, values)) };
    const renewals = new LeaseRenewals({ control: control as unknown as pg.Pool }, `"${schema}"`);
    try {
      const asked = Array.from({ length: 30 }, (_, i) => renewals.renew(`t${i + 1}`, String(i === 4 ? 999 : i + 1), 60_000));
      const answers = await Promise.all(asked);
      expect(statements).toHaveLength(1);
      expect(answers.filter((a) => !a)).toHaveLength(1);
      expect(answers[4]).toBe(false);
      const rows = await sql<{ target: string; left: number }>(
        `SELECT target, extract(epoch FROM expires_at - now())::float AS left FROM "${schema}".leases ORDER BY target`,
      );
      expect(rows.filter((r) => r.left > 50)).toHaveLength(29);
      expect(rows.find((r) => r.target === 't5')?.left).toBeLessThan(2);
      // The next turn's renewals are a statement of their own.
      await renewals.renew('t1', '1', 60_000);
      expect(statements).toHaveLength(2);
    } finally {
      renewals.close();
      await pool.end();
    }
  });
});
