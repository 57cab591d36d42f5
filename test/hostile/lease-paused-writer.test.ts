/**
 * Issue 24, item 1: a writer paused past its lease (SIGSTOP: a long GC, a frozen VM) sends
 * nothing when it resumes. `obsync apply` A runs against a slow sandbox with its updates queued
 * behind the rate limit; it is stopped right after its first write, its lease expires, apply B
 * takes the target over and applies everything; then A is continued. Each process reaches the
 * sandbox through its own loopback proxy, so the log says who sent what: nothing from A after it
 * resumed, and A ends with the lost lease as its error. Both state backends.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { assertBuilt, runCli, spawnCli } from '../support/cli.js';
import { startPostgres, type PgServer } from '../support/postgres.js';
import { sandboxDashboards, until } from '../support/wait.js';

const COUNT = 6;
let postgres: PgServer;

beforeAll(async () => {
  assertBuilt();
  postgres = await startPostgres();
});
afterAll(async () => {
  await postgres.close();
});

interface Logged {
  who: string;
  method: string;
  path: string;
}

function startProxy(who: string, upstream: string, log: Logged[]): Promise<Server> {
  const proxy = createServer((req: IncomingMessage, res: ServerResponse) => {
    log.push({ who, method: req.method ?? 'GET', path: req.url ?? '/' });
    const up = request(new URL(req.url ?? '/', upstream), { method: req.method, headers: req.headers }, (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
    });
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  return new Promise((resolve) => proxy.listen(0, '127.0.0.1', () => resolve(proxy)));
}

function proxyUrl(s: Server): string {
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
}

function writeManifests(dir: string, version: string): void {
  const docs = Array.from(
    { length: COUNT },
    (_, i) =>
      `apiVersion: obsync/v1
kind: Dashboard
metadata: {name: paused-${i}}
spec:
  name: Paused ${i}
  tags: [${version}]
  tiles:
    - {key: lat, name: Latency, x: 0, y: 0, w: 12, h: 4, config: {displayType: line, source: Traces, select: [{aggFn: avg, ` +
      `valueExpression: Duration}]}}`,
  );
  writeFileSync(join(dir, 'manifests/all.yaml'), docs.join('\n---\n') + '\n');
}

interface Backend {
  name: string;
  /** The state: section of obsync.yaml and the environment both processes run with. */
  state(dir: string): { yaml: string; env: Record<string, string> };
  /** Whether the target's lease has run out (the next writer may take it). */
  leaseExpired(dir: string): Promise<boolean>;
}

const fileBackend: Backend = {
  name: 'file',
  state: () => ({ yaml: '{backend: file, path: state, leaseSeconds: 2}', env: {} }),
  leaseExpired: (dir) => {
    const lock = JSON.parse(readFileSync(join(dir, 'state/sb.lock'), 'utf8')) as { expiresAt: string };
    return Promise.resolve(Date.parse(lock.expiresAt) < Date.now());
  },
};

function postgresBackend(): Backend {
  const schemas = new Map<string, string>();
  return {
    name: 'postgres',
    state: (dir) => {
      const schema = postgres.freshSchema('paused');
      schemas.set(dir, schema);
      return {
        yaml: `{backend: postgres, url: "\${env:OBSYNC_STATE_URL}", schema: ${schema}, leaseSeconds: 2}`,
        env: { OBSYNC_STATE_URL: postgres.url },
      };
    },
    leaseExpired: async (dir) => {
      const client = new pg.Client({ connectionString: postgres.url });
      await client.connect();
      try {
        const { rows } = await client.query<{ expired: boolean }>(
          `SELECT expires_at <= now() AS expired FROM "${schemas.get(dir) ?? ''}".leases WHERE target = 'sb'`,
        );
        return rows[0]?.expired ?? true;
      } finally {
        await client.end();
      }
    },
  };
}

async function pausedWriter(backend: Backend): Promise<void> {
  const sandbox: SandboxHandle = await startSandbox({ port: 0, rateLimit: 'off' });
  const dir = mkdtempSync(join(tmpdir(), `obsync-paused-${backend.name}-`));
  const log: Logged[] = [];
  const proxies = await Promise.all(['a', 'b'].map((who) => startProxy(who, sandbox.url, log)));
  const [proxyA, proxyB] = proxies as [Server, Server];
  let a: ReturnType<typeof spawnCli> | undefined;
  try {
    mkdirSync(join(dir, 'manifests'));
    const { yaml, env } = backend.state(dir);
    const config = (requests: number) =>
      `apiVersion: obsync/v1\nkind: Config\nmanifests: [manifests]\nstate: ${yaml}\ntargets:\n  - {name: sb, variant: self-hosted, ` +
      `baseUrl: "${sandbox.url}", credentials: {apiKey: ${sandbox.credentials.apiKey}}, rateLimit: {requests: ${requests}, ` +
      `perSeconds: 1}, retries: 0}\n`;
    // A: two requests a second, so its updates wait in the rate limit, where a paused process keeps them.
    writeFileSync(join(dir, 'obsync.yaml'), config(2));
    writeFileSync(join(dir, 'fast.yaml'), config(1000));
    writeManifests(dir, 'v1');
    const setup = await runCli(['apply', '--auto-approve', '--config', 'fast.yaml'], { cwd: dir, env });
    expect(setup.code, setup.stderr).toBe(0);

    writeManifests(dir, 'v2');
    sandbox.faults.set({ latencyMs: 300 });
    let outputA = '';
    a = spawnCli(['apply', '--auto-approve', '--concurrency', '4'], { cwd: dir, env: { ...env, OBSYNC_BASE_URL: proxyUrl(proxyA) } });
    a.stdout?.on('data', (d: Buffer) => (outputA += d.toString()));
    a.stderr?.on('data', (d: Buffer) => (outputA += d.toString()));
    const child = a;
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const writesOf = (who: string) => log.filter((r) => r.who === who && r.method !== 'GET');
    await until('the first write of A', () => (writesOf('a').length > 0 ? true : undefined), { context: () => outputA });
    child.kill('SIGSTOP');

    await until('the lease of A to run out', async () => ((await backend.leaseExpired(dir)) ? true : undefined), {
      context: () => outputA,
    });
    // Counted now, not at the stop: a write A had already put on the wire (two slots free at once)
    // reaches the proxy after the signal, and was sent before the pause. A stopped process sends
    // nothing more, so from here on every write of A is one it sent after resuming.
    const writesBeforePause = writesOf('a').length;
    const takeover = await runCli(['apply', '--auto-approve', '--config', 'fast.yaml'], {
      cwd: dir,
      env: { ...env, OBSYNC_BASE_URL: proxyUrl(proxyB) },
    });
    expect(takeover.code, takeover.stderr).toBe(0);
    expect(writesOf('b').length).toBeGreaterThan(0);

    child.kill('SIGCONT');
    const code = await exited;
    a = undefined;
    expect(writesOf('a'), `A wrote after it resumed:\n${outputA}`).toHaveLength(writesBeforePause);
    expect(code).toBe(1);
    expect(outputA).toMatch(/lost the writer lease on target 'sb'/);
    // What B applied stands.
    const dashboards = (await sandboxDashboards(sandbox)).filter((d) => d.name.startsWith('Paused'));
    expect(dashboards).toHaveLength(COUNT);
    for (const d of dashboards) expect(d.tags).toEqual(['v2']);
  } finally {
    if (a && a.exitCode === null) {
      a.kill('SIGCONT');
      a.kill('SIGKILL');
    }
    await Promise.all(proxies.map((p) => new Promise((r) => p.close(r))));
    await sandbox.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('a writer paused past its lease', () => {
  it.each([fileBackend, postgresBackend()])('sends nothing after it resumes ($name state)', { timeout: 120_000 }, (backend) =>
    pausedWriter(backend),
  );
});
