/** The sandbox server over loopback: auth, envelopes, isolation, limits, faults, persistence. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';

const handles: SandboxHandle[] = [];
afterEach(async () => {
  for (const h of handles.splice(0)) await h.close();
});

async function start(opts: Parameters<typeof startSandbox>[0] = {}): Promise<SandboxHandle> {
  const h = await startSandbox({ port: 0, rateLimit: 'off', ...opts });
  handles.push(h);
  return h;
}

function selfHosted(h: SandboxHandle, path: string, init: RequestInit = {}): Promise<Response> {
  return fetch(`${h.url}/api/v2${path}`, {
    ...init,
    headers: { authorization: `Bearer ${h.credentials.apiKey}`, 'content-type': 'application/json', ...init.headers },
  });
}

function hosted(h: SandboxHandle, path: string, init: RequestInit = {}, segment = 'observability'): Promise<Response> {
  const c = h.credentials;
  const auth = Buffer.from(`${c.keyId}:${c.keySecret}`).toString('base64');
  return fetch(`${h.url}/v1/organizations/${c.organizationId}/services/${c.serviceId}/${segment}${path}`, {
    ...init,
    headers: { authorization: `Basic ${auth}`, 'content-type': 'application/json', ...init.headers },
  });
}

const DASHBOARD = JSON.stringify({ name: 'From a test', tiles: [] });

describe('sandbox server', () => {
  it('answers a bad Bearer key with the plain-text 401 of the real server', async () => {
    const h = await start();
    const res = await fetch(`${h.url}/api/v2/dashboards`, { headers: { authorization: 'bearer lowercase' } });
    expect(res.status).toBe(401);
    expect(await res.text()).toBe('Unauthorized');
  });

  it('keeps the two variants apart and wraps each in its own envelope', async () => {
    const h = await start();
    const created = await hosted(h, '/dashboards', { method: 'POST', body: DASHBOARD });
    const body = (await created.json()) as { status: number; requestId: string; result: { id: string } };
    expect(body.status).toBe(200);
    expect(body.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(body.result.id).toMatch(/^[0-9a-f]{24}$/);
    const list = (await (await selfHosted(h, '/dashboards')).json()) as { data: { name: string }[] };
    expect(list.data.map((d) => d.name)).not.toContain('From a test');
    const viaAlias = (await (await hosted(h, '/dashboards', {}, 'clickstack')).json()) as { result: { name: string }[] };
    expect(viaAlias.result.map((d) => d.name)).toContain('From a test');
    const missing = (await (await hosted(h, '/alerts/0123456789abcdef01234567')).json()) as { error: string };
    expect(missing.error).toMatch(/^NOT_FOUND: /);
  });

  it(
    'answers conditional GETs as Express does on the self-hosted ' + 'API (weak ETag, 304 without a body), and not on the hosted one',
    async () => {
      const h = await start();
      const first = await selfHosted(h, '/dashboards');
      const etag = first.headers.get('etag');
      expect(etag).toMatch(/^W\/"[0-9a-f]+-[A-Za-z0-9+/]{27}"$/);
      await first.arrayBuffer();
      const again = await selfHosted(h, '/dashboards', { headers: { 'if-none-match': etag ?? '' } });
      expect(again.status).toBe(304);
      expect(again.headers.get('content-length')).toBeNull();
      expect(await again.text()).toBe('');
      await selfHosted(h, '/dashboards', { method: 'POST', body: DASHBOARD });
      const changed = await selfHosted(h, '/dashboards', { headers: { 'if-none-match': etag ?? '' } });
      expect(changed.status).toBe(200);
      expect(changed.headers.get('etag')).not.toBe(etag);
      const hostedList = await hosted(h, '/dashboards');
      expect(hostedList.headers.get('etag')).toBeNull();
    },
  );

  it('rate-limits per key with the published headers', async () => {
    const h = await start({ rateLimit: { selfHosted: { limit: 2, windowMs: 60_000 }, hosted: { limit: 1, windowMs: 10_000 } } });
    await selfHosted(h, '/sources');
    const second = await selfHosted(h, '/sources');
    expect(second.headers.get('ratelimit-remaining')).toBe('0');
    const third = await selfHosted(h, '/sources');
    expect(third.status).toBe(429);
    expect(Number(third.headers.get('retry-after'))).toBeGreaterThan(0);
    await hosted(h, '/sources');
    const limited = await hosted(h, '/sources');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('x-ratelimit-reset')).not.toBeNull();
    expect(((await limited.json()) as { status: number }).status).toBe(429);
  });

  it('can commit a write and drop the connection before answering', async () => {
    const h = await start();
    h.faults.set({ resetAfter: 1 });
    await expect(selfHosted(h, '/dashboards', { method: 'POST', body: DASHBOARD })).rejects.toThrow();
    h.faults.clear();
    const list = (await (await selfHosted(h, '/dashboards')).json()) as { data: { name: string }[] };
    expect(list.data.map((d) => d.name)).toContain('From a test');
    expect(h.requests().some((r) => r.method === 'POST' && r.status === 0)).toBe(true);
  });

  it('can fail a write before it happens (reset, 5xx) and change nothing', async () => {
    const h = await start();
    h.faults.set({ resetBefore: 1 });
    await expect(selfHosted(h, '/dashboards', { method: 'POST', body: DASHBOARD })).rejects.toThrow();
    h.faults.set({ error5xx: 1 });
    expect((await selfHosted(h, '/dashboards', { method: 'POST', body: DASHBOARD })).status).toBe(503);
    h.faults.clear();
    const list = (await (await selfHosted(h, '/dashboards')).json()) as { data: unknown[] };
    expect(list.data).toEqual([]);
  });

  it('persists both variants, pipes and keys across restarts with --data', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'obsync-sandbox-'));
    try {
      const first = await start({ dataDir: dir });
      await hosted(first, '/dashboards', { method: 'POST', body: DASHBOARD });
      const pipes = (await (await hosted(first, '', {}, 'pipes')).json()) as { result: { id: string; name: string }[] };
      const pipe = pipes.result.find((p) => p.name === 'orders-kafka');
      await hosted(first, `/${pipe?.id ?? ''}/settings`, { method: 'PUT', body: JSON.stringify({ clickhouse_max_threads: 3 }) }, 'pipes');
      await first.close();
      handles.splice(0);
      const second = await start({ dataDir: dir });
      const list = (await (await hosted(second, '/dashboards')).json()) as { result: { name: string }[] };
      expect(list.result.map((d) => d.name)).toContain('From a test');
      const settings = (await (await hosted(second, `/${pipe?.id ?? ''}/settings`, {}, 'pipes')).json()) as {
        result: { clickhouse_max_threads: number };
      };
      expect(settings.result.clickhouse_max_threads).toBe(3);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('creates API keys whose secret is shown once and then authenticates', async () => {
    const h = await start();
    const c = h.credentials;
    const auth = `Basic ${Buffer.from(`${c.keyId}:${c.keySecret}`).toString('base64')}`;
    const res = await fetch(`${h.url}/v1/organizations/${c.organizationId}/keys`, {
      method: 'POST',
      headers: { authorization: auth, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'ci', roles: ['developer'] }),
    });
    const created = ((await res.json()) as { result: { keyId: string; keySecret: string } }).result;
    expect(created.keySecret).toMatch(/^4b1d[A-Za-z0-9]{38}$/);
    const list = await fetch(`${h.url}/v1/organizations/${c.organizationId}/keys`, {
      headers: { authorization: `Basic ${Buffer.from(`${created.keyId}:${created.keySecret}`).toString('base64')}` },
    });
    expect(list.status).toBe(200);
    expect(await list.text()).not.toContain(created.keySecret);
  });
});
