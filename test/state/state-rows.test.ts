/**
 * Issue 53 item 4 and issue 50 item 5, against a real PostgreSQL: random rows in the replica
 * registry and the leases table — malformed (wrong JSON types, bad names, infinite times,
 * control characters) or with clock offsets (heartbeats dated ahead or long ago, expiries far
 * ahead) — never stop a replica's heartbeat, its assignment or `state replicas`: each row is
 * either read as what it is or left out and named. A replica is live only by its heartbeat.
 * The red team's own rows against obsync run and the CLI: ./state-rows-replay.test.ts.
 */
import { PassThrough } from 'node:stream';
import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outputWriter, type CliIO } from '../../src/cli/io.js';
import { printReplicas, replicasReport } from '../../src/cli/commands/state-replicas.js';
import { printable, safeOutput } from '../../src/core/printable.js';
import { Secret } from '../../src/core/secret.js';
import type { Daemon } from '../../src/daemon/daemon.js';
import { DaemonMetrics } from '../../src/daemon/metrics.js';
import { Sharding } from '../../src/daemon/shards.js';
import type { EventBus } from '../../src/events/bus.js';
import { openPostgresState, type PostgresStateBackend } from '../../src/inventory/postgres/backend.js';
import { createLogger } from '../../src/log/logger.js';
import { hostileText, RAW_UNSAFE } from '../support/hostile-text.js';
import { startPostgres, type PgServer } from '../support/postgres.js';

let server: PgServer;
let db: pg.Client;
beforeAll(async () => {
  server = await startPostgres();
  db = new pg.Client({ connectionString: server.url });
  await db.connect();
});
afterAll(async () => {
  await db.end();
  await server.close();
});

async function backend(): Promise<{ b: PostgresStateBackend; s: string }> {
  const schema = server.freshSchema('rows');
  const b = await openPostgresState({ url: new Secret(server.url), schema, timing: { leaseMs: 30_000, renewMs: 10_000 }, prepare: true });
  return { b, s: `"${schema}"` };
}

const HOUR = 3_600_000;
/** Times well away from every bound (a run takes a few seconds at most): what a row is cannot change while it is read. */
const TIME = fc.constantFrom<number | 'infinity' | '-infinity'>(
  -HOUR,
  -700_000,
  -10_000,
  0,
  10_000,
  45_000,
  30 * 60_000,
  2 * HOUR,
  'infinity',
  '-infinity',
);
const EXPIRY = fc.constantFrom<number | 'infinity' | '-infinity'>(
  -HOUR,
  -10_000,
  20_000,
  25 * 60_000,
  10 * 365 * 24 * HOUR,
  'infinity',
  '-infinity',
);
const TARGET = fc.constantFrom('a', 'b', 'c', 'd');
const noNul = (v: unknown) => !JSON.stringify(v).includes('\\u0000');
// Weighted towards rows that read well, so live rows carrying hostile text are common.
const LIST = fc.oneof(
  { arbitrary: fc.uniqueArray(TARGET, { maxLength: 4 }), weight: 4 },
  fc.jsonValue().filter(noNul),
  fc.constant(['Not A Name']),
  fc.constant('a'),
);
/** Text as an attacker writes it into a row (PostgreSQL takes no NUL, nor a lone surrogate in JSON: stored as U+FFFD). */
const TEXT = fc.oneof(
  fc.constant('v1'),
  fc.constant('x\nforged line'),
  hostileText.map((t) => Buffer.from(t.replaceAll('\u0000', '')).toString()),
);

const replicaRow = fc.record({
  idTail: TEXT,
  host: TEXT,
  version: TEXT,
  leaseMs: fc.constantFrom(30_000, 600_000, 0, -5, 600_001, 1_000_000_000),
  targets: LIST,
  leads: LIST,
  disagreements: fc.oneof({ arbitrary: fc.array(TEXT, { maxLength: 2 }), weight: 3 }, fc.jsonValue().filter(noNul)),
  heartbeatAgeMs: TIME,
  expiresInMs: EXPIRY,
});
type Row = typeof replicaRow extends fc.Arbitrary<infer R> ? R : never;

/** A timestamp `ms` from the database's now, or an infinite one (SQL, parameter `$n`). */
const at = (n: number, sign: '+' | '-') =>
  `CASE WHEN $${n}::text LIKE '%infinity' THEN $${n}::text::timestamptz ELSE now() ${sign} ($${n}::text)::double precision * interval '1 ` +
  `millisecond' END`;

const isTargets = (v: unknown) =>
  Array.isArray(v) && v.every((t) => typeof t === 'string' && /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/.test(t));

/** What the row is, by the rule of issue 50: live for one lease after its heartbeat, and nothing beyond the longest lease obsync grants. */
function expected(r: Row): 'live' | 'dead' | 'skipped' | 'gone' {
  // Dead for an hour by its heartbeat: removed by the next heartbeat of anyone.
  if (r.heartbeatAgeMs === '-infinity' || (typeof r.heartbeatAgeMs === 'number' && r.heartbeatAgeMs > HOUR)) return 'gone';
  const shape =
    isTargets(r.targets) && isTargets(r.leads) && Array.isArray(r.disagreements) && r.disagreements.every((d) => typeof d === 'string');
  if (!shape || typeof r.heartbeatAgeMs !== 'number' || typeof r.expiresInMs !== 'number') return 'skipped';
  if (!(r.leaseMs > 0 && r.leaseMs <= 600_000) || r.leaseMs - r.heartbeatAgeMs > 660_000 || r.expiresInMs > 660_000) return 'skipped';
  return r.heartbeatAgeMs < r.leaseMs ? 'live' : 'dead';
}

function capture(): { io: CliIO; out: () => string; err: () => string } {
  const [out, err] = [new PassThrough(), new PassThrough()];
  let [o, e] = ['', ''];
  out.on('data', (c: Buffer) => (o += c.toString()));
  err.on('data', (c: Buffer) => (e += c.toString()));
  const io: CliIO = {
    stdout: outputWriter(out as unknown as NodeJS.WriteStream),
    stderr: outputWriter(err as unknown as NodeJS.WriteStream),
    stdin: new PassThrough(),
    terminal: err,
    env: {},
    cwd: '/',
  };
  return { io, out: () => o, err: () => e };
}

function sharding(b: PostgresStateBackend, log: PassThrough): Sharding {
  const registry = b.replicas;
  if (!registry) throw new Error('no registry');
  return new Sharding({
    registry,
    me: { id: 'me', host: 'h', pid: 1, version: 'v1', leaseMs: 30_000 },
    targets: ['a', 'b', 'c'],
    intervalMs: 60_000,
    logger: createLogger({ stream: log }),
    metrics: new DaemonMetrics('v1'),
    events: { emit: () => undefined } as unknown as EventBus,
  });
}

describe('rows of the replica registry (issues 50 and 53)', () => {
  it(
    'random malformed rows and clock offsets never stop a heartbeat, the assignment or state replicas; each row is live, dead, or left ' +
      'out and named (property)',
    async () => {
      const { b, s } = await backend();
      let runs = 0;
      try {
        await fc.assert(
          fc.asyncProperty(fc.array(replicaRow, { maxLength: 6 }), async (rows) => {
            runs += 1;
            await db.query(`DELETE FROM ${s}.replicas`);
            for (const [i, r] of rows.entries()) {
              await db.query(
                `INSERT INTO ${s}.replicas (id, host, pid, version, lease_ms, targets, leads, disagreements, heartbeat_at, expires_at)
               VALUES ($1, $2, 7, $3, $4, $5::jsonb, $6::jsonb, $7::jsonb, ${at(8, '-')}, ${at(9, '+')})`,
                [
                  `r${i}:${r.idTail}`,
                  r.host,
                  r.version,
                  r.leaseMs,
                  JSON.stringify(r.targets),
                  JSON.stringify(r.leads),
                  JSON.stringify(r.disagreements),
                  String(r.heartbeatAgeMs),
                  String(r.expiresInMs),
                ],
              );
            }
            const log = new PassThrough();
            let logged = '';
            log.on('data', (c: Buffer) => (logged += c.toString()));
            const me = sharding(b, log);
            const daemons = ['a', 'b', 'c'].map((target) => ({
              target,
              leads: false,
              claim: () => undefined,
              handOver: () => Promise.resolve(),
            }));
            await me.start(daemons as unknown as Daemon[]);
            const registered = await b.replicas?.list();
            const told = () =>
              logged
                .split('\n')
                .filter((l) => l.includes('state row skipped'))
                .map((l) => JSON.parse(l) as { table: string; key: string })
                .filter((l) => l.table === 'table replicas');
            const id = (i: number) => `r${i}:${rows[i]?.idTail ?? ''}`;
            rows.forEach((r, i) => {
              const want = expected(r);
              const listed = registered?.replicas.find((x) => x.id === id(i));
              const skipped = registered?.skipped.find((x) => x.key === id(i));
              const found =
                want === 'gone'
                  ? !listed && !skipped
                  : want === 'skipped'
                    ? skipped && !listed
                    : listed?.live === (want === 'live') && !skipped;
              expect(found, `${id(i)} ${JSON.stringify(r)} ${JSON.stringify(registered)} ${logged}`).toBe(true);
              // The replica heard of each skipped row once, by table and key.
              if (want === 'skipped') expect(told().filter((l) => l.key === id(i))).toHaveLength(1);
            });
            const live = new Set(['me', ...rows.flatMap((r, i) => (expected(r) === 'live' ? [id(i)] : []))]);
            for (const t of ['a', 'b', 'c']) {
              const a = me.assignment(t);
              if (!a.mine) expect(live.has(a.owner.replace('assigned to replica ', ''))).toBe(true);
            }
            expect(
              me
                .view()
                .replicas.map((r) => r.id)
                .sort(),
            ).toEqual([...live].sort());
            // state replicas: every line through the output pass, no row's text starts a line or acts on the terminal.
            const text = capture();
            await printReplicas(text.io, b, 'text');
            const report = await replicasReport(b);
            expect(text.out() + text.err()).not.toMatch(RAW_UNSAFE);
            // A line per replica, lease and disagreement: no row's text starts a line of its own.
            const lines = (t: string) => t.split('\n').length - 1;
            const { replicas, unled, otherLeases, disagreements } = report;
            expect(lines(text.out()), text.out()).toBe(
              1 + replicas.length + (unled.length ? 2 : 0) + otherLeases.length + (disagreements.length ? 2 + disagreements.length : 0),
            );
            expect(lines(text.err()), text.err()).toBe(report.skipped.length);
            for (const r of registered?.skipped ?? [])
              expect(text.err()).toContain(`warning: the state row ${safeOutput(printable(r.key))} (table replicas)`);
            // What nobody leads is among live replicas' targets only: a skipped row's share is not "led by nobody" for ever.
            const liveTargets = new Set(report.replicas.flatMap((r) => r.targets));
            for (const t of report.unled) expect(liveTargets.has(t)).toBe(true);
            await me.leave();
          }),
          { numRuns: 40 },
        );
      } finally {
        await b.close();
      }
      expect(runs).toBeGreaterThanOrEqual(40);
    },
  );
});

describe('rows of the leases table (issue 53)', () => {
  const leaseRow = fc.record({
    target: fc.constantFrom('p', 'q', 'r', 's'),
    pid: fc.constantFrom(-1, 0, 123, 2 ** 31 - 1),
    host: TEXT,
    command: TEXT,
    expiresInMs: fc.constantFrom<number | 'infinity' | '-infinity'>(-HOUR, 20_000, 25 * 60_000, 'infinity', '-infinity'),
  });

  it('random lease rows never stop state replicas or an election: held, expired, or left out and taken over (property)', async () => {
    const { b, s } = await backend();
    try {
      await fc.assert(
        fc.asyncProperty(fc.uniqueArray(leaseRow, { selector: (r) => r.target, maxLength: 4 }), async (rows) => {
          await db.query(`DELETE FROM ${s}.leases`);
          for (const r of rows)
            await db.query(
              `INSERT INTO ${s}.leases (target, token, holder, pid, host, command, acquired_at, expires_at) VALUES ($1, ` +
                `nextval('${s}.lease_tokens'), 'x', $2, $3, $4, now(), ${at(5, '+')})`,
              [r.target, r.pid, r.host, r.command, String(r.expiresInMs)],
            );
          const read = await b.replicas?.leases();
          for (const r of rows) {
            const held = read?.leases.some((l) => l.target === r.target);
            const skipped = read?.skipped.some((l) => l.key === r.target);
            expect([held, skipped]).toEqual([r.expiresInMs === 20_000, r.expiresInMs === 25 * 60_000 || typeof r.expiresInMs === 'string']);
            // Only a lease obsync could have granted, still running, keeps another obsync out.
            const attempt = await b.tryLease(r.target, 'apply');
            expect('lease' in attempt, JSON.stringify(r)).toBe(r.expiresInMs !== 20_000);
            if ('lease' in attempt) await attempt.lease.release();
          }
        }),
        { numRuns: 25 },
      );
    } finally {
      await b.close();
    }
  });
});
