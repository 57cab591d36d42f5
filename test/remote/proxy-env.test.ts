/**
 * HTTP_PROXY / HTTPS_PROXY / NO_PROXY (and their lowercase forms) as a user sets them: `obsync plan`
 * as a child process reaches the sandbox through a recording proxy on loopback, or directly when
 * NO_PROXY lists the host. The proxy only ever connects to 127.0.0.1.
 */
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { assertBuilt, cliInChildProcesses, runCli } from '../support/cli.js';
import { httpsFront, makePki, opensslMissing, type HttpsFront, type TestPki } from '../hostile/tls-cert.js';

// Node reads NODE_EXTRA_CA_CERTS when a process starts.
cliInChildProcesses();

interface Seen {
  method: string;
  target: string;
  proxyAuthorization: string | undefined;
}

interface LoopbackProxy {
  url: string;
  seen: Seen[];
  close(): Promise<void>;
}

const LOOPBACK = /^127\.0\.0\.1:\d+$/;

/** A forward proxy (CONNECT tunnels and absolute-form requests) that records what it is asked and refuses any host but 127.0.0.1. */
async function startProxy(opts: { requireAuth?: string } = {}): Promise<LoopbackProxy> {
  const seen: Seen[] = [];
  const sockets = new Set<Socket>();
  const refused = (auth: string | undefined) => opts.requireAuth !== undefined && auth !== opts.requireAuth;
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/');
    seen.push({ method: req.method ?? '', target: url.host, proxyAuthorization: req.headers['proxy-authorization'] });
    if (!LOOPBACK.test(url.host)) return res.writeHead(403).end();
    if (refused(req.headers['proxy-authorization'])) return res.writeHead(407).end();
    const forward = httpRequest(
      { host: url.hostname, port: url.port, path: url.pathname + url.search, method: req.method, headers: req.headers },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    req.pipe(forward);
  });
  server.on('connect', (req, client: Socket, head: Buffer) => {
    const target = req.url ?? '';
    seen.push({ method: 'CONNECT', target, proxyAuthorization: req.headers['proxy-authorization'] });
    if (!LOOPBACK.test(target)) return client.end('HTTP/1.1 403 Forbidden\r\n\r\n');
    if (refused(req.headers['proxy-authorization'])) return client.end('HTTP/1.1 407 Proxy Authentication Required\r\n\r\n');
    const [host, port] = target.split(':');
    const upstream = connect(Number(port), host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => undefined);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

let sandbox: SandboxHandle;
let proxy: LoopbackProxy;
let dir: string;

function writeConfig(baseUrl: string): void {
  writeFileSync(
    join(dir, 'obsync.yaml'),
    `apiVersion: obsync/v1\nkind: Config\nmanifests: [manifests]\ntargets:\n  - {name: sb, variant: self-hosted, baseUrl: "${baseUrl}", ` +
      `retries: 0, timeoutSeconds: 5}\n`,
  );
}

const plan = (env: Record<string, string>) => runCli(['plan'], { cwd: dir, env: { OBSYNC_API_KEY: sandbox.credentials.apiKey, ...env } });
const sandboxHost = () => new URL(sandbox.url).host;

beforeAll(async () => {
  assertBuilt();
  sandbox = await startSandbox({ port: 0, rateLimit: 'off' });
});

afterAll(async () => {
  await sandbox.close();
});

beforeEach(async () => {
  proxy = await startProxy();
  dir = mkdtempSync(join(tmpdir(), 'obsync-proxy-'));
  cpSync('config-examples/team/dashboards', join(dir, 'manifests'), { recursive: true });
  writeConfig(sandbox.url);
});

afterEach(async () => {
  await proxy.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('proxies from the environment', () => {
  it('sends every request for an http:// target through HTTP_PROXY', async () => {
    const res = await plan({ HTTP_PROXY: proxy.url });
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/Dashboard\/checkout/);
    expect(proxy.seen.length).toBeGreaterThan(0);
    expect(proxy.seen.every((s) => s.target === sandboxHost())).toBe(true);
  });

  it('honours the lowercase http_proxy, which wins over HTTP_PROXY', async () => {
    const res = await plan({ http_proxy: proxy.url, HTTP_PROXY: 'http://127.0.0.1:9' });
    expect(res.code).toBe(0);
    expect(proxy.seen.length).toBeGreaterThan(0);
  });

  it('goes direct when NO_PROXY lists the host (no_proxy too)', async () => {
    for (const name of ['NO_PROXY', 'no_proxy']) {
      const res = await plan({ HTTP_PROXY: proxy.url, [name]: 'example.invalid,127.0.0.1' });
      expect(res.code).toBe(0);
      expect(res.stdout).toMatch(/Dashboard\/checkout/);
    }
    expect(proxy.seen).toEqual([]);
  });

  it('does not use HTTPS_PROXY for an http:// target', async () => {
    const res = await plan({ HTTPS_PROXY: proxy.url });
    expect(res.code).toBe(0);
    expect(proxy.seen).toEqual([]);
  });

  it('sends the proxy credentials of the URL to the proxy only, and never prints them', async () => {
    await proxy.close();
    proxy = await startProxy({ requireAuth: `Basic ${Buffer.from('corp-user:corp-proxy-pass').toString('base64')}` });
    const withCredentials = proxy.url.replace('http://', 'http://corp-user:corp-proxy-pass@');
    const ok = await plan({ HTTP_PROXY: withCredentials });
    expect(ok.code).toBe(0);
    expect(proxy.seen.every((s) => s.proxyAuthorization !== undefined)).toBe(true);

    const refused = await plan({ HTTP_PROXY: proxy.url.replace('http://', 'http://corp-user:wrong-pass@') });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/the proxy answered 407 to CONNECT; the request was not sent/);
    expect(refused.stderr).toMatch(/hint: check HTTPS_PROXY/);
    expect(`${ok.stdout}${ok.stderr}${refused.stdout}${refused.stderr}`).not.toMatch(/corp-proxy-pass|wrong-pass/);
  });

  it('never sends the embedded sandbox (in-process, loopback) through a proxy', async () => {
    rmSync(join(dir, 'obsync.yaml'));
    const res = await runCli(['plan', 'manifests'], { cwd: dir, env: { HTTP_PROXY: proxy.url, HTTPS_PROXY: proxy.url } });
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/Dashboard\/checkout/);
    expect(proxy.seen).toEqual([]);
  });

  const noOpenssl = opensslMissing();
  it.skipIf(noOpenssl !== null)(
    `tunnels an https:// target through HTTPS_PROXY, trusting NODE_EXTRA_CA_CERTS end to end${noOpenssl ? ` (skipped: ${noOpenssl})` : ''}`,
    async () => {
      const pki: TestPki = makePki();
      const front: HttpsFront = await httpsFront(pki, sandbox.url);
      try {
        writeConfig(front.url);
        const res = await plan({ HTTPS_PROXY: proxy.url, NODE_EXTRA_CA_CERTS: pki.caFile });
        expect(res.stderr).toBe('');
        expect(res.code).toBe(0);
        expect(res.stdout).toMatch(/Dashboard\/checkout/);
        expect(proxy.seen.length).toBeGreaterThan(0);
        expect(proxy.seen.every((s) => s.method === 'CONNECT' && s.target === new URL(front.url).host)).toBe(true);
      } finally {
        await front.close();
        pki.remove();
      }
    },
  );
});
