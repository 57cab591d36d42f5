/**
 * Two `obsync run` daemons on one target with the state in PostgreSQL: one leads, the other is
 * standby (live, ready, silent). The leader is SIGKILLed in the middle of a run; the standby
 * takes over and converges. Each daemon reaches the sandbox through its own loopback proxy, so
 * the shared request log says who sent what: no write from the standby while the leader lived,
 * no interleaving, no duplicate object. Repeated OBSYNC_FAILOVER_RUNS times (default 2; the
 * acceptance run uses 10).
 */
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { assertBuilt, spawnCli } from '../support/cli.js';
import { startPostgres, type PgServer } from '../support/postgres.js';
import { httpStatus, until, untilListening } from '../support/wait.js';

const COUNT = 30;
const RUNS = Number(process.env.OBSYNC_FAILOVER_RUNS ?? 2);
let server: PgServer;

interface Logged {
  who: string;
  method: string;
  path: string;
}

beforeAll(async () => {
  assertBuilt();
  server = await startPostgres();
});
afterAll(async () => {
  await server.close();
});

/** Requests wait at the gate until both daemons are up, so the test sees the whole first run. */
interface Gate {
  opened: Promise<void>;
  open(): void;
}

function gate(): Gate {
  let open = () => undefined as void;
  const opened = new Promise<void>((r) => (open = r));
  return { opened, open };
}

function startProxy(who: string, upstream: string, log: Logged[], door: Gate): Promise<Server> {
  const proxy = createServer((req, res) => {
    req.pause();
    void door.opened.then(() => forward(who, upstream, log, req, res));
  });
  return new Promise((resolve) => proxy.listen(0, '127.0.0.1', () => resolve(proxy)));
}

function forward(who: string, upstream: string, log: Logged[], req: IncomingMessage, res: ServerResponse): void {
  {
    log.push({ who, method: req.method ?? 'GET', path: req.url ?? '/' });
    const up = request(new URL(req.url ?? '/', upstream), { method: req.method, headers: req.headers }, (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
    });
    up.on('error', () => res.destroy());
    req.pipe(up);
    req.resume();
  }
}

function url(s: Server): string {
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
}

function project(dir: string, sandbox: SandboxHandle, schema: string): void {
  mkdirSync(join(dir, 'manifests'), { recursive: true });
  const docs: string[] = [];
  for (let i = 0; i < COUNT; i++) {
    docs.push(
      `apiVersion: obsync/v1
kind: Dashboard
metadata: {name: fo-${i}}
spec:
  name: Failover ${i}
  tiles:
    - {key: lat, name: Latency, x: 0, y: 0, w: 12, h: 4, config: {displayType: line, source: Traces, select: [{aggFn: avg, ` +
        `valueExpression: Duration}]}}`,
    );
  }
  writeFileSync(join(dir, 'manifests/all.yaml'), docs.join('\n---\n') + '\n');
  writeFileSync(
    join(dir, 'obsync.yaml'),
    `apiVersion: obsync/v1\nkind: Config\nmanifests: [manifests]\nstate: {backend: postgres, url: "\${env:OBSYNC_STATE_URL}", schema: ` +
      `${schema}, leaseSeconds: 2}\ntargets:\n  - {name: sb, variant: self-hosted, baseUrl: "${sandbox.url}", credentials: {apiKey: ` +
      `${sandbox.credentials.apiKey}}, rateLimit: {requests: 1000, perSeconds: 1}, retries: 0}\n`,
  );
}

async function leaderGauge(listen: string): Promise<number | undefined> {
  try {
    const text = await (await fetch(`http://${listen}/metrics`)).text();
    const m = /^obsync_leader\{target="sb"\} (\d)/m.exec(text);
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}

async function failoverOnce(round: number): Promise<void> {
  const sandbox = await startSandbox({ port: 0, rateLimit: 'off', faults: { latencyMs: 60 } });
  const dir = mkdtempSync(join(tmpdir(), 'obsync-failover-'));
  const schema = server.freshSchema('fo');
  const log: Logged[] = [];
  const door = gate();
  const proxies = await Promise.all(['a', 'b'].map((who) => startProxy(who, sandbox.url, log, door)));
  const children: ChildProcess[] = [];
  const output: Record<string, string> = { a: '', b: '' };
  try {
    project(dir, sandbox, schema);
    const daemons = await Promise.all(
      (['a', 'b'] as const).map(async (who, i) => {
        const proxy = proxies[i];
        if (!proxy) throw new Error('proxy missing');
        const child = spawnCli(['run', '--listen', '127.0.0.1:0', '--no-watch', '--schedule', '*/5 * * * *', '--concurrency', '1'], {
          cwd: dir,
          env: { OBSYNC_STATE_URL: server.url, OBSYNC_BASE_URL: url(proxy) },
        });
        child.stdout?.on('data', (d: Buffer) => (output[who] += d.toString()));
        child.stderr?.on('data', (d: Buffer) => (output[who] += d.toString()));
        children.push(child);
        // The daemon takes a free port itself and logs it: host:port, as /metrics and /readyz are read below.
        const listen = new URL(await untilListening(() => output[who] ?? '', `the address daemon ${who} listens on`)).host;
        return { who, listen, child };
      }),
    );
    const context = () => `round ${round}\n--- a ---\n${output.a?.slice(-3000)}\n--- b ---\n${output.b?.slice(-3000)}`;
    const writes = (who: string) => log.filter((r) => r.who === who && r.method !== 'GET').length;
    // Both up, one elected; then the service opens.
    const gauges = () => Promise.all(daemons.map((d) => leaderGauge(d.listen)));
    await until('both daemons up, one leading', async () => ((await gauges()).sort().join() === '0,1' ? true : undefined), {
      timeoutMs: 60_000,
      context,
    });
    door.open();
    // One leads and writes; the other stands by, ready, and sends nothing.
    const leader = await until(
      'a leader writing',
      async () => {
        for (const d of daemons) if ((await leaderGauge(d.listen)) === 1 && writes(d.who) >= 5) return d;
        return undefined;
      },
      { timeoutMs: 60_000, context },
    );
    const standby = daemons.find((d) => d !== leader);
    if (!standby) throw new Error('no standby');
    expect(await leaderGauge(standby.listen)).toBe(0);
    expect(await httpStatus(`http://${standby.listen}/readyz`)).toBe(200);
    expect(log.filter((r) => r.who === standby.who)).toEqual([]);
    expect(writes(leader.who)).toBeLessThan(COUNT);

    const exited = new Promise((r) => leader.child.once('exit', r));
    leader.child.kill('SIGKILL');
    await exited;
    const killedAt = log.length;

    await until('the standby to take over', async () => ((await leaderGauge(standby.listen)) === 1 ? true : undefined), {
      timeoutMs: 60_000,
      context,
    });
    await until('convergence', () => (/"result":"success".*"msg":"run finished"/.test(output[standby.who] ?? '') ? true : undefined), {
      timeoutMs: 60_000,
      context,
    });

    const res = await fetch(`${sandbox.url}/api/v2/dashboards`, { headers: { authorization: `Bearer ${sandbox.credentials.apiKey}` } });
    const names = ((await res.json()) as { data: { name: string }[] }).data.map((d) => d.name).filter((n) => n.startsWith('Failover'));
    expect(names.length, context()).toBe(COUNT);
    expect(new Set(names).size).toBe(COUNT);
    // No interleaving: every request of the successor comes after the last of the killed leader.
    const firstOfSuccessor = log.findIndex((r) => r.who === standby.who);
    const lastOfLeader = log.map((r) => r.who).lastIndexOf(leader.who);
    expect(firstOfSuccessor).toBeGreaterThan(lastOfLeader);
    expect(firstOfSuccessor).toBeGreaterThanOrEqual(killedAt);

    const client = new pg.Client({ connectionString: server.url });
    await client.connect();
    const rows = (await client.query<{ entry: { status: string } }>(`SELECT entry FROM "${schema}".entries`)).rows;
    await client.end();
    expect(rows.filter((r) => r.entry.status === 'owned')).toHaveLength(COUNT);
    for (const text of Object.values(output)) expect(text).not.toContain(server.password);
  } finally {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    await Promise.all(
      children.filter((c) => c.exitCode === null && c.signalCode === null).map((c) => new Promise((r) => c.once('exit', r))),
    );
    await Promise.all(proxies.map((p) => new Promise((r) => p.close(r))));
    await sandbox.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('daemon replicas on a PostgreSQL state', () => {
  it(`fail over when the leader is SIGKILLed mid-run, with no interleaved writes and no duplicates (${RUNS}×)`, {
    timeout: 150_000 * RUNS,
  }, async () => {
    for (let round = 1; round <= RUNS; round++) await failoverOnce(round);
  });
});
