/**
 * Issue 24, item 1: every write to the service passes the write fence immediately before it is
 * sent — every method, the kinds' extra calls, a hosted wake-up, a key creation, each retry, and
 * after a wait for the rate limit — and nothing reaches the server once the fence refuses.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { LeaseLostError, ReadOnlyError } from '../../src/core/errors.js';
import { READ_ONLY, type WriteFence } from '../../src/core/fence.js';
import { requireCapability, requireCollection } from '../../src/core/ports.js';
import { Secret } from '../../src/core/secret.js';
import type { HostedTarget, SelfHostedTarget } from '../../src/core/target.js';
import { createServicePort } from '../../src/remote/index.js';
import { Transport } from '../../src/remote/transport.js';

let server: Server | undefined;
const seen: { method: string; url: string }[] = [];

async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  seen.length = 0;
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '' });
      handler(req, res);
    });
  });
  await new Promise<void>((r) => server?.listen(0, '127.0.0.1', () => r()));
  return `http://127.0.0.1:${(server?.address() as AddressInfo).port}`;
}

afterEach(async () => {
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  server = undefined;
});

/** A fence a test opens and closes (as a lease that is held, then lost). */
function switchFence(): WriteFence & { open: boolean; checks: number } {
  return {
    open: true,
    checks: 0,
    check() {
      this.checks += 1;
      if (!this.open) throw new LeaseLostError("lost the writer lease on target 't': test");
    },
  };
}

function selfHosted(baseUrl: string, pacing = { limit: 0, windowMs: 1000 }): SelfHostedTarget {
  return {
    name: 't',
    variant: 'self-hosted',
    baseUrl,
    concurrency: 2,
    timeoutMs: 5000,
    retries: 2,
    pacing,
    embedded: false,
    apiKey: new Secret('fence-test-key'),
  };
}

function hosted(baseUrl: string): HostedTarget {
  return {
    name: 'h',
    variant: 'hosted',
    baseUrl,
    concurrency: 2,
    timeoutMs: 5000,
    retries: 0,
    pacing: { limit: 0, windowMs: 1000 },
    embedded: false,
    organizationId: 'org',
    serviceId: 'svc',
    keyId: 'kid',
    keySecret: new Secret('fence-test-secret'),
    paths: { observability: 'clickstack', pipes: 'clickpipes' },
  };
}

const ok = (res: ServerResponse, body: unknown) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

describe('the write fence of the HTTP client', () => {
  it('sends no POST, PUT, PATCH or DELETE while it refuses, and lets reads through', async () => {
    const url = await serve((req, res) => ok(res, req.url?.includes('/charts/series') ? [] : { data: [] }));
    const fence = switchFence();
    fence.open = false;
    const port = createServicePort(selfHosted(url), { fence });
    const dashboards = requireCollection(port, 'Dashboard');
    await expect(dashboards.create({ name: 'x', tiles: [] })).rejects.toBeInstanceOf(LeaseLostError);
    await expect(dashboards.update('d1', { name: 'x', tiles: [] })).rejects.toBeInstanceOf(LeaseLostError);
    await expect(dashboards.delete('d1')).rejects.toBeInstanceOf(LeaseLostError);
    await expect(requireCollection(port, 'Source').update('s1', { name: 's' })).rejects.toBeInstanceOf(LeaseLostError);
    await expect(dashboards.list()).resolves.toEqual([]);
    // A chart query is a POST that only reads (backtests): not fenced, not a write.
    await expect(requireCapability(port, 'charts').series({ series: [], startTime: 0, endTime: 1 })).resolves.toEqual([]);
    expect(seen.map((r) => r.method)).toEqual(['GET', 'POST']);
    expect(seen[1]?.url).toContain('/charts/series');
    expect(fence.checks).toBe(4);
    expect(port.stats.writes).toBe(0);
    await port.close();
  });

  it('fences the kinds’ extra calls, the wake-up of an idle hosted service and key creation', async () => {
    const url = await serve((req, res) => {
      if (req.method === 'GET' && req.url?.includes('/clickpipes')) {
        res.writeHead(424, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ status: 424, error: 'FAILED_DEPENDENCY: service is not running. Current state: idle' }));
        return;
      }
      ok(res, { status: 200, result: [] });
    });
    const fence = switchFence();
    fence.open = false;
    const port = createServicePort(hosted(url), { fence });
    const pipes = requireCollection(port, 'Pipe');
    await expect(pipes.list()).rejects.toBeInstanceOf(LeaseLostError);
    await expect(pipes.call('settings', 'p1', { settings: {} })).rejects.toBeInstanceOf(LeaseLostError);
    await expect(requireCapability(port, 'keys').create({ name: 'k', roles: ['developer'] })).rejects.toBeInstanceOf(LeaseLostError);
    // The list was read (and answered 424); the wake-up PATCH, the settings call and the key POST never left.
    expect(seen.every((r) => r.method === 'GET')).toBe(true);
    await port.close();
  });

  it('is checked again before each retry: a write whose lease is lost after a 503 is not sent again', async () => {
    const fence = switchFence();
    const url = await serve((req, res) => {
      if (req.method === 'PUT') {
        fence.open = false;
        res.writeHead(503, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ message: 'Service Unavailable' }));
        return;
      }
      ok(res, { data: [] });
    });
    const port = createServicePort(selfHosted(url), { fence });
    await expect(requireCollection(port, 'Dashboard').update('d1', { name: 'x', tiles: [] })).rejects.toBeInstanceOf(LeaseLostError);
    expect(seen.filter((r) => r.method === 'PUT')).toHaveLength(1);
    await port.close();
  });

  it('is checked after the wait for the rate limit, not before it', async () => {
    const fence = switchFence();
    const url = await serve((_req, res) => {
      // The first write is on the wire: the lease is lost while the second waits for the window.
      fence.open = false;
      ok(res, { data: { id: 'd1', name: 'x', tiles: [] } });
    });
    const port = createServicePort(selfHosted(url, { limit: 1, windowMs: 1000 }), { fence });
    const dashboards = requireCollection(port, 'Dashboard');
    const first = dashboards.delete('d1');
    const second = dashboards.delete('d2');
    await expect(first).resolves.toBeUndefined();
    await expect(second).rejects.toBeInstanceOf(LeaseLostError);
    expect(seen.map((r) => `${r.method} ${r.url}`)).toEqual(['DELETE /api/v2/dashboards/d1']);
    await port.close();
  });

  it('is checked again as the request is written: a process paused between the two checks sends nothing on resuming', async () => {
    const url = await serve((_req, res) => ok(res, { data: [] }));
    // Passes the transport's check after the rate-limit wait, refuses at the moment undici writes
    // (as a lease that ran out while this process was stopped waiting for its connection).
    const fence: WriteFence & { checks: number } = {
      checks: 0,
      check() {
        this.checks += 1;
        if (this.checks > 1) throw new LeaseLostError("lost the writer lease on target 't': paused");
      },
    };
    // One request a minute: the refused write must give its slot back, or the read below would wait a minute.
    const port = createServicePort(selfHosted(url, { limit: 1, windowMs: 60_000 }), { fence });
    const dashboards = requireCollection(port, 'Dashboard');
    await expect(dashboards.delete('d1')).rejects.toThrow(/paused/);
    expect(fence.checks).toBe(2);
    expect(seen).toEqual([]);
    expect(port.stats.requests).toBe(1);
    await expect(dashboards.list()).resolves.toEqual([]);
    expect(seen.map((r) => r.method)).toEqual(['GET']);
    await port.close();
  });
});

describe('the fence of a read-only command (plan, export, import, a plan-mode daemon)', () => {
  it('lets through GETs and exactly the POSTs listed as read-only, and sends nothing else (property)', async () => {
    const url = await serve((_req, res) => ok(res, { data: [] }));
    const transport = new Transport({
      baseUrl: url,
      authorization: 'Bearer k',
      concurrency: 2,
      timeoutMs: 5000,
      retries: 0,
      pacing: null,
      fence: READ_ONLY,
    });
    const paths = [
      '/api/v2/charts/series',
      '/api/v2/charts/series/x',
      '/api/v2/charts',
      '/api/v2/dashboards',
      '/api/v2/dashboards/d1',
      '/v1/organizations/o/services/s/state',
      '/v1/organizations/o/keys',
      '/v1/organizations/o/services/s/clickpipes/p/state',
    ];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE' as const),
        fc.constantFrom(...paths),
        async (method, path) => {
          seen.length = 0;
          const listed = method === 'GET' || (method === 'POST' && path === '/api/v2/charts/series');
          const sent = await transport.request({ method, path, ...(method === 'GET' ? {} : { body: {} }) }).then(
            () => true,
            (err: unknown) => {
              expect(err).toBeInstanceOf(ReadOnlyError);
              return false;
            },
          );
          expect(sent).toBe(listed);
          expect(seen).toHaveLength(listed ? 1 : 0);
        },
      ),
    );
    expect(transport.stats.writes).toBe(0);
    await transport.close();
  });
});
