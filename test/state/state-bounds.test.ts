/**
 * Issue 24, item 10 (state): a read-only command never creates or migrates the PostgreSQL state
 * and says what to run; OBSYNC_STATE_SCHEMA is held to the rule of state.schema; a lease whose
 * expiry lies further ahead than any lease obsync grants does not lock writers out (unless its
 * holder is a live process here, and then the lock-out says how to clear it), on both backends;
 * an inventory file naming another target is refused.
 */
import { mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { assertBuilt, runCli } from '../support/cli.js';
import { startPostgres, type PgServer } from '../support/postgres.js';
import { LATEST_VERSION } from '../../src/inventory/postgres/migrations.js';

let server: PgServer;
let sandbox: SandboxHandle;
let dir: string;

beforeAll(async () => {
  assertBuilt();
  server = await startPostgres();
});
afterAll(async () => {
  await server.close();
});
beforeEach(async () => {
  sandbox = await startSandbox({ port: 0, rateLimit: 'off' });
  dir = mkdtempSync(join(tmpdir(), 'obsync-state-bounds-'));
  mkdirSync(join(dir, 'manifests'));
  writeFileSync(
    join(dir, 'manifests/d.yaml'),
    'apiVersion: obsync/v1\nkind: Dashboard\nmetadata: {name: d}\nspec:\n  name: State bounds\n  tiles: [{name: Notes, x: 0, y: 0, w: 6, ' +
      'h: 2, config: {displayType: markdown, markdown: hi}}]\n',
  );
});
afterEach(async () => {
  await sandbox.close();
  rmSync(dir, { recursive: true, force: true });
});

function config(state: string): void {
  writeFileSync(
    join(dir, 'obsync.yaml'),
    `apiVersion: obsync/v1\nkind: Config\nmanifests: [manifests]\nstate: ${state}\ntargets:\n  - {name: sb, variant: self-hosted, ` +
      `baseUrl: "${sandbox.url}", credentials: {apiKey: ${sandbox.credentials.apiKey}}, rateLimit: {requests: 1000, perSeconds: 1}}\n`,
  );
}

async function sql<T extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: server.url });
  await client.connect();
  try {
    return (await client.query<T>(text, values)).rows;
  } finally {
    await client.end();
  }
}

const schemaExists = async (schema: string) =>
  (await sql<{ n: string }>('SELECT count(*)::text AS n FROM information_schema.schemata WHERE schema_name = $1', [schema]))[0]?.n === '1';

const pgEnv = () => ({ OBSYNC_STATE_URL: server.url });

describe('a read-only command on the PostgreSQL state', () => {
  it('creates nothing on an uninitialised database: reads it as empty, and says so and what to run', async () => {
    const schema = server.freshSchema('ro');
    config(`{backend: postgres, url: "\${env:OBSYNC_STATE_URL}", schema: ${schema}}`);
    for (const [args, code] of [
      [['plan', '--detailed-exitcode'], 2],
      [['state', 'list'], 0],
      [['export', '--out-dir', 'exported'], 0],
    ] as const) {
      const res = await runCli([...args], { cwd: dir, env: pgEnv() });
      expect(res.code, `${args.join(' ')}: ${res.stderr}`).toBe(code);
      expect(res.stderr).toContain(`(schema '${schema}' holds no obsync tables): read as empty, and not created by this read-only command`);
      expect(res.stderr).toContain('the first `obsync apply` creates it');
      expect(res.stderr).not.toContain(server.password);
    }
    expect(await schemaExists(schema)).toBe(false);
    expect(sandbox.requests().filter((r) => r.method !== 'GET')).toEqual([]);
    const apply = await runCli(['apply', '--auto-approve'], { cwd: dir, env: pgEnv() });
    expect(apply.code, apply.stderr).toBe(0);
    expect(await schemaExists(schema)).toBe(true);
    const again = await runCli(['plan', '--detailed-exitcode'], { cwd: dir, env: pgEnv() });
    expect(again.code).toBe(0);
    expect(again.stderr).not.toContain('not set up');
  });

  it('refuses a schema of another version, saying what to run, and migrates nothing', async () => {
    const schema = server.freshSchema('old');
    config(`{backend: postgres, url: "\${env:OBSYNC_STATE_URL}", schema: ${schema}}`);
    expect((await runCli(['apply', '--auto-approve'], { cwd: dir, env: pgEnv() })).code).toBe(0);
    // As an obsync of the first schema version left it (before the replica registry).
    await sql(`DELETE FROM "${schema}".schema_migrations WHERE version > 1`);
    const res = await runCli(['plan'], { cwd: dir, env: pgEnv() });
    expect(res.code).toBe(1);
    expect(res.stderr).toContain(`is at version 1; this obsync reads version ${LATEST_VERSION}`);
    expect(res.stderr).toContain('run `obsync apply` once (it migrates the tables)');
    expect((await sql<{ v: number }>(`SELECT max(version) AS v FROM "${schema}".schema_migrations`))[0]?.v).toBe(1);
  });

  it('refuses an OBSYNC_STATE_SCHEMA that is not a plain schema name, naming the variable, before connecting', async () => {
    config(`{backend: postgres, url: "\${env:OBSYNC_STATE_URL}"}`);
    for (const bad of ['Obsync', 'obsync; DROP TABLE x', '1st', 'a'.repeat(64), '"quoted"']) {
      const res = await runCli(['apply', '--auto-approve'], { cwd: dir, env: { ...pgEnv(), OBSYNC_STATE_SCHEMA: bad } });
      expect(res.code, bad).toBe(1);
      expect(res.stderr).toContain(`OBSYNC_STATE_SCHEMA ${JSON.stringify(bad)} is not a schema name obsync uses`);
    }
    expect(sandbox.requests()).toEqual([]);
  });
});

describe('a lease whose expiry lies further ahead than any lease obsync grants', () => {
  const farAhead = () => new Date(Date.now() + 365 * 24 * 3600 * 1000);

  it('is taken over when its holder is not a live process here (file state)', async () => {
    config('{backend: file, path: state}');
    mkdirSync(join(dir, 'state'));
    const lock = { token: 'bogus', pid: 4242, host: 'another-host', command: 'apply', since: new Date().toISOString() };
    writeFileSync(join(dir, 'state/sb.lock'), JSON.stringify({ ...lock, expiresAt: farAhead().toISOString() }));
    const res = await runCli(['apply', '--auto-approve'], { cwd: dir });
    expect(res.code, res.stderr).toBe(0);
  });

  it('locks out with a message saying how to clear it when its holder is a live process here (file state)', async () => {
    config('{backend: file, path: state}');
    mkdirSync(join(dir, 'state'));
    // This test's own process: alive, on this host, in this PID namespace; not an obsync holding a lease.
    const pidns = readPidns();
    const lock = { token: 'bogus', pid: process.pid, host: hostname(), ...(pidns ? { pidns } : {}), command: 'apply' };
    writeFileSync(join(dir, 'state/sb.lock'), JSON.stringify({ ...lock, expiresAt: farAhead().toISOString() }));
    const res = await runCli(['apply', '--auto-approve'], { cwd: dir });
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('further ahead than any lease obsync grants');
    expect(res.stderr).toContain(`if pid ${process.pid} is not obsync, delete ${join(dir, 'state/sb.lock')}`);
    expect(sandbox.requests().filter((r) => r.method !== 'GET')).toEqual([]);
  });

  it('is taken over on the PostgreSQL state too, and otherwise names the statement that clears it', async () => {
    const schema = server.freshSchema('bogus');
    config(`{backend: postgres, url: "\${env:OBSYNC_STATE_URL}", schema: ${schema}}`);
    expect((await runCli(['apply', '--auto-approve'], { cwd: dir, env: pgEnv() })).code).toBe(0);
    const bogus = async (pid: number, host: string, pidns: string | null) =>
      sql(
        `INSERT INTO "${schema}".leases (target, token, holder, pid, host, pidns, command, acquired_at, expires_at)
         VALUES ('sb', 999999, 'x', $1, $2, $3, 'apply', now(), now() + interval '1 year')
         ON CONFLICT (target) DO UPDATE SET token = 999999, pid = $1, host = $2, pidns = $3, expires_at = now() + interval '1 year'`,
        [pid, host, pidns],
      );
    await bogus(4242, 'another-host', null);
    const taken = await runCli(['apply', '--auto-approve'], { cwd: dir, env: pgEnv() });
    expect(taken.code, taken.stderr).toBe(0);
    await bogus(process.pid, hostname(), readPidns() ?? null);
    const locked = await runCli(['apply', '--auto-approve'], { cwd: dir, env: pgEnv() });
    expect(locked.code).toBe(1);
    expect(locked.stderr).toContain('further ahead than any lease obsync grants');
    expect(locked.stderr).toContain(`DELETE FROM "${schema}".leases WHERE target = 'sb'`);
  });
});

describe('an inventory file naming another target', () => {
  it('is refused, naming the file and both targets', async () => {
    config('{backend: file, path: state}');
    expect((await runCli(['apply', '--auto-approve'], { cwd: dir })).code).toBe(0);
    const file = join(dir, 'state/sb.json');
    const snapshot = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    writeFileSync(file, JSON.stringify({ ...snapshot, target: 'prod' }));
    for (const args of [['plan'], ['apply', '--auto-approve']]) {
      const res = await runCli(args, { cwd: dir });
      expect(res.code).toBe(1);
      expect(res.stderr).toContain(`the inventory ${file} is the state of target 'prod', not of target 'sb'`);
    }
  });
});

/** The PID namespace as obsync's holder check reads it (src/inventory/holder.ts). */
function readPidns(): string | undefined {
  try {
    return readlinkSync('/proc/self/ns/pid');
  } catch {
    return undefined;
  }
}
