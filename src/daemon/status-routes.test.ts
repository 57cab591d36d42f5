/** The status routes on a real node:http server on loopback (port 0), with a fixed status source. */
import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { Secret } from '../core/secret.js';
import { EventBus } from '../events/bus.js';
import type { StatusDocument } from '../events/status-model.js';
import { EVENT_NAMES } from '../events/vocabulary.js';
import { nullLogger } from '../log/logger.js';
import { startHealthServer, type HealthServer } from './health.js';
import { DaemonMetrics } from './metrics.js';
import { EventStream } from './sse.js';
import { statusRoutes, type StatusSource } from './status-routes.js';

const TOKEN = 'status-token-0123456789abcdef';
let server: HealthServer | undefined;
let stream: EventStream | undefined;

afterEach(async () => {
  stream?.close();
  await server?.close();
  server = undefined;
});

const doc: StatusDocument = { version: '0.1.0', generatedAt: '2026-11-26T12:00:00.000Z', ready: true, replica: { id: 'h/1' }, targets: [] };

async function start(opts: { token?: string; maxClients?: number; now?: () => Date } = {}) {
  const bus = new EventBus({ logger: nullLogger(), levels: 'by-event' });
  const withTarget: StatusDocument = {
    ...doc,
    targets: [
      {
        name: 'prod',
        variant: 'self-hosted',
        embedded: false,
        endpoint: { baseUrl: 'http://127.0.0.1:8000' },
        mode: 'apply',
        role: { kind: 'single', detail: 'no election' },
        state: 'in-sync',
        reason: 'every object is as declared',
        since: '2026-11-26T12:00:00.000Z',
        ready: true,
        readyReason: 'last successful run 1 s ago',
        failing: null,
        lastRun: null,
        nextRun: null,
        owned: {},
        manifests: { valid: true, errors: 0 },
        recentEvents: [],
      },
    ],
  };
  const source: StatusSource = {
    status: () => withTarget,
    target: (name) =>
      name === 'prod' ? { status: withTarget.targets[0]!, plan: null, history: [], events: bus.recent('prod', 50) } : undefined,
    preview: (name, file) => (name === 'prod' && file === 'dashboard-checkout.svg' ? PICTURE : undefined),
  };
  const metrics = new DaemonMetrics('0.1.0');
  stream = new EventStream(bus, { maxClients: opts.maxClients ?? 5, onRefused: () => metrics.statusRefused.inc() });
  const route = statusRoutes({
    source,
    bus,
    stream,
    token: opts.token ? new Secret(opts.token) : undefined,
    ...(opts.now ? { now: opts.now } : {}),
  });
  server = await startHealthServer('127.0.0.1', 0, () => ({ ready: true, targets: {} }), metrics, { route });
  return { url: server.url, bus, metrics };
}

const PICTURE = '<svg xmlns="http://www.w3.org/2000/svg"><text>&lt;script&gt;alert(1)&lt;/script&gt;</text></svg>';

const get = (url: string, headers: Record<string, string> = {}) => fetch(url, { headers });

/** Opens an SSE stream and collects its text until closed. */
function openStream(url: string, headers: Record<string, string> = {}): Promise<{ status: number; text: () => string; close: () => void }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { accept: 'text/event-stream', ...headers } }, (res) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d.toString()));
      res.on('error', () => undefined);
      resolve({ status: res.statusCode ?? 0, text: () => text, close: () => req.destroy() });
    });
    req.on('error', reject);
    req.end();
  });
}

async function waitFor(probe: () => boolean): Promise<void> {
  for (let i = 0; i < 400 && !probe(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(probe()).toBe(true);
}

describe('status routes', () => {
  it('serve the page, the status and the events, with a Content-Security-Policy that forbids other hosts', async () => {
    const { url, bus } = await start();
    bus.emit('prod', { event: 'manifests-recovered' });
    const page = await get(`${url}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await page.text()).toContain('<a href="/targets/prod">prod</a>');
    expect((await (await get(`${url}/api/status`)).json()) as StatusDocument).toMatchObject({
      targets: [{ name: 'prod', state: 'in-sync' }],
    });
    expect(await (await get(`${url}/api/events?target=prod&since=0`)).json()).toMatchObject({
      events: [{ seq: 1, event: 'manifests-recovered' }],
      next: 1,
    });
    expect(await (await get(`${url}/api/events?since=1`)).json()).toEqual({ events: [], next: 1 });
    expect((await get(`${url}/api/events?since=yesterday`)).status).toBe(400);
    expect((await get(`${url}/api/events?target=nope`)).status).toBe(404);
    expect((await get(`${url}/targets/nope`)).status).toBe(404);
    expect((await get(`${url}/targets/prod`)).status).toBe(200);
    expect((await get(`${url}/static/status.js`)).headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect((await fetch(`${url}/api/status`, { method: 'POST' })).status).toBe(405);
  });

  it('with a token: / and /api/* need the bearer token; the probes and the static files stay open', async () => {
    const { url } = await start({ token: TOKEN });
    for (const path of [
      '/',
      '/targets/prod',
      '/targets/prod/previews/dashboard-checkout.svg',
      '/api/status',
      '/api/events',
      '/api/events/stream',
    ]) {
      const res = await get(`${url}${path}`);
      expect(res.status, path).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Bearer realm="obsync"');
      expect((await get(`${url}${path}`, { authorization: `Bearer ${TOKEN}x` })).status, path).toBe(401);
      expect((await get(`${url}${path}`, { authorization: TOKEN })).status, path).toBe(401);
    }
    expect((await get(`${url}/api/status`, { authorization: `Bearer ${TOKEN}` })).status).toBe(200);
    expect((await get(`${url}/`, { authorization: `bearer ${TOKEN}` })).status).toBe(200);
    for (const path of ['/livez', '/readyz', '/metrics', '/static/status.css']) expect((await get(`${url}${path}`)).status, path).toBe(200);
    expect(await (await get(`${url}/`)).text()).not.toContain(TOKEN);
  });

  it('serve a picture of the last plan as an SVG that may run nothing: its own policy, nosniff; 404 for any other file', async () => {
    const { url } = await start();
    const res = await get(`${url}/targets/prod/previews/dashboard-checkout.svg`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/svg+xml');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    const policy = res.headers.get('content-security-policy') ?? '';
    expect(policy.split('; ')).toEqual(expect.arrayContaining(["default-src 'none'", "script-src 'none'", 'sandbox']));
    expect(await res.text()).toBe(PICTURE);
    for (const path of ['dashboard-other.svg', '../../api/status', 'dashboard-checkout.svg.html', 'Dashboard-checkout.svg'])
      expect((await get(`${url}/targets/prod/previews/${path}`)).status, path).toBe(404);
    expect((await get(`${url}/targets/nope/previews/dashboard-checkout.svg`)).status).toBe(404);
  });

  it(
    'streams events as Server-Sent Events, each named by its event and with its id; a reconnect with ' +
      'Last-Event-ID gets what it missed',
    async () => {
      const { url, bus } = await start();
      const all = await openStream(`${url}/api/events/stream`);
      const prodOnly = await openStream(`${url}/api/events/stream?target=prod`);
      expect(all.status).toBe(200);
      bus.emit('prod', { event: 'manifests-recovered' });
      bus.emit('other', { event: 'manifests-recovered' });
      await waitFor(() => all.text().includes('id: 2\n'));
      expect(all.text()).toMatch(
        new RegExp(
          String.raw`^retry: 3000\n\nevent: manifests-recovered\nid: 1\ndata: \{"seq":1,.*"target":"prod".*\}` +
            String.raw`\n\nevent: manifests-recovered\nid: 2\ndata: `,
        ),
      );
      await waitFor(() => prodOnly.text().includes('id: 1\n'));
      expect(prodOnly.text()).not.toContain('id: 2\n');
      const again = await openStream(`${url}/api/events/stream`, { 'last-event-id': '1' });
      await waitFor(() => again.text().includes('id: 2\n'));
      expect(again.text()).not.toContain('id: 1\n');
      // What it missed comes named as it was sent live.
      expect(again.text()).toMatch(/^retry: 3000\n\nevent: manifests-recovered\nid: 2\ndata: \{"seq":2,/);
      for (const s of [all, prodOnly, again]) s.close();
    },
  );

  it('every event name is a plain SSE event name (one token, no line break or colon)', () => {
    for (const name of EVENT_NAMES) expect(name).toMatch(/^[a-z][a-z-]*$/);
  });

  it('refuses a flood of stream clients with 503 (bounded), and takes new ones once others leave', async () => {
    const { url, metrics } = await start({ maxClients: 3 });
    const open = await Promise.all([1, 2, 3].map(() => openStream(`${url}/api/events/stream`)));
    expect(open.map((s) => s.status)).toEqual([200, 200, 200]);
    const refused = await get(`${url}/api/events/stream`);
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('10');
    expect((await get(`${url}/readyz`)).status).toBe(200);
    expect(await metrics.text()).toMatch(/obsync_status_stream_refused_total 1/);
    open[0]?.close();
    await waitFor(() => stream?.clients === 2);
    const later = await openStream(`${url}/api/events/stream`);
    expect(later.status).toBe(200);
    for (const s of [...open, later]) s.close();
  });

  it('a browser signs in once with the token in a form (a POST body), then its HttpOnly session cookie opens the pages', async () => {
    let clock = new Date('2026-11-26T12:00:00Z');
    const { url } = await start({ token: TOKEN, now: () => clock });
    const html = { accept: 'text/html,application/xhtml+xml' };
    // A browser asking for a page gets the form (401); a script asking /api/* gets JSON.
    const asked = await get(`${url}/targets/prod`, html);
    expect(asked.status).toBe(401);
    expect(asked.headers.get('content-security-policy')).toContain("form-action 'self'");
    const form = await asked.text();
    expect(form).toContain('<form class="login" method="post" action="/login">');
    expect(form).toContain('<input type="hidden" name="next" value="/targets/prod">');
    expect((await get(`${url}/api/status`, html)).headers.get('content-type')).toBe('application/json');
    // The token in a URL opens nothing.
    expect((await get(`${url}/login?token=${TOKEN}`, html)).headers.get('set-cookie')).toBeNull();
    expect((await get(`${url}/?token=${TOKEN}`, html)).status).toBe(401);

    const signIn = (token: string, next = '/targets/prod') =>
      fetch(`${url}/login`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token, next }).toString(),
      });
    const wrong = await signIn(`${TOKEN}x`);
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('set-cookie')).toBeNull();
    expect(await wrong.text()).toContain('That is not the status token');
    const right = await signIn(TOKEN);
    expect(right.status).toBe(303);
    expect(right.headers.get('location')).toBe('/targets/prod');
    const cookie = right.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/^obsync_status=\d+\.[\w-]{43}; Path=\/; Max-Age=43200; HttpOnly; SameSite=Strict$/);
    expect(cookie).not.toContain(TOKEN);
    const session = cookie.split(';')[0] ?? '';
    for (const path of ['/', '/targets/prod', '/api/status', '/api/events'])
      expect((await get(`${url}${path}`, { cookie: session })).status, path).toBe(200);
    // Elsewhere than a page of this daemon, a sign-in leads to /.
    for (const next of ['//evil.example/', 'https://evil.example/', '/targets/a/../../x', '/api/status'])
      expect((await signIn(TOKEN, next)).headers.get('location'), next).toBe('/');
    // A changed signature, another token's session and an expired one open nothing.
    const [name, value = ''] = session.split('=');
    const forged = `${name}=${value.slice(0, -1)}${value.endsWith('A') ? 'B' : 'A'}`;
    expect((await get(`${url}/api/status`, { cookie: forged })).status).toBe(401);
    clock = new Date(clock.getTime() + 12 * 3600_000 + 1000);
    expect((await get(`${url}/api/status`, { cookie: session })).status).toBe(401);
    const big = await fetch(`${url}/login`, { method: 'POST', body: 'x'.repeat(10_000) });
    expect(big.status).toBe(413);
  });

  it('without a status token there is nothing to sign in to', async () => {
    const { url } = await start();
    const res = await fetch(`${url}/login`, { redirect: 'manual' });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/');
  });
});
