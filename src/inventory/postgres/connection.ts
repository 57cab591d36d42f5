/**
 * The connection to the PostgreSQL state: a small pool for the runs, a dedicated one for lease
 * renewals and replica heartbeats, a printable location without the password, and database errors turned into messages that name the
 * location and never carry
 * the URL's password (the driver's own messages are scrubbed of it too).
 */
import pg from 'pg';
import { ConfigError, ObsyncError } from '../../core/errors.js';
import { connectionSecrets, Scrubber } from '../../core/scrub.js';
import { POSTGRES_URL, urlMessage, urlProblem } from '../../config/url-setting.js';
import type { Secret } from '../../core/secret.js';

export interface PgConnection {
  /** Inventory reads and writes, taking leases, migrations: what the runs of every target share. */
  pool: pg.Pool;
  /**
   * Lease renewals and releases, replica heartbeats: kept apart because node-postgres counts the
   * wait for a free pooled client in connectionTimeoutMillis, so a renewal queued behind many
   * targets' runs timed out, the lease lapsed and the target changed hands (issue 28).
   */
  control: pg.Pool;
  /** postgres://user@host:port/database (schema s): safe to print. */
  location: string;
  /** Removes the password from any text (driver messages). */
  scrub(text: string): string;
}

/** Error codes of "the server is not there or went away": the run fails and the next one retries. */
const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
  '57P01',
  '57P02',
  '57P03',
  '08000',
  '08003',
  '08006',
]);

export function connectPool(url: Secret, schema: string, connections: number): PgConnection {
  const parsed = parseUrl(url);
  // Any length, unlike the shared scrubber's minimum: a short password is still masked where it stands as a word (never inside one).
  const passwords = new Scrubber(1);
  for (const secret of connectionSecrets(url.reveal())) passwords.register(secret);
  const scrub = (text: string) => passwords.scrub(text);
  const location = `${parsed.protocol}//${parsed.username ? `${parsed.username}@` : ''}${parsed.host}${parsed.pathname} (schema ${schema})`;
  const pool = newPool(url, connections, 'obsync');
  const control = newPool(url, CONTROL_CONNECTIONS, 'obsync-leases');
  return { pool, control, location, scrub };
}

/**
 * Connections for the runs (README "Sizing"): one per run that may go on at once, so a run never
 * waits for a pooled connection (node-postgres counts that wait in connectionTimeoutMillis: at 200
 * targets and four connections, runs failed with "timeout exceeded when trying to connect" while
 * the server idled), and two for what else reads the state meanwhile (the status page, the replica list).
 */
export function runConnections(parallelRuns: number): number {
  return Math.max(1, Math.floor(parallelRuns)) + 2;
}
/** For lease renewals (one statement per tick for all leases) and heartbeats. */
export const CONTROL_CONNECTIONS = 2;

function newPool(url: Secret, max: number, application: string): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url.reveal(),
    max,
    connectionTimeoutMillis: 10_000,
    query_timeout: 30_000,
    idleTimeoutMillis: 10_000,
    application_name: application,
  });
  // An idle connection dropped by a server restart must not crash the process: the next query reconnects.
  pool.on('error', () => undefined);
  return pool;
}

/** Closes both pools (best effort: the process is leaving or the open failed). */
export async function closeConnection(conn: Pick<PgConnection, 'pool' | 'control'>): Promise<void> {
  await Promise.all([conn.pool.end().catch(() => undefined), conn.control.end().catch(() => undefined)]);
}

function parseUrl(url: Secret): URL {
  // obsync.yaml's state.url was checked where it is written; OBSYNC_STATE_URL (or its _FILE twin) is checked here.
  const problem = urlProblem(url.reveal(), POSTGRES_URL);
  if (problem !== undefined)
    throw new ConfigError(urlMessage('the state URL (state.url or OBSYNC_STATE_URL)', POSTGRES_URL, '"${env:OBSYNC_STATE_URL}"', problem));
  return new URL(url.reveal());
}

/** A database failure as an ObsyncError naming the state location, with what to do. */
export function stateError(conn: Pick<PgConnection, 'location' | 'scrub'>, doing: string, err: unknown): ObsyncError {
  if (err instanceof ObsyncError) return err;
  const e = err as { code?: string; message?: string; errors?: { message?: string }[] };
  const detail = conn.scrub(e.message || e.errors?.map((x) => x.message).join('; ') || String(err));
  if (e.code === '28P01' || e.code === '28000') {
    return new ObsyncError('STATE_AUTH', `the PostgreSQL state at ${conn.location} refused the login while ${doing}: ${detail}`, {
      hint: 'check the user and password in state.url (or OBSYNC_STATE_URL)',
    });
  }
  if (e.code === '42501') {
    return new ObsyncError('STATE_PERMISSION', `the PostgreSQL state at ${conn.location} denied access while ${doing}: ${detail}`, {
      hint: 'grant the user CREATE on the database (for the first run) and USAGE on the schema, or create the schema beforehand',
    });
  }
  if (e.code !== undefined && UNREACHABLE.has(e.code)) {
    return new ObsyncError('STATE_UNAVAILABLE', `cannot reach the PostgreSQL state at ${conn.location} while ${doing}: ${detail}`, {
      hint: 'check state.url (or OBSYNC_STATE_URL) and that the server is up; nothing was changed on the service by this step',
    });
  }
  return new ObsyncError('STATE_DATABASE', `the PostgreSQL state at ${conn.location} failed while ${doing}: ${detail}`);
}

/** Runs `fn` with the error mapped. */
export async function guarded<T>(conn: Pick<PgConnection, 'location' | 'scrub'>, doing: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw stateError(conn, doing, err);
  }
}

/** One transaction on one pooled connection; rolled back on any error. */
export async function transaction<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken = false;
  try {
    await client.query('BEGIN');
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => (broken = true));
    throw err;
  } finally {
    client.release(broken);
  }
}
