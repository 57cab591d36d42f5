/**
 * One throw-away PostgreSQL server: Debian's postgresql (installed by `.ci/run` when missing),
 * with a data directory copied from a template made once by initdb, stopped and deleted at the
 * end. initdb and postgres refuse to run as root, so as root they run as the `postgres` system
 * user (the package creates it) on directories that user owns.
 *
 * PostgreSQL cannot listen on port 0, so it listens on a unix socket only, and a TCP front on
 * 127.0.0.1 port 0 (the kernel's choice, reported) passes each connection through to it: no port
 * is ever picked by opening and closing a probe socket, and the front keeps its port while the
 * server restarts (a connection tried meanwhile is reset, as a client sees a server going away).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

export const PG_USER = 'obsync';
/** Names the socket file only (.s.PGSQL.5432 in the server's own directory): nothing binds it. */
const SOCKET_PORT = 5432;

/** What a test needs to reach a server. */
export interface PgAddress {
  readonly port: number;
  readonly user: string;
  readonly password: string;
  /** postgres://user:password@127.0.0.1:port/postgres */
  readonly url: string;
}

/** A data directory made by initdb, copied for each server (initdb is the slow part of a start). */
export interface PgTemplate {
  readonly dir: string;
  readonly password: string;
  close(): void;
}

export function makeTemplate(): PgTemplate {
  const bin = postgresBinDir();
  const dir = mkdtempSync(join(tmpdir(), 'obsync-pg-template-'));
  const password = `pw-${randomBytes(9).toString('base64url')}`;
  writeFileSync(join(dir, 'pwfile'), `${password}\n`, { mode: 0o600 });
  const owner = runAs();
  if (owner) {
    chownSync(dir, owner.uid, owner.gid);
    chownSync(join(dir, 'pwfile'), owner.uid, owner.gid);
  }
  execFileSync(
    join(bin, 'initdb'),
    [
      '-D',
      join(dir, 'data'),
      '-U',
      PG_USER,
      `--pwfile=${join(dir, 'pwfile')}`,
      // Every connection comes through the socket: the password is checked there.
      '--auth-local=scram-sha-256',
      '--auth-host=scram-sha-256',
      '-E',
      'UTF8',
      '--locale=C',
      '-N',
    ],
    { ...(owner ? { uid: owner.uid, gid: owner.gid } : {}), cwd: dir, stdio: 'pipe', env: { PATH: process.env.PATH ?? '', LC_ALL: 'C' } },
  );
  return { dir, password, close: () => rmSync(dir, { recursive: true, force: true }) };
}

export class PostgresInstance {
  readonly #bin = postgresBinDir();
  readonly #owner = runAs();
  readonly #base: string;
  readonly #front: Server;
  readonly #clients = new Set<Socket>();
  #child: ChildProcess | null = null;
  #log = '';
  #address: PgAddress | undefined;

  private constructor(base: string) {
    this.#base = base;
    this.#front = createServer((client) => this.#pass(client));
  }

  /** A server of its own, from the template's data, reachable at `address`. */
  static async start(template: PgTemplate): Promise<PostgresInstance> {
    const base = mkdtempSync(join(tmpdir(), 'obsync-pg-'));
    const owner = runAs();
    execFileSync('cp', ['-a', join(template.dir, 'data'), join(base, 'data')]);
    if (owner) chownSync(base, owner.uid, owner.gid);
    const instance = new PostgresInstance(base);
    await new Promise<void>((resolve, reject) => {
      instance.#front.once('error', reject);
      instance.#front.listen(0, '127.0.0.1', () => resolve());
    });
    const { port } = instance.#front.address() as AddressInfo;
    instance.#address = {
      port,
      user: PG_USER,
      password: template.password,
      url: `postgres://${PG_USER}:${encodeURIComponent(template.password)}@127.0.0.1:${port}/postgres`,
    };
    await instance.startServer();
    return instance;
  }

  get address(): PgAddress {
    if (!this.#address) throw new Error('PostgreSQL is not started');
    return this.#address;
  }

  async startServer(): Promise<void> {
    this.#log = '';
    const settings = [
      // No TCP socket: the front below is the only way in.
      'listen_addresses=',
      `unix_socket_directories=${this.#base}`,
      'fsync=off',
      'synchronous_commit=off',
      'full_page_writes=off',
      'shared_buffers=16MB',
      'max_connections=60',
    ];
    const child = spawn(
      join(this.#bin, 'postgres'),
      ['-D', join(this.#base, 'data'), '-p', String(SOCKET_PORT), ...settings.flatMap((s) => ['-c', s])],
      {
        ...(this.#owner ? { uid: this.#owner.uid, gid: this.#owner.gid } : {}),
        cwd: this.#base,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { PATH: process.env.PATH ?? '', LC_ALL: 'C' },
      },
    );
    this.#child = child;
    child.stdout?.on('data', (d: Buffer) => (this.#log += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (this.#log += d.toString()));
    await waitReady(
      this.address.url,
      () => child.exitCode,
      () => this.#log,
    );
  }

  /** Fast shutdown: the server's clients are disconnected by it, as on a real restart. */
  async stopServer(): Promise<void> {
    const running = this.#child;
    this.#child = null;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise((r) => running.once('exit', r));
    running.kill('SIGINT');
    await exited;
  }

  async restart(opts: { downMs?: number } = {}): Promise<void> {
    await this.stopServer();
    if (opts.downMs) await new Promise((r) => setTimeout(r, opts.downMs));
    await this.startServer();
  }

  /** Stops the server and the front, and deletes the data. */
  async close(): Promise<void> {
    await this.stopServer();
    for (const c of this.#clients) c.destroy();
    await new Promise<void>((r) => this.#front.close(() => r()));
    rmSync(this.#base, { recursive: true, force: true });
  }

  /** Kills the server at once (the process is exiting). */
  kill(): void {
    this.#child?.kill('SIGKILL');
  }

  /** One client connection passed through to the server's socket; reset when the server is not there. */
  #pass(client: Socket): void {
    this.#clients.add(client);
    const upstream = connect(join(this.#base, `.s.PGSQL.${SOCKET_PORT}`));
    client.pipe(upstream).pipe(client);
    upstream.on('error', () => client.resetAndDestroy());
    client.on('error', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    client.on('close', () => {
      upstream.destroy();
      this.#clients.delete(client);
    });
  }
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
      'PostgreSQL is not installed: `.ci/run` installs it (apt-get install -y postgresql), or set OBSYNC_PG_BIN to the directory of ' +
        'initdb and postgres',
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
