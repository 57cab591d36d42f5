/**
 * Issue 24 item 6 (responses, proxies), part of 10 (redirects, web pages, proxy blame) and issue
 * 30 (connection refused): what a hostile or broken server or proxy sends is bounded, fails fast
 * where waiting cannot help, and is blamed on the right party. Everything listens on loopback.
 */
import { connect, createServer as createTcpServer, type AddressInfo, type Server as TcpServer, type Socket } from 'node:net';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AmbiguousWriteError, ApiError } from '../../src/core/errors.js';
import { Secret } from '../../src/core/secret.js';
import type { SelfHostedTarget } from '../../src/core/target.js';
import { collectionOf } from '../../src/kinds/registry.js';
import { createServicePort } from '../../src/remote/index.js';
import type { WaitReport } from '../../src/remote/transport-types.js';
import { assertBuilt, runCli, spawnCli } from '../support/cli.js';
import { until } from '../support/wait.js';

/** Port 1 (tcpmux) on loopback: nothing listens there, so a connection is refused (checked in beforeAll). */
const REFUSED = 'http://127.0.0.1:1';
const MiB = 1024 * 1024;

let refusedChecked: string | null = null;
const servers: (Server | TcpServer)[] = [];
const dirs: string[] = [];

beforeAll(async () => {
  assertBuilt();
  refusedChecked = await new Promise<string | null>((resolve) => {
    const socket = connect(1, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve('something listens on 127.0.0.1:1 on this machine');
    });
    socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'ECONNREFUSED' ? null : `127.0.0.1:1 gave ${err.code}`));
  });
});

afterEach(async () => {
  for (const s of servers.splice(0)) {
    if ('closeAllConnections' in s) s.closeAllConnections();
    await new Promise<void>((r) => s.close(() => r()));
  }
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => handler(req, res));
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function target(baseUrl: string, extra: Partial<SelfHostedTarget> = {}): SelfHostedTarget {
  return {
    name: 't',
    variant: 'self-hosted',
    baseUrl,
    concurrency: 4,
    timeoutMs: 10_000,
    retries: 2,
    pacing: { limit: 0, windowMs: 1000 },
    embedded: false,
    apiKey: new Secret('bounds-test-key'),
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

/** A project whose one self-hosted target is `baseUrl`, with a dashboard manifest. */
function project(baseUrl: string, targetExtra = ''): string {
  const dir = mkdtempSync(join(tmpdir(), 'obsync-bounds-net-'));
  dirs.push(dir);
  mkdirSync(join(dir, 'manifests'));
  writeFileSync(join(dir, 'manifests/d.yaml'), 'apiVersion: obsync/v1\nkind: Dashboard\nmetadata: {name: d}\nspec: {name: D, tiles: []}\n');
  writeFileSync(
    join(dir, 'obsync.yaml'),
    `apiVersion: obsync/v1\nkind: Config\nmanifests: [manifests]\ntargets:\n  - {name: s, variant: self-hosted, baseUrl: "${baseUrl}", ` +
      `credentials: {apiKey: k-bounds-test}${targetExtra}}\n`,
  );
  return dir;
}

describe('response bodies are bounded', () => {
  it('a body past the cap (32 MiB by default) fails its request while it streams in, naming the request and the setting', async () => {
    let written = 0;
    let ended = false;
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(256 * 1024, 0x20);
      // An endless body: a client that buffered it whole would never finish.
      const pump = () => {
        while (!ended && written < 256 * MiB) {
          written += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      res.once('close', () => (ended = true));
      pump();
    });
    const port = createServicePort(target(url));
    const err = await failure(collectionOf(port, 'Dashboard').list());
    await port.close();
    expect(err.code).toBe('RESPONSE_TOO_LARGE');
    expect(err.message).toMatch(
      new RegExp(
        String.raw`^GET \/api\/v2\/dashboards on 127\.0\.0\.1:\d+: the response is more than 32 MiB, larger than the 32 MiB ` +
          String.raw`obsync reads \(maxResponseMiB\); reading stopped$`,
      ),
    );
    expect(err.hint).toMatch(/raise maxResponseMiB on the target in obsync\.yaml/);
    await until('the server to see the client go', () => (ended ? true : undefined));
    // Reading stopped at the cap: what the server got rid of is the cap plus the socket buffers, not the endless rest.
    expect(written).toBeLessThan(64 * MiB);
    expect(port.stats.retries).toBe(0);
  });

  it('a Content-Length past the cap fails before the body is read', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(60 * MiB) });
      res.write('{"data": [');
      // The rest never comes: only the announced size can end this request.
    });
    const port = createServicePort(target(url, { maxResponseBytes: 4 * MiB }));
    const err = await failure(collectionOf(port, 'Source').list());
    await port.close();
    expect(err.code).toBe('RESPONSE_TOO_LARGE');
    expect(err.message).toContain('the response is 60 MiB (Content-Length), larger than the 4 MiB obsync reads (maxResponseMiB)');
  });

  it("a write's answer past the cap leaves its outcome unknown (it was received), never a plain failure", async () => {
    const url = await serve((_req, res) =>
      res.writeHead(201, { 'content-type': 'application/json' }).end(`{"data":"${'x'.repeat(2 * MiB)}"}`),
    );
    const port = createServicePort(target(url, { maxResponseBytes: MiB }));
    const err = await failure(collectionOf(port, 'Dashboard').create({ name: 'x', tiles: [] }));
    await port.close();
    expect(err).toBeInstanceOf(AmbiguousWriteError);
    expect(err.message).toContain('larger than the 1 MiB obsync reads (maxResponseMiB); reading stopped; the write was received');
  });

  it('a large body under the cap is read whole, announced or streamed in pieces', async () => {
    const name = 'é'.repeat(1.5 * MiB);
    const body = Buffer.from(JSON.stringify({ data: [{ id: 'a', name, tiles: [] }], meta: { total: 1 } }));
    let answered = 0;
    const url = await serve((_req, res) => {
      const announced = answered++ % 2 === 0;
      res.writeHead(200, { 'content-type': 'application/json', ...(announced ? { 'content-length': String(body.length) } : {}) });
      for (let at = 0; at < body.length; at += 50_000) res.write(body.subarray(at, at + 50_000));
      res.end();
    });
    const port = createServicePort(target(url));
    const dashboards = collectionOf(port, 'Dashboard');
    for (const _read of ['announced', 'streamed']) {
      const got = (await dashboards.list()) as { name: string }[];
      expect(got.map((d) => d.name === name)).toEqual([true]);
    }
    await port.close();
    expect(answered).toBe(2);
  });

  it('maxResponseMiB in obsync.yaml sets the cap', async () => {
    const url = await serve((req, res) => {
      const big = req.url?.startsWith('/api/v2/dashboards') ? [{ id: 'a', name: 'x'.repeat(3 * MiB), tiles: [] }] : [];
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data: big, meta: { total: big.length } }));
    });
    const dir = project(url, ', maxResponseMiB: 2');
    const res = await runCli(['plan'], { cwd: dir });
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/GET \/api\/v2\/dashboards on 127\.0\.0\.1:\d+: the response is more than 2 MiB, larger than the 2 MiB/);
  });
});

describe('redirects and web pages are named for what they are', () => {
  it('a 3xx names the redirect and where it points (never its query), and that obsync does not follow it', async () => {
    const url = await serve((_req, res) =>
      res.writeHead(302, { location: 'https://sso.example.invalid/login?session=s3cr3t-token&next=/api' }).end(),
    );
    const port = createServicePort(target(url));
    const err = await failure(collectionOf(port, 'Dashboard').list());
    await port.close();
    expect(err.code).toBe('API_REDIRECT');
    expect(err.message).toMatch(
      new RegExp(
        String.raw`^GET \/api\/v2\/dashboards on 127\.0\.0\.1:\d+: the server answered HTTP 302, a redirect to ` +
          String.raw`https:\/\/sso\.example\.invalid\/login; obsync does not follow redirects for API calls$`,
      ),
    );
    expect(err.hint).toMatch(/set the target baseUrl/);
    expect(`${err.message} ${err.hint ?? ''} ${err.bodyExcerpt}`).not.toContain('s3cr3t-token');
  });

  it('a relative redirect (http:// to the same host) says where', async () => {
    const url = await serve((_req, res) => res.writeHead(308, { location: '/v2/api/dashboards' }).end());
    const port = createServicePort(target(url));
    const err = await failure(collectionOf(port, 'Dashboard').get('abc'));
    await port.close();
    expect(err.message).toContain('answered HTTP 308, a redirect to /v2/api/dashboards; obsync does not follow redirects');
  });

  it('a 200 with an HTML page says the server answered HTML, probably not the API', async () => {
    const url = await serve((_req, res) =>
      res
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        .end('<!doctype html><html><head><title>Sign in – Observability</title></head><body>…</body></html>'),
    );
    const port = createServicePort(target(url));
    const err = await failure(collectionOf(port, 'Dashboard').list());
    await port.close();
    expect(err.code).toBe('API_HTML');
    expect(err.message).toMatch(
      new RegExp(
        String.raw`^GET \/api\/v2\/dashboards on 127\.0\.0\.1:\d+: the server answered HTTP 200 with an HTML page \("Sign in – ` +
          String.raw`Observability"\), not the API's JSON — probably not the API$`,
      ),
    );
    expect(err.hint).toMatch(/check the target baseUrl/);
  });

  it('an error page in HTML (a gateway 502) is named as a page, not pasted as markup', async () => {
    const url = await serve((_req, res) =>
      res
        .writeHead(502, { 'content-type': 'text/html' })
        .end('<html><head><title>502 Bad Gateway</title></head><body><center>nginx</center></body></html>'),
    );
    const port = createServicePort(target(url, { retries: 0 }));
    const err = await failure(collectionOf(port, 'Dashboard').list());
    await port.close();
    expect(err.message).toMatch(/failed: HTTP 502 — an HTML page \("502 Bad Gateway"\)$/);
  });
});

describe('a service that refuses connections', () => {
  it('fails at once: no retry, no wait for a pacing slot, an error naming the address', async (ctx) => {
    if (refusedChecked) ctx.skip();
    const waits: WaitReport[] = [];
    // Four requests a minute for four lists: any retry would have to wait for a slot (and say so).
    const port = createServicePort(target(REFUSED, { retries: 3, pacing: { limit: 4, windowMs: 60_000 } }), {
      onWait: (w) => waits.push(w),
    });
    const lists = await Promise.allSettled(
      ['Dashboard', 'Alert', 'Webhook', 'Source'].map((k) => collectionOf(port, k as 'Dashboard').list()),
    );
    await port.close();
    for (const l of lists) {
      expect(l.status).toBe('rejected');
      const err = (l as PromiseRejectedResult).reason as ApiError;
      expect(err.code).toBe('CONNECTION_REFUSED');
      expect(err.message).toMatch(/failed: connection refused — nothing listens at http:\/\/127\.0\.0\.1:1; the request was not sent$/);
      expect(err.hint).toBe('check the target baseUrl (host and port) and that the service is running');
    }
    expect(port.stats.retries).toBe(0);
    expect(waits).toEqual([]);
  });

  it('plan prints the error and nothing after it', async (ctx) => {
    if (refusedChecked) ctx.skip();
    const res = await runCli(['plan'], { cwd: project(REFUSED) });
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(
      new RegExp(
        String.raw`^error: GET \/api\/v2\/\S+ on 127\.0\.0\.1:1 failed: connection refused — nothing listens at ` +
          String.raw`http:\/\/127\.0\.0\.1:1; the request was not sent\n {2}hint: check the target baseUrl \(host and port\) and ` +
          String.raw`that the service is running\n$`,
      ),
    );
  });
});

describe('a run that fails while other requests wait for the rate limit', () => {
  it('ends them with it: no wait line after the error, and the command exits', async () => {
    // Every request fails at once; the others of the same plan wait a minute for a pacing slot.
    const url = await serve((_req, res) => res.writeHead(400, { 'content-type': 'application/json' }).end('{"message":"bad request"}'));
    const res = await runCli(['plan'], { cwd: project(url, ', rateLimit: {requests: 1, perSeconds: 60}') });
    expect(res.code).toBe(1);
    const lines = res.stderr.trimEnd().split('\n');
    const error = lines.findIndex((l) => l.startsWith('error: '));
    expect(error, res.stderr).toBeGreaterThanOrEqual(0);
    expect(lines.slice(error + 1).filter((l) => !l.startsWith('  hint: '))).toEqual([]);
  });

  it('a closed client ends requests waiting for a slot at once and reports no further wait', async () => {
    const url = await serve((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"data":[]}'));
    const waits: WaitReport[] = [];
    const port = createServicePort(target(url, { pacing: { limit: 1, windowMs: 60_000 } }), { onWait: (w) => waits.push(w) });
    await collectionOf(port, 'Dashboard').list();
    const waiting = collectionOf(port, 'Source')
      .list()
      .then(
        () => null,
        (e: unknown) => e,
      );
    await until('the second list to wait', () => (waits.length === 1 ? true : undefined));
    await port.close();
    expect(String(await waiting)).toMatch(/the connection to 127\.0\.0\.1:\d+ was closed/);
    expect(waits).toHaveLength(1);
  });
});

/** A TCP server that plays a proxy going wrong: `reset` resets every connection once the CONNECT arrives, `close` closes it. */
async function brokenProxy(how: 'reset' | 'close'): Promise<{ url: string; connections: () => number }> {
  let connections = 0;
  const server = createTcpServer((socket: Socket) => {
    connections += 1;
    socket.on('error', () => undefined);
    socket.once('data', () => (how === 'reset' ? socket.resetAndDestroy() : socket.destroy()));
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, connections: () => connections };
}

describe('a proxy that fails', () => {
  it.each(['reset', 'close'] as const)(
    'one that %ss the CONNECT: a few attempts with back-off (never a busy loop), blamed on the proxy',
    async (how) => {
      const service = await serve((_req, res) => res.writeHead(500).end());
      const proxy = await brokenProxy(how);
      // Eight requests a minute, more than the lists take at once: attempts that never reached the service must not spend them.
      const dir = project(service, ', retries: 2, rateLimit: {requests: 8, perSeconds: 60}');
      const child = spawnCli(['plan'], { cwd: dir, env: { HTTP_PROXY: proxy.url, OBSYNC_API_KEY: 'k' } });
      let stderr = '';
      child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
      const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
      let code: number | null | undefined;
      void exited.then((c) => (code = c));
      // undici 7 alone reconnects in a tight loop, thousands of times a second, for ever.
      await until('the command to end, or a reconnect loop', () => (code !== undefined || proxy.connections() > 200 ? true : undefined), {
        timeoutMs: 45_000,
        context: () => stderr,
      });
      if (code === undefined) child.kill('SIGKILL');
      expect(proxy.connections()).toBeLessThanOrEqual(6 * 3); // six lists, three attempts each at most
      expect(await exited).toBe(1);
      expect(stderr).toMatch(
        new RegExp(
          String.raw`error: GET \/api\/v2\/\S+ on 127\.0\.0\.1:\d+ failed: the proxy closed or reset the connection before the ` +
            String.raw`tunnel was set up \(\w+\); the request was not sent`,
        ),
      );
      expect(stderr).toMatch(/hint: check HTTPS_PROXY \/ HTTP_PROXY .* the service itself was not reached/);
      expect(stderr).not.toMatch(/waiting/);
    },
  );

  it('one that refuses the connection: blamed on the proxy at once, not on the service', async (ctx) => {
    if (refusedChecked) ctx.skip();
    const service = await serve((_req, res) => res.writeHead(500).end());
    const res = await runCli(['plan'], { cwd: project(service), env: { HTTP_PROXY: REFUSED } });
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(
      new RegExp(
        String.raw`^error: GET \/api\/v2\/\S+ on 127\.0\.0\.1:\d+ failed: the proxy refused the connection \(nothing listens at ` +
          String.raw`the proxy address\); the request was not sent\n {2}hint: check HTTPS_PROXY \/ HTTP_PROXY .* the service ` +
          String.raw`itself was not reached\n$`,
      ),
    );
    expect(res.stderr).not.toMatch(/nothing listens at http:\/\/127\.0\.0\.1:\d+;/);
  });
});
