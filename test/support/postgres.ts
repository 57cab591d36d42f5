/**
 * A throw-away PostgreSQL server for the tests (./postgres-instance.ts). Under the test suite it is
 * the worker's own server, shared by the files that worker runs one after another and stopped at
 * the end of the run by the fixture server (./fixtures.ts); tests keep apart by schema
 * (`freshSchema()`). Without a fixture server (a file run on its own outside this config), the
 * file gets a server of its own.
 */
import { randomBytes } from 'node:crypto';
import { callFixture, fixturesAvailable } from './fixture-client.js';
import { makeTemplate, PostgresInstance, type PgAddress } from './postgres-instance.js';

export interface PgServer extends PgAddress {
  /** A schema name no other test uses. */
  freshSchema(prefix?: string): string;
  /** Fast shutdown (clients are disconnected), then start again on the same port and data. */
  restart(opts?: { downMs?: number }): Promise<void>;
  stopServer(): Promise<void>;
  startServer(): Promise<void>;
  /** Done with it: a server of its own is stopped and deleted; the worker's shared one stays for the next file. */
  close(): Promise<void>;
}

let schemas = 0;
const freshSchema = (prefix = 't') => `${prefix}_${process.pid}_${(schemas += 1)}_${randomBytes(3).toString('hex')}`;

export async function startPostgres(): Promise<PgServer> {
  if (fixturesAvailable()) {
    const address = await callFixture<PgAddress>('postgres', 'acquire');
    return {
      ...address,
      freshSchema,
      restart: async (opts = {}) => void (await callFixture('postgres', 'restart', opts)),
      stopServer: async () => void (await callFixture('postgres', 'stop')),
      startServer: async () => void (await callFixture('postgres', 'start')),
      close: () => Promise.resolve(),
    };
  }
  const template = makeTemplate();
  const instance = await PostgresInstance.start(template);
  const killOnExit = () => instance.kill();
  process.once('exit', killOnExit);
  return {
    ...instance.address,
    freshSchema,
    restart: (opts) => instance.restart(opts),
    stopServer: () => instance.stopServer(),
    startServer: () => instance.startServer(),
    async close() {
      await instance.close();
      template.close();
      process.removeListener('exit', killOnExit);
    },
  };
}
