/**
 * Issue 13, item 9: server-requested waits (`Retry-After: 86400`, an epoch `X-RateLimit-Reset`)
 * were obeyed without bound and in silence. Each wait is capped (a longer one fails the request
 * with a clear error), a request's total time is bounded, and every wait over 2 s is shown: a
 * line on stderr for the CLI, an info log for the daemon.
 */
import { collectionOf } from '../../src/kinds/registry.js';
import type { ChildProcess } from 'node:child_process';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/core/errors.js';
import { Secret } from '../../src/core/secret.js';
import type { SelfHostedTarget } from '../../src/core/target.js';
import { createServicePort } from '../../src/remote/index.js';
import type { WaitReport } from '../../src/remote/transport-types.js';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { assertBuilt, runCli, spawnCli } from '../support/cli.js';
import { startProxy, type Proxy } from '../support/proxy.js';
import { until } from '../support/wait.js';

let server: Server | undefined;
let hits = 0;

async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  hits = 0;
  server = createServer((req, res) => {
    hits += 1;
    req.resume();
    req.on('end', () => handler(req, res));
  });
  await new Promise<void>((r) => server?.listen(0, '127.0.0.1', () => r()));
  return `http://127.0.0.1:${(server?.address() as AddressInfo).port}`;
}

const throttled = (headers: Record<string, string>) => (_req: IncomingMessage, res: ServerResponse) =>
  res.writeHead(429, { 'content-type': 'application/json', ...headers }).end('{"message":"slow down"}');

function target(baseUrl: string, extra: Partial<SelfHostedTarget> = {}): SelfHostedTarget {
  return {
    name: 't',
    variant: 'self-hosted',
    baseUrl,
    concurrency: 2,
    timeoutMs: 5_000,
    retries: 1,
    pacing: { limit: 0, windowMs: 1000 },
    embedded: false,
    apiKey: new Secret('waits-test-key'),
    ...extra,
  };
}

async function failure(promise: Promise<unknown>): Promise<ApiError> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  return err as ApiError;
}

beforeAll(() => assertBuilt());

afterEach(async () => {
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  server = undefined;
});

describe('a server asking for a wait longer than the cap', () => {
  it.each([
    ['Retry-After in seconds', () => ({ 'retry-after': '86400' }), 'Retry-After: 86400'],
    // An HTTP date has whole seconds: the date drops up to 999 ms, so it is set 5 s past the day (86404–86405 s, never 86399).
    ['Retry-After as an HTTP date', () => ({ 'retry-after': new Date(Date.now() + 86_405_000).toUTCString() }), 'Retry-After: '],
    [
      'an epoch X-RateLimit-Reset in seconds',
      // Whole seconds too: 5 s past the day, as for the HTTP date.
      () => ({ 'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + 86_405) }),
      'X-RateLimit-Reset: ',
    ],
    ['an epoch X-RateLimit-Reset in milliseconds', () => ({ 'x-ratelimit-reset': String(Date.now() + 86_400_000) }), 'X-RateLimit-Reset: '],
  ])("fails at once with a clear error (%s), naming the request, the server's wait and the cap", async (_what, headers, header) => {
    // The headers are made when the test runs, not when it is collected: under load that can be seconds apart.
    const url = await serve(throttled(headers()));
    const port = createServicePort(target(url, { maxWaitMs: 5_000 }));
    const err = await failure(collectionOf(port, 'Dashboard').list());
    expect(err.code).toBe('WAIT_TOO_LONG');
    expect(err.message).toMatch(/^GET \/api\/v2\/dashboards: 127\.0\.0\.1:\d+ answered 429 and asked to wait 8640\d s \(/);
    expect(err.message).toContain(header);
    expect(err.message).toContain('longer than the 5 s obsync waits at most');
    expect(err.hint).toContain('maxWaitSeconds');
    expect(hits).toBe(1);
    await port.close();
  });
});

describe('a request that keeps being throttled', () => {
  it('gives up at its deadline over all attempts and waits, saying so', async () => {
    const url = await serve(throttled({ 'retry-after': '1' }));
    const port = createServicePort(target(url, { deadlineMs: 2_500 }));
    const err = await failure(collectionOf(port, 'Dashboard').list());
    expect(err.code).toBe('DEADLINE');
    expect(err.message).toMatch(
      new RegExp(
        String.raw`GET \/api\/v2\/dashboards: gave up — a further wait of 1 s \(the server asked: Retry-After: 1\) would pass ` +
          String.raw`the 3 s a request may take at most`,
      ),
    );
    expect(hits).toBeGreaterThanOrEqual(2);
    await port.close();
  });
});

describe('a server failing or not answering', () => {
  it('stops retrying 5xx answers at the deadline', async () => {
    const url = await serve((_req, res) => res.writeHead(503, { 'content-type': 'application/json' }).end('{"message":"busy"}'));
    const port = createServicePort(target(url, { retries: 10, deadlineMs: 300 }));
    const err = await failure(collectionOf(port, 'Dashboard').list());
    expect(err.code).toBe('DEADLINE');
    expect(err.message).toContain('(the server asked: retry back-off)');
    await port.close();
  });

  it("never lets one attempt outlive the request's deadline (a server that never answers)", async () => {
    const url = await serve(() => undefined);
    // Without the deadline the attempt would wait the full ten-minute per-request timeout.
    const port = createServicePort(target(url, { retries: 0, timeoutMs: 600_000, deadlineMs: 1_000 }));
    const err = await failure(collectionOf(port, 'Dashboard').list());
    expect(err.status).toBe(0);
    await port.close();
    server?.closeAllConnections();
  });
});

describe('a wait over 2 s', () => {
  it('is reported once, with its length, host and reason, and then the request succeeds', async () => {
    let calls = 0;
    const url = await serve((_req, res) =>
      ++calls === 1
        ? throttled({ 'retry-after': '3' })(_req, res)
        : res.writeHead(200, { 'content-type': 'application/json' }).end('{"data":[]}'),
    );
    const waits: WaitReport[] = [];
    const port = createServicePort(target(url), { onWait: (w) => waits.push(w) });
    expect(await collectionOf(port, 'Dashboard').list()).toEqual([]);
    expect(waits).toEqual([{ seconds: 3, host: new URL(url).host, reason: 'the server asked: Retry-After: 3' }]);
    await port.close();
  });
});

describe('waits shown by the CLI and the daemon', () => {
  let sandbox: SandboxHandle;
  let proxy: Proxy;
  let dir: string;
  let child: ChildProcess | undefined;

  async function setUp(maxWait = ''): Promise<void> {
    sandbox = await startSandbox({ port: 0, rateLimit: 'off' });
    let first = true;
    // The first request is throttled with a 3 s Retry-After; everything after passes.
    proxy = await startProxy(sandbox.url, () => {
      if (!first) return undefined;
      first = false;
      return { status: 429, headers: { 'retry-after': '3' }, body: '{"message":"Too many requests"}' };
    });
    dir = mkdtempSync(join(tmpdir(), 'obsync-hostile-waits-'));
    mkdirSync(join(dir, 'manifests'));
    writeFileSync(
      join(dir, 'manifests/d.yaml'),
      'apiVersion: obsync/v1\nkind: Dashboard\nmetadata: {name: d}\nspec: {name: D, tiles: []}\n',
    );
    writeFileSync(
      join(dir, 'obsync.yaml'),
      `apiVersion: obsync/v1\nkind: Config\nmanifests: [manifests]\ntargets:\n  - {name: s, variant: self-hosted, baseUrl: ` +
        `"${proxy.url}", credentials: {apiKey: ${sandbox.credentials.apiKey}}, rateLimit: {requests: 1000, perSeconds: 1}${maxWait}}\n`,
    );
  }

  afterEach(async () => {
    if (child && child.exitCode === null) {
      child.kill('SIGKILL');
      await new Promise((r) => child?.once('exit', r));
    }
    child = undefined;
    await proxy.close();
    await sandbox.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('plan shows the wait on stderr and goes on', async () => {
    await setUp();
    const res = await runCli(['plan'], { cwd: dir });
    expect(res.code).toBe(0);
    expect(res.stderr).toContain(
      `obsync: waiting 3 s before the next request to ${new URL(proxy.url).host} (the server asked: Retry-After: 3)`,
    );
    expect(res.stdout).toContain('+ Dashboard/d');
  });

  it('plan fails clearly when the server asks for more than maxWaitSeconds', async () => {
    await setUp(', maxWaitSeconds: 1');
    const res = await runCli(['plan'], { cwd: dir });
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(
      new RegExp(
        String.raw`error: GET \/api\/v2\/\S+: 127\.0\.0\.1:\d+ answered 429 and asked to wait 3 s \(Retry-After: 3\), longer ` +
          String.raw`than the 1 s obsync waits at most\n {2}hint: try again later, or raise maxWaitSeconds on the target in ` +
          String.raw`obsync\.yaml`,
      ),
    );
  });

  it('the daemon logs the wait at info', async () => {
    await setUp();
    let output = '';
    child = spawnCli(['run', '--listen', '127.0.0.1:0', '--no-watch'], { cwd: dir });
    child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
    await until(
      'the wait in the log',
      () =>
        new RegExp(
          String.raw`"level":"info".*"seconds":3,"server\.address":"127\.0\.0\.1","server\.port":\d+,"reason":"the server asked: ` +
            String.raw`Retry-After: 3","msg":"rate limit wait"`,
        ).test(output)
          ? true
          : undefined,
      { context: () => output },
    );
    await until('the run to finish', () => (/"msg":"run finished"/.test(output) ? true : undefined), { context: () => output });
  });
});
