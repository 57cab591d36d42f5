/**
 * What the daemon tells (issue 25), `obsync run` as a child process against the sandbox: an
 * adoption is announced; a hand-made change is one drift notification within one run; a target
 * whose server fails is not ready after its first failed run (reason and since when) and gives
 * exactly one failed and one recovered notification however many runs it is down; /api/status
 * and /api/events match their schemas; the status token guards / and /api/*, never the probes;
 * the page shows the previews of the last plan (a hostile dashboard name escaped on the page, and
 * drawn as text in an SVG served with a policy that runs no script); no secret in any of it.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { assertBuilt } from '../support/cli.js';
import { startDaemon, startReceiver, type Receiver, type RunningDaemon } from '../support/daemon.js';
import { until as waitUntil } from '../support/wait.js';

const TOKEN = 'visibility-token-7c1e0a93b4';
/** The dashboard's display name in the first test: markup in an SVG and on the page. */
const HOSTILE = 'Checkout </text><script>alert(1)</script><img src=x onerror=alert(2)>';
let sandbox: SandboxHandle;
let receiver: Receiver;
let dir: string;
let daemon: RunningDaemon | undefined;

const until = <T>(what: string, probe: () => Promise<T | undefined> | T | undefined) =>
  waitUntil(what, probe, { timeoutMs: 30_000, context: () => daemon?.output().slice(-4000) ?? '' });
const auth = { authorization: `Bearer ${TOKEN}` };
const api = (path: string) => fetch(`${daemon?.url ?? ''}${path}`, { headers: auth });
/** What the receiver was told, but leadership (this replica leads from its start: one notification, checked apart). */
const kinds = () => receiver.bodies.map((b) => (b as { kind: string }).kind).filter((k) => k !== 'leader');
const leaderNotes = () => receiver.bodies.filter((b) => (b as { kind: string }).kind === 'leader');
const results = (result: string) => daemon?.events('run-finished').filter((l) => l.result === result).length ?? 0;

function validator(file: string) {
  const ajv = new Ajv({ strict: true, allErrors: true });
  addFormats.default(ajv);
  return ajv.compile(JSON.parse(readFileSync(`docs/schema/${file}`, 'utf8')) as object);
}

function config(): string {
  return `apiVersion: obsync/v1
kind: Config
manifests: [manifests]
targets:
  - name: sb
    variant: self-hosted
    baseUrl: ${sandbox.url}
    credentials: {apiKey: "\${env:OBSYNC_API_KEY}"}
    rateLimit: {requests: 1000, perSeconds: 1}
    retries: 0
    timeoutSeconds: 2
notifications:
  - type: generic
    url: "\${env:HOOK_URL}"
statusToken: "\${env:OBSYNC_STATUS_TOKEN}"
`;
}

async function sandboxFetch(path: string, init: RequestInit = {}): Promise<unknown> {
  const res = await fetch(`${sandbox.url}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${sandbox.credentials.apiKey}`, 'content-type': 'application/json' },
  });
  return ((await res.json()) as { data: unknown }).data;
}

/** A change made by hand on the service: the dashboard's tags. */
async function handEdit(name: string, tags: string[]): Promise<void> {
  const list = (await sandboxFetch('/api/v2/dashboards')) as { id: string; name: string }[];
  const found = list.find((d) => d.name === name);
  if (!found) throw new Error(`no dashboard ${name}`);
  const { id, ...rest } = (await sandboxFetch(`/api/v2/dashboards/${found.id}`)) as { id: string } & Record<string, unknown>;
  await sandboxFetch(`/api/v2/dashboards/${id}`, { method: 'PUT', body: JSON.stringify({ ...rest, tags }) });
}

beforeAll(() => assertBuilt());

beforeEach(async () => {
  sandbox = await startSandbox({ port: 0, rateLimit: 'off' });
  receiver = await startReceiver();
  dir = mkdtempSync(join(tmpdir(), 'obsync-visibility-'));
  cpSync('config-examples/team/dashboards', join(dir, 'manifests'), { recursive: true });
  writeFileSync(join(dir, 'obsync.yaml'), config());
});

afterEach(async () => {
  await daemon?.stop();
  daemon = undefined;
  await receiver.close();
  await sandbox.close();
  rmSync(dir, { recursive: true, force: true });
});

const env = () => ({ OBSYNC_API_KEY: sandbox.credentials.apiKey, HOOK_URL: receiver.url, OBSYNC_STATUS_TOKEN: TOKEN });
const touch = () => {
  const file = join(dir, 'manifests/checkout.yaml');
  writeFileSync(file, `${readFileSync(file, 'utf8')}\n`);
};

describe('obsync run tells what it does', () => {
  it('announces an adoption, notifies a hand-made change once, within one run, and serves it all by the schemas', async () => {
    const manifest = join(dir, 'manifests/checkout.yaml');
    writeFileSync(manifest, readFileSync(manifest, 'utf8').replace('name: Checkout service', `name: '${HOSTILE}'`));
    await sandboxFetch('/api/v2/dashboards', {
      method: 'POST',
      body: JSON.stringify({ name: HOSTILE, tiles: [], tags: ['hand-made'] }),
    });
    daemon = await startDaemon(dir, ['--debounce', '200', '--schedule', '0 0 1 1 *'], env(), { previews: true });
    await until('the first run', () => (results('success') >= 1 ? true : undefined));
    expect(daemon.events('adopted')).toEqual([
      expect.objectContaining({ level: 'warn', msg: 'adopted', target: 'sb', address: 'Dashboard/checkout' }),
    ]);
    await until('the adopted notification', () => (kinds().includes('adopted') ? true : undefined));

    const status: unknown = await (await api('/api/status')).json();
    const validStatus = validator('status.schema.json');
    expect(validStatus(status), JSON.stringify(validStatus.errors)).toBe(true);
    expect(status).toMatchObject({
      ready: true,
      targets: [{ name: 'sb', state: 'in-sync', owned: { Dashboard: 1 }, role: { kind: 'leader' } }],
    });
    const events = (await (await api('/api/events?target=sb')).json()) as { events: unknown[]; next: number };
    const validEvent = validator('event.schema.json');
    for (const e of events.events) expect(validEvent(e), JSON.stringify(validEvent.errors)).toBe(true);
    expect(events.events.map((e) => (e as { event: string }).event)).toEqual(
      expect.arrayContaining(['run-started', 'adopted', 'updated', 'run-finished']),
    );

    // The first run updated the adopted dashboard: its preview, before and after, is on the status page.
    const picture = '/targets/sb/previews/dashboard-checkout.svg';
    expect(status).toMatchObject({ targets: [{ previews: [{ address: 'Dashboard/checkout', title: HOSTILE, url: picture }] }] });
    const index = await (await api('/')).text();
    const escaped = 'Checkout &lt;/text&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;';
    expect(index).toContain(`<img src="${picture}" alt="Dashboard/checkout: ${escaped}" loading="lazy">`);
    expect(index).not.toMatch(/<script>alert|<img src=x/);
    expect((await fetch(`${daemon.url}${picture}`)).status).toBe(401);
    const svg = await api(picture);
    expect(svg.status).toBe(200);
    expect(svg.headers.get('content-type')).toBe('image/svg+xml');
    expect(svg.headers.get('x-content-type-options')).toBe('nosniff');
    expect(svg.headers.get('content-security-policy')).toMatch(/^default-src 'none';.*script-src 'none';.*; sandbox$/);
    const drawn = await svg.text();
    expect(drawn).toMatch(/^<svg [^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    expect(drawn).toContain('&lt;/text&gt;&lt;script&gt;alert(1)&lt;/script&gt;');
    // No element of the name and no event attribute: the name is text.
    expect(drawn).not.toMatch(/<(script|img)\b|\son\w+="/i);

    const runsBefore = daemon.events('run-finished').length;
    await handEdit(HOSTILE, ['changed-by-hand']);
    touch();
    await until('the drift notification', () => (kinds().includes('drift') ? true : undefined));
    // Told within the run that found it: no later run was needed.
    await until('that run to finish', () => (daemon && daemon.events('run-finished').length > runsBefore ? true : undefined));
    expect(daemon.events('run-finished').length).toBe(runsBefore + 1);
    expect(daemon.events('drift')).toEqual([
      expect.objectContaining({ address: 'Dashboard/checkout', reason: 'drifted', paths: ['tags'] }),
    ]);
    await until('the healed notification', () => (kinds().includes('healed') ? true : undefined));
    const validNotification = validator('notification.schema.json');
    for (const body of receiver.bodies) expect(validNotification(body), JSON.stringify(validNotification.errors)).toBe(true);
    expect(kinds()).toEqual(['adopted', 'drift', 'healed']);
    expect(leaderNotes()).toEqual([expect.objectContaining({ summary: 'this replica now leads target sb' })]);

    // Saves that change nothing: once the heal is read back, a run takes its last plan whole, and says so.
    const planned = () => daemon?.events('run-finished') ?? [];
    for (let i = 0; i < 3; i++) {
      const before = planned().length;
      if (i === 2) sandbox.clearRequests();
      touch();
      await until('a run over the unchanged estate', () => (planned().length > before ? true : undefined));
    }
    expect(planned().at(-1)).toMatchObject({ result: 'success', planned: true, planTaken: true });
    // It read the unchanged lists conditionally: the server sent none of them again.
    const reads = sandbox.requests().filter((r) => r.method === 'GET');
    expect(reads.length).toBeGreaterThan(0);
    expect(reads.map((r) => r.status)).toEqual(reads.map(() => 304));
    expect(planned()[0]).not.toHaveProperty('planTaken');

    const page = await (await api('/')).text();
    expect(page).toContain('In sync');
    const everything = `${daemon.output()}${JSON.stringify(receiver.bodies)}${page}${JSON.stringify(status)}`;
    for (const secret of [TOKEN, sandbox.credentials.apiKey, 'secret-part-of-the-hook-url']) expect(everything).not.toContain(secret);
  });

  it(
    'a target whose server fails: not ready after its first failed run, ' +
      'one failed and one recovered notification for many failed runs',
    async () => {
      daemon = await startDaemon(dir, ['--debounce', '200', '--schedule', '0 0 1 1 *'], env());
      await until('ready', async () => ((await fetch(`${daemon?.url ?? ''}/readyz`)).status === 200 ? true : undefined));
      sandbox.faults.set({ error5xx: 1 });
      touch();
      await until('the first failed run', () => (results('failure') >= 1 ? true : undefined));
      // Within one retry: the first failed run already makes the target not ready, with why and since when.
      const readyz = await fetch(`${daemon.url}/readyz`);
      expect(readyz.status).toBe(503);
      // A code and since when (the probe needs no token); the reason quoting the server is on /api/status.
      const body = (await readyz.json()) as { targets: { sb: Record<string, unknown> } };
      expect(body.targets.sb).toEqual({
        ready: false,
        code: 'failing',
        error: 'API',
        since: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) as string,
        failedRuns: 1,
        leader: true,
      });
      const reasons = (await (await api('/api/status')).json()) as { targets: { readyReason: string }[] };
      expect(reasons.targets[0]?.readyReason).toMatch(
        new RegExp(
          String.raw`^failing since \d{4}-\d\d-\d\dT[\d:.]+Z \(\d+ s, 1 failed run\): GET \/api\/v2\/\S+ on 127\.0\.0\.1:\d+ ` +
            String.raw`failed: HTTP 5\d\d.*; retry at \d{4}-`,
        ),
      );
      expect(daemon.events('target-unreachable')).toHaveLength(1);
      await until('three failed runs (retries with back-off)', () => (results('failure') >= 3 ? true : undefined));
      expect(daemon.events('target-unreachable')).toHaveLength(1);
      const status = (await (await api('/api/status')).json()) as {
        targets: { state: string; reason: string; nextRun: { why: string } }[];
      };
      expect(status.targets[0]).toMatchObject({ state: 'failing', nextRun: { why: 'retry' } });
      sandbox.faults.clear();
      await until('recovery', async () => ((await fetch(`${daemon?.url ?? ''}/readyz`)).status === 200 ? true : undefined));
      await until('the recovered notification', () => (kinds().includes('recovered') ? true : undefined));
      expect(kinds()).toEqual(['failed', 'recovered']);
      const failed = receiver.bodies.find((b) => (b as { kind: string }).kind === 'failed') as {
        target: string;
        severity: string;
        summary: string;
      };
      expect([failed.target, failed.severity]).toEqual(['sb', 'error']);
      expect(failed.summary).toMatch(/^target sb is failing: GET /);
      expect(daemon.events('target-recovered')).toHaveLength(1);
    },
  );

  it('the status token guards / and /api/*, never the probes; a sink that fails is logged and counted, never fatal', async () => {
    receiver.failNext([500, 500, 500, 500]);
    // The server fails before the daemon starts: its first run begins as soon as it listens, and a
    // fault set after that could come too late (a run that succeeded, and no other for a year).
    sandbox.faults.set({ error5xx: 1 });
    daemon = await startDaemon(dir, ['--debounce', '200', '--schedule', '0 0 1 1 *'], env());
    await until('a failed run', () => (results('failure') >= 1 ? true : undefined));
    await until('the notification given up', () => (daemon?.lines().some((l) => l.msg === 'notification failed') ? true : undefined));
    for (const path of ['/', '/api/status', '/api/events', '/api/events/stream', '/targets/sb'])
      expect((await fetch(`${daemon.url}${path}`)).status, path).toBe(401);
    for (const path of ['/livez', '/metrics']) expect((await fetch(`${daemon.url}${path}`)).status, path).toBe(200);
    expect((await fetch(`${daemon.url}/readyz`)).status).toBe(503);
    const metrics = await (await fetch(`${daemon.url}/metrics`)).text();
    expect(metrics).toMatch(/obsync_notifications_total\{sink="notifications\[0\]",type="generic",result="failed"\} 1/);
    expect(metrics).toMatch(/obsync_events_total\{target="sb",event="run-finished"\} [1-9]/);
    expect(daemon.child.exitCode).toBeNull();
    expect(daemon.output()).not.toContain('secret-part-of-the-hook-url');
  });
});
