/** The HTTP client against a scripted loopback server: retries, 429s, lost responses, pagination, redaction. */
import { collectionOf } from '../../src/kinds/registry.js';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log/logger.js';
import { AmbiguousWriteError, ApiError } from '../../src/core/errors.js';
import { Secret } from '../../src/core/secret.js';
import type { SelfHostedTarget, HostedTarget } from '../../src/core/target.js';
import { createServicePort } from '../../src/remote/index.js';

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;
let server: Server | undefined;
const seen: { method: string; url: string; auth: string | undefined }[] = [];

async function serve(handler: Handler): Promise<string> {
  seen.length = 0;
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', auth: req.headers.authorization });
      handler(req, res, body);
    });
  });
  await new Promise<void>((r) => server?.listen(0, '127.0.0.1', () => r()));
  return `http://127.0.0.1:${(server?.address() as AddressInfo).port}`;
}

afterEach(async () => {
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  server = undefined;
});

const SECRET = 'top-secret-key-value';

function selfHosted(baseUrl: string): SelfHostedTarget {
  return {
    name: 't',
    variant: 'self-hosted',
    baseUrl,
    concurrency: 2,
    timeoutMs: 2000,
    retries: 2,
    pacing: { limit: 0, windowMs: 1000 },
    embedded: false,
    apiKey: new Secret(SECRET),
  };
}

function hosted(baseUrl: string): HostedTarget {
  return {
    name: 'h',
    variant: 'hosted',
    baseUrl,
    concurrency: 2,
    timeoutMs: 2000,
    retries: 2,
    pacing: { limit: 0, windowMs: 1000 },
    embedded: false,
    organizationId: 'org',
    serviceId: 'svc',
    keyId: 'kid',
    keySecret: new Secret(SECRET),
    paths: { observability: 'observability', pipes: 'pipes' },
  };
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
}

describe('transport', () => {
  it('retries an idempotent GET after a 503 and sends the Bearer key', async () => {
    let calls = 0;
    const url = await serve((_req, res) => (++calls === 1 ? json(res, 503, { message: 'busy' }) : json(res, 200, { data: [] })));
    const port = createServicePort(selfHosted(url));
    expect(await collectionOf(port, 'Dashboard').list()).toEqual([]);
    expect(calls).toBe(2);
    expect(seen[0]?.auth).toBe(`Bearer ${SECRET}`);
    await port.close();
  });

  it('waits out a 429 (Retry-After) and then succeeds, counting the throttle', async () => {
    let calls = 0;
    const url = await serve((_req, res) => (++calls === 1 ? json(res, 429, {}, { 'retry-after': '0' }) : json(res, 200, { data: [] })));
    const port = createServicePort(selfHosted(url));
    await collectionOf(port, 'Source').list();
    expect(port.stats.throttled).toBe(1);
    await port.close();
  });

  it('pauses until the reset when RateLimit-Remaining hits 0 before its own count does (another client shares the key)', async () => {
    const windowMs = 1000;
    let windowStart = 0;
    let count = 3; // spent by someone else
    const url = await serve((_req, res) => {
      const now = Date.now();
      if (windowStart === 0) windowStart = now;
      if (now - windowStart >= windowMs) [windowStart, count] = [now, 0];
      count += 1;
      const headers = { 'ratelimit-limit': '5', 'ratelimit-remaining': String(Math.max(0, 5 - count)), 'ratelimit-reset': '1' };
      json(res, count > 5 ? 429 : 200, { data: [] }, count > 5 ? { ...headers, 'retry-after': '1' } : headers);
    });
    const port = createServicePort({ ...selfHosted(url), pacing: { limit: 5, windowMs } });
    for (let i = 0; i < 3; i++) await collectionOf(port, 'Source').list();
    expect(port.stats.throttled).toBe(0);
    // The second response said 0 remaining while the client had sent 2 of its 5: the third waited for the reset.
    expect(seen).toHaveLength(3);
    await port.close();
  });

  it('turns a create whose connection dropped into an AmbiguousWriteError, without re-sending it', async () => {
    const url = await serve((req) => req.socket.destroy());
    const port = createServicePort(selfHosted(url));
    await expect(collectionOf(port, 'Dashboard').create({ name: 'x', tiles: [] })).rejects.toBeInstanceOf(AmbiguousWriteError);
    expect(seen.filter((s) => s.method === 'POST')).toHaveLength(1);
    await port.close();
  });

  it('never puts credentials into an error', async () => {
    const url = await serve((_req, res) => json(res, 401, { message: 'Unauthorized' }));
    const port = createServicePort(hosted(url));
    const err = await collectionOf(port, 'Dashboard')
      .list()
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(ApiError);
    const text = `${String(err)} ${JSON.stringify(err)} ${(err as ApiError).hint ?? ''}`;
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain(Buffer.from(`kid:${SECRET}`).toString('base64'));
    expect((err as ApiError).status).toBe(401);
    await port.close();
  });

  it('reads every page of a paginated list and drops duplicates (an object created meanwhile shifts one over)', async () => {
    const ids = Array.from({ length: 1002 }, (_, i) => `a${i}`);
    const url = await serve((req, res) => {
      const offset = Number(new URL(req.url ?? '', 'http://x').searchParams.get('offset'));
      const page = offset === 0 ? ids.slice(0, 1000) : ids.slice(999);
      const items = page.map((id) => ({ id, source: 'tile', threshold: 1, thresholdType: 'above', interval: '5m' }));
      json(res, 200, { data: items, meta: { total: 1002, limit: 1000, offset } }, { 'x-total-count': '1002' });
    });
    const port = createServicePort(selfHosted(url));
    expect((await collectionOf(port, 'Alert').list()).map((a) => a.id)).toEqual(ids);
    expect(seen.map((s) => s.url)).toEqual(['/api/v2/alerts?limit=1000&offset=0', '/api/v2/alerts?limit=1000&offset=1000']);
    await port.close();
  });

  it('reads a body whose characters arrive split between chunks, and keeps a leading BOM an error names', async () => {
    // 600 KB of three-byte characters: the body comes in many chunks (64 KiB reads), which split characters.
    const name = `Latenz Ü 📈 ${'✓'.repeat(200_000)}`;
    const body = Buffer.from(JSON.stringify({ data: [{ id: 'd1', name, tiles: [] }] }));
    const url = await serve((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(req.url?.includes('bom') ? Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), body]) : body);
    });
    const port = createServicePort(selfHosted(url));
    expect((await collectionOf(port, 'Dashboard').list())[0]?.name).toBe(name);
    const bom = createServicePort({ ...selfHosted(url), baseUrl: `${url}/bom` });
    await expect(collectionOf(bom, 'Dashboard').list()).rejects.toThrow(/unexpected body/);
    await port.close();
    await bom.close();
  });

  it('unwraps the hosted envelope and maps 404 to null on get', async () => {
    const url = await serve((req, res) => {
      if (req.url?.endsWith('/dashboards/missing'))
        return json(res, 404, { status: 404, error: 'NOT_FOUND: Dashboard not found', requestId: 'r1' });
      json(res, 200, { status: 200, requestId: 'r2', result: [{ id: 'd1', name: 'A', tiles: [] }] });
    });
    const port = createServicePort(hosted(url));
    expect((await collectionOf(port, 'Dashboard').list())[0]?.name).toBe('A');
    expect(await collectionOf(port, 'Dashboard').get('missing')).toBeNull();
    expect(seen[0]?.url).toBe('/v1/organizations/org/services/svc/observability/dashboards');
    expect(seen[0]?.auth).toBe(`Basic ${Buffer.from(`kid:${SECRET}`).toString('base64')}`);
    await port.close();
  });

  it(
    'logs one debug line per request attempt in the OpenTelemetry HTTP fields: method, server, path, status, resends, duration, request ' +
      'id; never a header, a body or a credential',
    async () => {
      let calls = 0;
      const url = await serve((req, res) => {
        calls += 1;
        if (req.method === 'GET' && calls === 1) return json(res, 503, { error: 'busy' }, { 'x-request-id': 'req-503' });
        if (req.method === 'GET') return json(res, 200, { data: [] }, { 'x-request-id': 'req-ok' });
        json(res, 200, { data: { id: 'd9', name: 'A', tiles: [] } });
      });
      const out = new PassThrough();
      let text = '';
      out.on('data', (d: Buffer) => (text += d.toString()));
      const port = createServicePort(selfHosted(url), { logger: createLogger({ format: 'json', level: 'debug', stream: out }) });
      await collectionOf(port, 'Dashboard').list();
      await collectionOf(port, 'Dashboard').create({ name: 'with body secret-body-marker', tiles: [] });
      await port.close();
      const lines = text
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .filter((l) => l.msg === 'request');
      // OpenTelemetry's HTTP semantic conventions; no top-level key a log backend reserves (status, host).
      const server = { 'server.address': new URL(url).hostname, 'server.port': Number(new URL(url).port) };
      expect(lines.map(({ time: _t, durationMs, ...rest }) => ({ ...rest, durationMs: typeof durationMs }))).toEqual([
        {
          level: 'debug',
          msg: 'request',
          target: 't',
          'http.request.method': 'GET',
          ...server,
          'url.path': '/api/v2/dashboards',
          'http.response.status_code': 503,
          requestId: 'req-503',
          durationMs: 'number',
        },
        {
          level: 'debug',
          msg: 'request',
          target: 't',
          'http.request.method': 'GET',
          ...server,
          'url.path': '/api/v2/dashboards',
          'http.response.status_code': 200,
          'http.request.resend_count': 1,
          requestId: 'req-ok',
          durationMs: 'number',
        },
        {
          level: 'debug',
          msg: 'request',
          target: 't',
          'http.request.method': 'POST',
          ...server,
          'url.path': '/api/v2/dashboards',
          'http.response.status_code': 200,
          durationMs: 'number',
        },
      ]);
      expect(text).not.toContain(SECRET);
      expect(text).not.toContain('secret-body-marker');
      expect(text.toLowerCase()).not.toContain('authorization');
    },
  );

  it('logs no request line above debug', async () => {
    const url = await serve((_req, res) => json(res, 200, { data: [] }));
    const out = new PassThrough();
    let text = '';
    out.on('data', (d: Buffer) => (text += d.toString()));
    const port = createServicePort(selfHosted(url), { logger: createLogger({ format: 'json', level: 'info', stream: out }) });
    await collectionOf(port, 'Dashboard').list();
    await port.close();
    expect(text).toBe('');
  });
});

describe('many requests under one signal', () => {
  it('is no leak warning: twenty requests waiting together on one run signal (a plan’s backtest queries) print nothing', async () => {
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on('warning', onWarning);
    try {
      const url = await serve((_req, res) => setTimeout(() => json(res, 200, { data: [] }), 20));
      const port = createServicePort({ ...selfHosted(url), concurrency: 2 });
      const run = new AbortController();
      await Promise.all(Array.from({ length: 20 }, () => collectionOf(port, 'Dashboard').list({ signal: run.signal })));
      await port.close();
      await new Promise((r) => setImmediate(r));
      expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });
});
