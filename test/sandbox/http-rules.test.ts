import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseFaultSpec, startSandbox, type SandboxHandle, type SandboxOptions } from '../../src/sandbox/index.js';

const handles: SandboxHandle[] = [];
const dirs: string[] = [];

async function start(opts: SandboxOptions = {}): Promise<SandboxHandle> {
  const h = await startSandbox({ port: 0, ...opts });
  handles.push(h);
  return h;
}

afterEach(async () => {
  for (const h of handles.splice(0)) await h.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

interface Client {
  self(path: string, init?: { method?: string; body?: unknown; token?: string }): Promise<Response>;
  hosted(path: string, init?: { method?: string; body?: unknown; area?: string }): Promise<Response>;
}

function client(h: SandboxHandle): Client {
  const c = h.credentials;
  const basic = `Basic ${Buffer.from(`${c.keyId}:${c.keySecret}`).toString('base64')}`;
  const send = (url: string, authorization: string, method = 'GET', body?: unknown) =>
    fetch(url, {
      method,
      headers: { authorization, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  return {
    self: (path, init = {}) => send(`${h.url}/api/v2${path}`, `Bearer ${init.token ?? c.apiKey}`, init.method, init.body),
    hosted: (path, init = {}) =>
      send(
        `${h.url}/v1/organizations/${c.organizationId}/services/${c.serviceId}/${init.area ?? 'observability'}${path}`,
        basic,
        init.method,
        init.body,
      ),
  };
}

type Json = Record<string, unknown>;
const dashboard = (name: string) => ({ name, tiles: [] });

describe('sandbox HTTP server', () => {
  it('answers a bad Bearer key with text 401 Unauthorized', async () => {
    const h = await start();
    const res = await client(h).self('/dashboards', { token: 'wrong' });
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await res.text()).toBe('Unauthorized');
    const lower = await fetch(`${h.url}/api/v2/dashboards`, { headers: { authorization: `bearer ${h.credentials.apiKey}` } });
    expect(lower.status).toBe(401);
    const unknown = await client(h).self('/nothing-here', { token: 'wrong' });
    expect(unknown.status).toBe(404);
    expect(await unknown.text()).toContain('Cannot GET /api/v2/nothing-here');
  });

  it('keeps the two variants apart: a hosted dashboard is not in the self-hosted list', async () => {
    const h = await start({ seed: 'none' });
    const api = client(h);
    const selfCreated = (await (await api.self('/dashboards', { method: 'POST', body: dashboard('self') })).json()) as { data: Json };
    expect(selfCreated.data.name).toBe('self');
    const hostedRes = await api.hosted('/dashboards', { method: 'POST', body: dashboard('hosted') });
    expect(hostedRes.status).toBe(200);
    const hostedCreated = (await hostedRes.json()) as { status: number; requestId: string; result: Json };
    expect(hostedCreated.status).toBe(200);
    expect(hostedCreated.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(hostedCreated.result.name).toBe('hosted');

    const selfList = (await (await api.self('/dashboards')).json()) as { data: Json[] };
    expect(selfList.data.map((d) => d.name)).toEqual(['self']);
    const hostedList = (await (await api.hosted('/dashboards')).json()) as { result: Json[] };
    expect(hostedList.result.map((d) => d.name)).toEqual(['hosted']);

    const del = (await (await api.hosted(`/dashboards/${String(hostedCreated.result.id)}`, { method: 'DELETE' })).json()) as Json;
    expect(del).toEqual({ status: 200, requestId: expect.any(String) as string });
    expect(await (await api.self(`/dashboards/${String(selfCreated.data.id)}`, { method: 'DELETE' })).json()).toEqual({});
  });

  it('wraps hosted errors in the envelope with a code prefix, and serves the clickstack alias', async () => {
    const h = await start();
    const api = client(h);
    const bad = await api.hosted('/dashboards', { method: 'POST', body: { tiles: 'nope' } });
    expect(bad.status).toBe(400);
    const body = (await bad.json()) as Json;
    expect(body.status).toBe(400);
    expect(String(body.error)).toMatch(/^BAD_REQUEST: /);
    expect(body.requestId).toEqual(expect.any(String));

    const missing = await api.hosted('/alerts/65f5e4a3b9e77c001a567890');
    expect(missing.status).toBe(404);
    expect(String(((await missing.json()) as Json).error)).toMatch(/^NOT_FOUND: /);

    const alias = await api.hosted('/sources', { area: 'clickstack' });
    expect(alias.status).toBe(200);
    expect(((await alias.json()) as { result: unknown[] }).result.length).toBeGreaterThan(0);

    const c = h.credentials;
    const otherOrg = await fetch(`${h.url}/v1/organizations/00000000-0000-4000-8000-000000000000/keys`, {
      headers: { authorization: `Basic ${Buffer.from(`${c.keyId}:${c.keySecret}`).toString('base64')}` },
    });
    expect(otherOrg.status).toBe(404);
    expect(String(((await otherOrg.json()) as Json).error)).toMatch(/^NOT_FOUND: /);

    const noAuth = await fetch(`${h.url}/v1/organizations/${c.organizationId}/keys`);
    expect(noAuth.status).toBe(401);
    expect(((await noAuth.json()) as Json).status).toBe(401);
  });

  it('paginates self-hosted alerts with meta and X-Total-Count, and rejects malformed JSON', async () => {
    const h = await start();
    const api = client(h);
    const res = await api.self('/alerts?limit=1&offset=0');
    expect(res.status).toBe(200);
    const body = (await res.json()) as { data: unknown[]; meta: { total: number; limit: number } };
    expect(body.meta.limit).toBe(1);
    expect(res.headers.get('x-total-count')).toBe(String(body.meta.total));

    const malformed = await fetch(`${h.url}/api/v2/dashboards`, {
      method: 'POST',
      headers: { authorization: `Bearer ${h.credentials.apiKey}`, 'content-type': 'application/json' },
      body: '{"name":',
    });
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toEqual({ message: 'Invalid JSON payload' });
  });

  it('limits self-hosted requests before auth, with RateLimit headers and Retry-After', async () => {
    const h = await start({ rateLimit: { selfHosted: { limit: 2, windowMs: 60_000 }, hosted: { limit: 1, windowMs: 10_000 } } });
    const api = client(h);
    const first = await api.self('/dashboards', { token: 'bad' });
    expect(first.status).toBe(401);
    expect(first.headers.get('ratelimit-limit')).toBe('2');
    expect(first.headers.get('ratelimit-remaining')).toBe('1');
    expect((await api.self('/dashboards', { token: 'bad' })).status).toBe(401);
    const limited = await api.self('/dashboards', { token: 'bad' });
    expect(limited.status).toBe(429);
    expect(await limited.text()).toBe('Too many requests, please try again later.');
    expect(limited.headers.get('ratelimit-remaining')).toBe('0');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await api.self('/dashboards')).status).toBe(200); // another key, another bucket

    expect((await api.hosted('/dashboards')).status).toBe(200);
    const hosted = await api.hosted('/dashboards');
    expect(hosted.status).toBe(429);
    expect(await hosted.json()).toEqual({ status: 429, error: 'Rate limit exceeded', requestId: expect.any(String) as string });
    expect(Number(hosted.headers.get('x-ratelimit-reset'))).toBeGreaterThan(0);
    expect(Number(hosted.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it("disables both limiters with rateLimit: 'off'", async () => {
    const h = await start({ rateLimit: 'off' });
    const api = client(h);
    for (let i = 0; i < 12; i++) expect((await api.hosted('/sources')).status).toBe(200);
  });

  it('resetAfter: the client sees a dropped connection but the write committed', async () => {
    const h = await start({ seed: 'none' });
    const api = client(h);
    h.faults.set({ resetAfter: 1 });
    await expect(api.self('/dashboards', { method: 'POST', body: dashboard('ghost') })).rejects.toThrow();
    h.faults.clear();
    const list = (await (await api.self('/dashboards')).json()) as { data: Json[] };
    expect(list.data.map((d) => d.name)).toEqual(['ghost']);
    expect(h.requests().find((r) => r.method === 'POST')?.status).toBe(0);
  });

  it('injects 429 bursts, 5xx and idle 424 in the variant shapes', async () => {
    const h = await start({ seed: 'none', faults: parseFaultSpec('burst429=1,seed=7') });
    const api = client(h);
    expect((await api.self('/dashboards')).status).toBe(429);
    expect((await api.self('/dashboards')).status).toBe(200);
    h.faults.set({ error5xx: 1 });
    const failed = await api.self('/dashboards', { method: 'POST', body: dashboard('never') });
    expect(failed.status).toBe(503);
    h.faults.set({ idle424: 1 });
    expect((await api.hosted('/dashboards')).status).toBe(200); // not a pipes route
    const idle = await api.hosted('', { area: 'clickpipes' });
    expect(idle.status).toBe(424);
    expect(((await idle.json()) as Json).error).toBe(
      'FAILED_DEPENDENCY: ClickPipe creation is allowed only when the ClickHouse service is running. Current state: idle',
    );
    h.faults.clear();
    // The service stays idle until a client wakes it (terraform-provider internal/api/clickpipe.go).
    expect((await api.hosted('', { area: 'pipes' })).status).toBe(424);
    const list = (await (await api.self('/dashboards')).json()) as { data: unknown[] };
    expect(list.data).toEqual([]);
  });

  it('parses fault specs and rejects unknown keys', () => {
    expect(parseFaultSpec('latency=50,error5xx=0.1,burst429=3,resetBefore=0.05,resetAfter=0.05,idle424=1,seed=7')).toEqual({
      latencyMs: 50,
      error5xx: 0.1,
      burst429: 3,
      resetBefore: 0.05,
      resetAfter: 0.05,
      idle424: 1,
      seed: 7,
    });
    expect(() => parseFaultSpec('bogus=1')).toThrow(/unknown fault/);
    expect(() => parseFaultSpec('error5xx=2')).toThrow();
  });

  it('logs every request with method, path without query, status, duration and variant', async () => {
    const h = await start();
    const api = client(h);
    await api.self('/alerts?limit=5');
    await api.hosted('/dashboards');
    const log = h.requests();
    expect(log.map(({ method, path, status, variant }) => ({ method, path, status, variant }))).toEqual([
      { method: 'GET', path: '/api/v2/alerts', status: 200, variant: 'self-hosted' },
      {
        method: 'GET',
        path: `/v1/organizations/${h.credentials.organizationId}/services/${h.credentials.serviceId}/observability/dashboards`,
        status: 200,
        variant: 'hosted',
      },
    ]);
    for (const r of log) expect(r.ms).toBeGreaterThanOrEqual(0);
    h.clearRequests();
    expect(h.requests()).toEqual([]);
  });

  it('persists to dataDir and restores on the next start', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'obsync-sandbox-'));
    dirs.push(dir);
    const first = await start({ dataDir: dir, seed: 'none' });
    const created = (await (await client(first).self('/dashboards', { method: 'POST', body: dashboard('kept') })).json()) as { data: Json };
    await client(first).hosted('/dashboards', { method: 'POST', body: dashboard('kept-hosted') });
    await first.close();
    handles.splice(handles.indexOf(first), 1);
    expect(statSync(join(dir, 'observability-selfhosted.json')).mode & 0o777).toBe(0o600);

    const second = await start({ dataDir: dir, seed: 'none' });
    const got = await client(second).self(`/dashboards/${String(created.data.id)}`);
    expect(got.status).toBe(200);
    expect(((await got.json()) as { data: Json }).data.name).toBe('kept');
    const hostedList = (await (await client(second).hosted('/dashboards')).json()) as { result: Json[] };
    expect(hostedList.result.map((d) => d.name)).toEqual(['kept-hosted']);
  });
});
