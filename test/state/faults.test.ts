/**
 * Faults of the PostgreSQL state: the server restarted in the middle of an apply (the run fails
 * cleanly, the next converges: no duplicates, no lost ownership), and no server at start (a
 * clear error naming the URL without its password).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/index.js';
import { assertBuilt, runCli, spawnCli } from '../support/cli.js';
import { startPostgres, type PgServer } from '../support/postgres.js';

const COUNT = 20;
let server: PgServer;

beforeAll(async () => {
  assertBuilt();
  server = await startPostgres();
});
afterAll(async () => {
  await server.close();
});

function project(dir: string, sandboxUrl: string, apiKey: string, schema: string): void {
  mkdirSync(join(dir, 'manifests'), { recursive: true });
  const docs: string[] = [];
  for (let i = 0; i < COUNT; i++) {
    docs.push(
      `apiVersion: obsync/v1
kind: Dashboard
metadata: {name: pgf-${i}}
spec:
  name: PG fault ${i}
  tiles:
    - {key: lat, name: Latency, x: 0, y: 0, w: 12, h: 4, config: {displayType: line, source: Traces, select: [{aggFn: avg, ` +
        `valueExpression: Duration}]}}`,
    );
  }
  writeFileSync(join(dir, 'manifests/all.yaml'), docs.join('\n---\n') + '\n');
  writeFileSync(
    join(dir, 'obsync.yaml'),
    `apiVersion: obsync/v1\nkind: Config\nmanifests: [manifests]\nstate: {backend: postgres, url: "\${env:OBSYNC_STATE_URL}", schema: ` +
      `${schema}}\ntargets:\n  - {name: sb, variant: self-hosted, baseUrl: "${sandboxUrl}", credentials: {apiKey: ${apiKey}}, ` +
      `rateLimit: {requests: 1000, perSeconds: 1}, retries: 0}\n`,
  );
}

describe('PostgreSQL state faults', () => {
  it('fails an apply cleanly when PostgreSQL restarts in the middle, and the next run converges with no duplicates and full ownership', {
    timeout: 120_000,
  }, async () => {
    const sandbox = await startSandbox({ port: 0, rateLimit: 'off', faults: { latencyMs: 40 } });
    const dir = mkdtempSync(join(tmpdir(), 'obsync-pgfault-'));
    const schema = server.freshSchema('fault');
    const env = { OBSYNC_STATE_URL: server.url };
    try {
      project(dir, sandbox.url, sandbox.credentials.apiKey, schema);
      const child = spawnCli(['apply', '--auto-approve', '--concurrency', '2'], { cwd: dir, env });
      let output = '';
      child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
      child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
      const exit = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
      const posts = () => sandbox.requests().filter((r) => r.method === 'POST').length;
      // Restart once the apply is under way (by progress, not by time).
      while (posts() < 4 && child.exitCode === null) await new Promise((r) => setTimeout(r, 5));
      await server.restart({ downMs: 300 });
      const code = await exit;
      expect(code, output).toBe(1);
      expect(output).toMatch(/PostgreSQL state at postgres:\/\/obsync@127\.0\.0\.1:\d+\/postgres \(schema fault_/);
      expect(output).not.toContain(server.password);
      expect(output).not.toMatch(/at .*\.js:\d+/); // an error report, not a crash with a stack

      sandbox.faults.clear();
      const again = await runCli(['apply', '--auto-approve'], { cwd: dir, env });
      expect(again.code, again.stderr).toBe(0);
      const plan = await runCli(['plan', '--detailed-exitcode'], { cwd: dir, env });
      expect(plan.code, plan.stdout).toBe(0);

      const res = await fetch(`${sandbox.url}/api/v2/dashboards`, { headers: { authorization: `Bearer ${sandbox.credentials.apiKey}` } });
      const live = ((await res.json()) as { data: { id: string; name: string }[] }).data.filter((d) => d.name.startsWith('PG fault'));
      expect(live).toHaveLength(COUNT);
      expect(new Set(live.map((d) => d.name)).size).toBe(COUNT);
      const client = new pg.Client({ connectionString: server.url });
      await client.connect();
      const rows = (
        await client.query<{ entry: { id: string | null; status: string } }>(`SELECT entry FROM "${schema}".entries WHERE target = 'sb'`)
      ).rows;
      await client.end();
      expect(rows.filter((r) => r.entry.status !== 'owned')).toEqual([]);
      const owned = new Set(rows.map((r) => r.entry.id));
      for (const d of live) expect(owned.has(d.id)).toBe(true);
    } finally {
      await sandbox.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses to start when PostgreSQL is not there, naming the URL without its password', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'obsync-pgdown-'));
    const sandbox = await startSandbox({ port: 0, rateLimit: 'off' });
    try {
      project(dir, sandbox.url, sandbox.credentials.apiKey, 'obsync');
      const closed = server.url.replace(`:${server.port}/`, ':1/');
      for (const args of [['plan'], ['apply', '--auto-approve'], ['state', 'list']]) {
        const res = await runCli(args, { cwd: dir, env: { OBSYNC_STATE_URL: closed } });
        expect(res.code).toBe(1);
        expect(res.stderr).toContain('cannot reach the PostgreSQL state at postgres://obsync@127.0.0.1:1/postgres (schema obsync)');
        expect(res.stderr).toMatch(/hint: check state\.url \(or OBSYNC_STATE_URL\)/);
        expect(res.stdout + res.stderr).not.toContain(server.password);
      }
      expect(sandbox.requests()).toEqual([]);
    } finally {
      await sandbox.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
