/**
 * Issue 53 item 4 and issue 50 item 6, the red team's rows replayed: a replica row whose targets is
 * not an array (every replica exited) and one whose version holds a newline (`state replicas`
 * printed it raw) stop no `obsync run` and print inert. The properties: ./state-rows.test.ts.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Secret } from '../../src/core/secret.js';
import { openPostgresState } from '../../src/inventory/postgres/backend.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { assertBuilt } from '../support/cli.js';
import { fakeIO, runInProcess } from '../support/cli-io.js';
import { startDaemon } from '../support/daemon.js';
import { startPostgres, type PgServer } from '../support/postgres.js';
import { until } from '../support/wait.js';

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

describe('the red team rows, replayed against obsync run and obsync state replicas', () => {
  it('a replica row whose targets is not an array, and one with a newline, stop no replica and print inert', async () => {
    assertBuilt();
    const sandbox = await startSandbox({ port: 0, rateLimit: 'off' });
    const dir = mkdtempSync(join(tmpdir(), 'obsync-rows-daemon-'));
    const schema = server.freshSchema('poison');
    const env = { OBSYNC_STATE_URL: server.url };
    let daemon: Awaited<ReturnType<typeof startDaemon>> | undefined;
    try {
      mkdirSync(join(dir, 'manifests'));
      writeFileSync(
        join(dir, 'obsync.yaml'),
        `apiVersion: obsync/v1\nkind: Config\nmanifests: [manifests]\nstate: {backend: postgres, url: "\${env:OBSYNC_STATE_URL}", ` +
          `schema: ${schema}, leaseSeconds: 2}\ntargets:\n  - {name: sb, variant: self-hosted, baseUrl: "${sandbox.url}", credentials: ` +
          `{apiKey: ${sandbox.credentials.apiKey}}}\n`,
      );
      const s = `"${schema}"`;
      // The schema as a first obsync leaves it, then the two rows of the red team.
      const prepared = await openPostgresState({
        url: new Secret(server.url),
        schema,
        timing: { leaseMs: 2_000, renewMs: 666 },
        prepare: true,
      });
      await prepared.close();
      await db.query(
        `INSERT INTO ${s}.replicas (id, host, pid, version, lease_ms, targets, expires_at) VALUES
           ('poison', 'h', 1, 'v', 30000, '5', now() + interval '10 years'),
           ('newline', 'h', 2, E'v1\nforged line', 600000, '["elsewhere"]', now() + interval '5 minutes')`,
      );
      daemon = await startDaemon(dir, ['--no-watch'], env);
      const running = daemon;
      await until('the replica to lead its target', async () => {
        const body = (await (await fetch(`${running.url}/readyz`)).json()) as { replica?: { leads?: string[] } };
        return body.replica?.leads?.includes('sb') === true || undefined;
      });
      const skipped = daemon.lines().filter((l) => l.msg === 'state row skipped');
      expect(skipped.map((l) => [l.table, l.key, l.reason])).toEqual([
        ['table replicas', 'poison', 'targets: Invalid input: expected array, received number'],
      ]);
      // In process, through the writers a real process has (scrubber and output pass).
      const replicas = fakeIO(dir, { env });
      expect(await runInProcess(replicas.io, ['state', 'replicas']), replicas.err()).toBe(0);
      expect(replicas.err()).toContain(
        'warning: the state row poison (table replicas) cannot be taken and is left out: targets: Invalid input: expected array, ' +
          'received number; a running replica writes its row again at its next heartbeat; otherwise DELETE FROM',
      );
      expect(replicas.out()).toContain('v1\\nforged line');
      expect(replicas.out()).not.toMatch(/^forged/m);
      expect(daemon.child.exitCode).toBe(null);
    } finally {
      await daemon?.stop();
      await sandbox.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
