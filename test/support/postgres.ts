/**
 * A throw-away PostgreSQL server for the tests: Debian's postgresql (installed by `.ci/run` when
 * missing), started on 127.0.0.1 on a free port with a fresh data directory, stopped and deleted
 * afterwards. initdb and postgres refuse to run as root, so as root they run as the `postgres`
 * system user (the package creates it) on a directory that user owns. One server per test file;
 * tests share it and keep apart by schema (`freshSchema()`).
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

export interface PgServer {
  readonly port: number;
  readonly user: string;
  readonly password: string;
  /** postgres://user:password@127.0.0.1:port/postgres */
  readonly url: string;
  /** A schema name no other test uses. */
  freshSchema(prefix?: string): string;
  /** Fast shutdown (clients are disconnected), then start again on the same port and data. */
  restart(opts?: { downMs?: number }): Promise<void>;
  stopServer(): Promise<void>;
  startServer(): Promise<void>;
  /** Stops the server and deletes its data. */
  close(): Promise<void>;
}

const USER = 'obsync';

export async function startPostgres(): Promise<PgServer> {
  const bin = postgresBinDir();
  const base = mkdtempSync(join(tmpdir(), 'obsync-pg-'));
  const data = join(base, 'data');
  const password = `pw-${randomBytes(9).toString('base64url')}`;
  writeFileSync(join(base, 'pwfile'), `${password}\n`, { mode: 0o600 });
  const owner = runAs();
  if (owner) {
    chownSync(base, owner.uid, owner.gid);
    chownSync(join(base, 'pwfile'), owner.uid, owner.gid);
  }
  const spawnOpts = owner ? { uid: owner.uid, gid: owner.gid } : {};
  execFileSync(
    join(bin, 'initdb'),
    [
      '-D',
      data,
      '-U',
      USER,
      `--pwfile=${join(base, 'pwfile')}`,
      '--auth-host=scram-sha-256',
      '--auth-local=trust',
      '-E',
      'UTF8',
      '--locale=C',
      '-N',
    ],
    {
      ...spawnOpts,
      cwd: base,
      stdio: 'pipe',
      env: { PATH: process.env.PATH ?? '', LC_ALL: 'C' },
    },
  );
  const port = await freePort();
  const url = `postgres://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`;
  let child: ChildProcess | null = null;
  let log = '';
  let schemas = 0;

  const startServer = async () => {
    log = '';
    const settings = [
      'listen_addresses=127.0.0.1',
      `unix_socket_directories=${base}`,
      'fsync=off',
      'synchronous_commit=off',
      'full_page_writes=off',
      'shared_buffers=16MB',
      'max_connections=60',
    ];
    child = spawn(join(bin, 'postgres'), ['-D', data, '-p', String(port), ...settings.flatMap((s) => ['-c', s])], {
      ...spawnOpts,
      cwd: base,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { PATH: process.env.PATH ?? '', LC_ALL: 'C' },
    });
    child.stdout?.on('data', (d: Buffer) => (log += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (log += d.toString()));
    await waitReady(
      url,
      () => child?.exitCode ?? null,
      () => log,
    );
  };
  const stopServer = async () => {
    const running = child;
    child = null;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise((r) => running.once('exit', r));
    running.kill('SIGINT');
    await exited;
  };
  const killOnExit = () => child?.kill('SIGKILL');
  process.once('exit', killOnExit);
  await startServer();
  return {
    port,
    user: USER,
    password,
    url,
    freshSchema: (prefix = 't') => `${prefix}_${process.pid}_${(schemas += 1)}_${randomBytes(3).toString('hex')}`,
    async restart(opts = {}) {
      await stopServer();
      if (opts.downMs) await new Promise((r) => setTimeout(r, opts.downMs));
      await startServer();
    },
    stopServer,
    startServer,
    async close() {
      await stopServer();
      process.removeListener('exit', killOnExit);
      rmSync(base, { recursive: true, force: true });
    },
  };
}

/** OBSYNC_PG_BIN, else the newest /usr/lib/postgresql/<version>/bin (Debian's layout). */
function postgresBinDir(): string {
  const fromEnv = process.env.OBSYNC_PG_BIN;
  if (fromEnv) return fromEnv;
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'initdb'))) : [];
  const newest = versions.sort((a, b) => Number(b) - Number(a))[0];
  if (!newest)
    throw new Error(
      'PostgreSQL is not installed: `.ci/run` installs it (apt-get install -y postgresql), or set OBSYNC_PG_BIN to the directory of initdb and postgres',
    );
  return join(root, newest, 'bin');
}

/** As root, the `postgres` system user (initdb refuses root); otherwise the current user. */
function runAs(): { uid: number; gid: number } | null {
  if (process.getuid?.() !== 0) return null;
  try {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    return { uid, gid };
  } catch {
    throw new Error("running as root needs the `postgres` system user for initdb (Debian's postgresql package creates it)");
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

async function waitReady(url: string, exitCode: () => number | null, log: () => string): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
    try {
      await client.connect();
      await client.end();
      return;
    } catch {
      await client.end().catch(() => undefined);
    }
    if (exitCode() !== null || Date.now() > deadline) throw new Error(`PostgreSQL did not start:\n${log().slice(-3000)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
