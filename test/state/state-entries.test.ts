/**
 * Issue 53 items 4 and 7, against a real PostgreSQL: inventory and backup rows are parsed at the
 * edge — random malformed rows never fail a read, each is kept or left out and named; the object a
 * skipped row names is not planned (never created again) while the rest of the target is, and
 * prune is off; `state list` names it and `state rm` repairs it. One object has one owner: the
 * database refuses a second, and the migration that adds the rule names existing double owners.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { entryAddress, type InventoryEntry } from '../../src/core/inventory.js';
import { Secret } from '../../src/core/secret.js';
import { migrate, MIGRATIONS } from '../../src/inventory/postgres/migrations.js';
import { openPostgresState, type PostgresStateBackend } from '../../src/inventory/postgres/backend.js';
import { inventoryEntrySchema } from '../../src/inventory/schema.js';
import { fakeIO, runInProcess } from '../support/cli-io.js';
import { startPostgres, type PgServer } from '../support/postgres.js';
import { dashboardYaml, TrustHarness } from '../support/reconcile.js';

let server: PgServer;
let db: pg.Client;
const opened: PostgresStateBackend[] = [];
beforeAll(async () => {
  server = await startPostgres();
  db = new pg.Client({ connectionString: server.url });
  await db.connect();
});
afterAll(async () => {
  for (const b of opened) await b.close();
  await db.end();
  await server.close();
});

async function backend(schema = server.freshSchema('entries')): Promise<{ b: PostgresStateBackend; s: string; schema: string }> {
  const b = await openPostgresState({ url: new Secret(server.url), schema, timing: { leaseMs: 30_000, renewMs: 10_000 }, prepare: true });
  opened.push(b);
  return { b, s: `"${schema}"`, schema };
}

const entry = (name: string, id: string | null): InventoryEntry => ({
  kind: 'Dashboard',
  name,
  id,
  status: id === null ? 'pending' : 'owned',
  naturalKey: `name:${name}`,
  updatedAt: '2026-01-01T00:00:00.000Z',
});
const noNul = (v: unknown) => !JSON.stringify(v).includes('\\u0000');
const NAME = fc.constantFrom('a', 'b', 'c', 'd', 'e');
const entryJson = fc.oneof(
  fc.tuple(NAME, fc.option(fc.constantFrom('1', '2', '3'), { nil: null })).map(([n, id]) => entry(n, id)),
  fc.tuple(NAME, fc.jsonValue().filter(noNul)).map(([n, id]) => ({ ...entry(n, '1'), id })),
  fc.tuple(NAME, fc.constantFrom('kind', 'status', 'tiles', 'updatedAt')).map(([n, key]) => ({ ...entry(n, '9'), [key]: 5 })),
  fc.jsonValue().filter(noNul),
);

describe('inventory and backup rows (issue 53)', () => {
  it(
    'random rows never fail a read: each is an entry, or left out and named with its repair; the database takes one owner per object ' +
      '(property)',
    async () => {
      const { b, s } = await backend();
      await fc.assert(
        fc.asyncProperty(
          fc.array(
            fc.tuple(
              fc.oneof(
                NAME.map((n) => `Dashboard/${n}`),
                fc.string({ maxLength: 6 }),
              ),
              entryJson,
            ),
            { maxLength: 8 },
          ),
          async (rows) => {
            await db.query(`DELETE FROM ${s}.entries`);
            const stored = new Map<string, unknown>();
            for (const [address, json] of rows) {
              const inserted = await db
                .query(
                  `INSERT INTO ${s}.entries (target, address, entry, since) VALUES ('prod', $1, $2::jsonb, now()) ON CONFLICT DO NOTHING`,
                  [address.replaceAll('\u0000', ''), JSON.stringify(json)],
                )
                .then((r) => r.rowCount === 1)
                .catch((err: { code?: string; constraint?: string }) => {
                  // The database's rule: no second row owning one (kind, id) of a target.
                  expect([err.code, err.constraint]).toEqual(['23505', 'entries_one_owner']);
                  return false;
                });
              if (inserted) stored.set(address.replaceAll('\u0000', ''), json);
            }
            const inv = await b.openInventory('prod', { mode: 'read' });
            const kept = inv.entries().map(entryAddress);
            const skipped = inv.skipped().map((r) => r.key);
            expect([...kept, ...skipped].sort()).toEqual([...stored.keys()].sort());
            for (const [address, json] of stored) {
              const good = inventoryEntrySchema.safeParse(json);
              expect(kept.includes(address as never), `${address} ${JSON.stringify(json)}`).toBe(
                good.success && entryAddress(good.data) === address,
              );
            }
            for (const r of inv.skipped()) expect(r.hint).toContain(`obsync state rm --target prod ${r.key}`);
            // What the database took holds no object twice.
            const owned = [...stored.values()].flatMap((json) => {
              const e = inventoryEntrySchema.safeParse(json);
              return e.success && e.data.id !== null ? [`${e.data.kind}/${e.data.id}`] : [];
            });
            expect(new Set(owned).size).toBe(owned.length);
            const records = await b.records('prod');
            expect(records.records.map((r) => entryAddress(r.entry))).toEqual(kept);
          },
        ),
        { numRuns: 60 },
      );
    },
  );

  it('random backup rows never fail a read: kept or named (property)', async () => {
    const { b, s } = await backend();
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.tuple(
            fc.constantFrom('Dashboard/a', 'nope', 'A/b/c'),
            fc.jsonValue().filter(noNul),
            fc.constantFrom('now()', "'infinity'", "'-infinity'"),
          ),
          { maxLength: 5 },
        ),
        async (rows) => {
          await db.query(`DELETE FROM ${s}.backups`);
          for (const [address, body, at] of rows)
            await db.query(
              `INSERT INTO ${s}.backups (target, address, object_id, backed_up_at, body) VALUES ('prod', $1, 'x', ${at}, $2::jsonb)`,
              [address, JSON.stringify(body)],
            );
          const { backups, skipped } = await b.backups('prod');
          expect(backups.length + skipped.length).toBe(rows.length);
          expect(backups.length).toBe(rows.filter(([address, , at]) => address === 'Dashboard/a' && at === 'now()').length);
        },
      ),
      { numRuns: 30 },
    );
  });

  it(
    'an object whose row is skipped is not planned (nor created again), the rest is, prune is off; state list names it, state rm ' +
      'repairs it',
    async () => {
      const h = await TrustHarness.start();
      const { b, s, schema } = await backend();
      const dir = mkdtempSync(join(tmpdir(), 'obsync-rows-cli-'));
      try {
        await h.inventory.close();
        const open = async () => (h.inventory = await b.openInventory('sb', { mode: 'write', command: 'apply' }));
        await open();
        h.manifests({ 'd.yaml': `${dashboardYaml('a', 'Row A', [{ key: 'p' }])}---\n${dashboardYaml('b', 'Row B', [{ key: 'p' }])}` });
        expect((await h.run()).apply?.summary.failed).toBe(0);
        await h.inventory.close();
        await db.query(`UPDATE ${s}.entries SET entry = jsonb_set(entry, '{tiles}', '"not a map"') WHERE address = 'Dashboard/a'`);
        await open();
        h.manifests({
          'd.yaml': `${dashboardYaml('a', 'Row A', [{ key: 'p' }, { key: 'q' }])}---\n${dashboardYaml('c', 'Row C', [{ key: 'p' }])}`,
        });
        const report = await h.run({ prune: true });
        const errors = report.plan.diagnostics.filter((d) => d.severity === 'error');
        expect(errors.map((d) => [d.address, d.code])).toEqual([['Dashboard/a', 'state-row-skipped']]);
        expect(errors[0]?.message).toContain(
          'Dashboard/a: not planned: the state row Dashboard/a (table entries ' +
            "of target 'sb') cannot be taken and is left out: entry.tiles:",
        );
        expect(report.plan.prune.refused).toEqual(['some objects could not be planned (see the errors)']);
        expect((await h.dashboards()).map((d) => d.name).sort()).toEqual(['Row A', 'Row B', 'Row C']);
        await h.inventory.close();
        // The state commands name the row and repair it.
        writeFileSync(
          join(dir, 'obsync.yaml'),
          `apiVersion: obsync/v1\nkind: Config\nstate: {backend: postgres, url: "\${env:OBSYNC_STATE_URL}", schema: ` +
            `${schema}}\ntargets:\n  - {name: sb, variant: self-hosted, baseUrl: "${h.sandbox.url}"}\n`,
        );
        const env = { OBSYNC_STATE_URL: server.url };
        const list = fakeIO(dir, { env });
        expect(await runInProcess(list.io, ['state', 'list'])).toBe(0);
        expect(list.err()).toContain(
          "warning: the state row Dashboard/a (table entries of target 'sb') cannot be taken and is left out: entry.tiles:",
        );
        expect(list.out()).toMatch(/Dashboard +b /);
        const show = fakeIO(dir, { env });
        expect(await runInProcess(show.io, ['state', 'show', 'Dashboard/a'])).toBe(1);
        expect(show.err()).toContain('error: the state row Dashboard/a');
        const rm = fakeIO(dir, { env });
        expect(await runInProcess(rm.io, ['state', 'rm', 'Dashboard/a'])).toBe(0);
        expect(rm.out()).toContain("Forgot Dashboard/a in target 'sb' (a row left out as not readable)");
        await open();
        const again = await h.run();
        expect(again.plan.errored).toBe(false);
        expect(again.plan.steps.find((st) => st.address === 'Dashboard/a')?.action).toBe('update');
        expect((await h.dashboards()).filter((d) => d.name === 'Row A')).toHaveLength(1);
      } finally {
        await h.close();
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});

describe('one object, one owner in PostgreSQL (issue 53)', () => {
  it('a write of a second owner is refused, by obsync and by the database (a skipped row owning it)', async () => {
    const { b, s } = await backend();
    const inv = await b.openInventory('prod', { mode: 'write', command: 'apply' });
    await inv.put(entry('a', '1'));
    await expect(inv.put(entry('b', '1'))).rejects.toMatchObject({
      code: 'STATE_OWNER',
      message: expect.stringContaining('Dashboard/a owns that object already') as unknown,
    });
    await inv.close();
    await db.query(`INSERT INTO ${s}.entries (target, address, entry, since) VALUES ('prod', 'Dashboard/z', $1::jsonb, now())`, [
      JSON.stringify({ ...entry('z', '7'), status: 'odd' }),
    ]);
    const again = await b.openInventory('prod', { mode: 'write', command: 'apply' });
    expect(again.skipped().map((r) => r.key)).toEqual(['Dashboard/z']);
    await expect(again.put(entry('c', '7'))).rejects.toMatchObject({
      code: 'STATE_OWNER',
      message: expect.stringContaining('another row of') as unknown,
    });
    await again.close();
  });

  it(
    'the migration to one owner names the objects owned twice and ' + 'what to delete, changing nothing, then goes through once repaired',
    async () => {
      const schema = server.freshSchema('dup');
      const pool = new pg.Pool({ connectionString: server.url });
      try {
        await migrate(pool, schema, MIGRATIONS.slice(0, 2));
        for (const [address, e] of [
          ['Dashboard/a', entry('a', '1')],
          ['Dashboard/b', entry('b', '1')],
          ['Dashboard/c', entry('c', '2')],
        ] as const)
          await db.query(`INSERT INTO "${schema}".entries (target, address, entry, since) VALUES ('prod', $1, $2::jsonb, now())`, [
            address,
            JSON.stringify(e),
          ]);
        const err = await backend(schema).catch((e: unknown) => e);
        expect(err).toMatchObject({ code: 'STATE_DOUBLE_OWNER' });
        expect((err as Error).message).toContain(
          'records 1 object(s) under two addresses at once, which this obsync no longer accepts (an object would flip between two ' +
            "manifests): target 'prod': Dashboard 1 is owned by Dashboard/a and Dashboard/b. Nothing was changed",
        );
        expect((err as { hint?: string }).hint).toContain(
          `DELETE FROM "${schema}".entries WHERE target = 'prod' AND address IN ('Dashboard/b')`,
        );
        expect((await db.query(`SELECT max(version) AS v FROM "${schema}".schema_migrations`)).rows[0]).toEqual({ v: 2 });
        await db.query(`DELETE FROM "${schema}".entries WHERE address = 'Dashboard/b'`);
        const { b } = await backend(schema);
        expect((await b.records('prod')).records.map((r) => r.entry.name)).toEqual(['a', 'c']);
      } finally {
        await pool.end();
      }
    },
  );
});
