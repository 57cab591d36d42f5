/**
 * One notification per incident (issue 52 item 2) and sinks the ecosystem can take as they are
 * (issue 51 item 3), `obsync run` as a child process against two sandboxes: staging with 100
 * objects, prod with 5. The first run creates them all: no drift, no drift counted. Then staging
 * is emptied and prod nearly so (its alert kept, with its threshold changed by hand); one run
 * later each sink holds one drift and one healed notification per target, nothing dropped, while
 * the event stream carried every per-object event. Each sink's form is checked with the ecosystem's own tools: a Standard
 * Webhooks library verifies the signature, the CloudEvents SDK reads the event, Alertmanager's
 * format (ported) takes the alerts, and the Slack message holds the field change as text.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { type CloudEvent, HTTP } from 'cloudevents';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { alertmanagerRefuses } from '../support/alertmanager-format.js';
import { assertBuilt } from '../support/cli.js';
import { startDaemon, startReceiver, type Receiver, type RunningDaemon } from '../support/daemon.js';
import { until as waitUntil } from '../support/wait.js';

const SECRET = `whsec_${Buffer.from('obsync-notifications-test-signing-key-0001').toString('base64')}`;
const HEADER_VALUE = 'Bearer custom-header-value-5e1f9a';
const TARGETS = ['staging', 'prod'] as const;
let sandboxes: Record<(typeof TARGETS)[number], SandboxHandle>;
let receiver: Receiver;
let dir: string;
let daemon: RunningDaemon | undefined;

const until = <T>(what: string, probe: () => Promise<T | undefined> | T | undefined) =>
  waitUntil(what, probe, { timeoutMs: 60_000, context: () => daemon?.output().slice(-4000) ?? '' });

function dashboard(name: string): string {
  return `apiVersion: obsync/v1\nkind: Dashboard\nmetadata: {name: ${name}}\nspec: {name: "Dashboard ${name}", tags: [bulk], tiles: []}\n`;
}

/** Staging reads bulk/ and checkout/ (100 objects), prod checkout/ and few/ (5). */
function writeManifests(): void {
  const alert = `apiVersion: obsync/v1
kind: Alert
metadata: {name: checkout-p99-high}
spec:
  dashboard: checkout
  tile: p99
  interval: 5m
  threshold: 900
  thresholdType: above
  channel: {type: webhook, webhook: ops-slack}
  name: Checkout p99 above 900 ms
`;
  const trees = {
    bulk: Array.from({ length: 98 }, (_, i) => dashboard(`d-${String(i).padStart(3, '0')}`)),
    checkout: [readFileSync('config-examples/team/dashboards/checkout.yaml', 'utf8'), alert],
    few: ['a', 'b', 'c'].map((n) => dashboard(`few-${n}`)),
  };
  for (const [tree, docs] of Object.entries(trees)) {
    mkdirSync(join(dir, tree));
    writeFileSync(join(dir, tree, 'manifests.yaml'), docs.join('---\n'));
  }
}

function config(): string {
  const trees = { staging: '[bulk, checkout]', prod: '[checkout, few]' };
  const target = (name: (typeof TARGETS)[number]) => `  - name: ${name}
    manifests: ${trees[name]}
    variant: self-hosted
    baseUrl: ${sandboxes[name].url}
    credentials: {apiKey: "\${env:OBSYNC_API_KEY}"}
    rateLimit: {requests: 1000, perSeconds: 1}
`;
  return (
    `apiVersion: obsync/v1
kind: Config
targets:
${TARGETS.map(target).join('')}notifications:
  - {type: generic, url: "${receiver.origin}/generic", signingSecret: "\${env:HOOK_SECRET}", headers: {Authorization: ` +
    `"\${env:HOOK_HEADER}"}}
  - {type: generic, url: "${receiver.origin}/cloudevents", format: cloudevents}
  - {type: alertmanager, url: "${receiver.origin}/am"}
  - {type: slack, url: "${receiver.origin}/slack"}
`
  );
}

async function api(sandbox: SandboxHandle, path: string, init: RequestInit = {}): Promise<unknown> {
  const res = await fetch(`${sandbox.url}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${sandbox.credentials.apiKey}`, 'content-type': 'application/json' },
  });
  if (init.method === 'DELETE') return undefined;
  return ((await res.json()) as { data: unknown }).data;
}

/** Deletes what obsync made on the service (alerts first), keeping what `keep` names. */
async function empty(sandbox: SandboxHandle, keep: (name: string) => boolean = () => false): Promise<void> {
  for (const kind of ['alerts', 'dashboards'])
    for (const o of (await api(sandbox, `/api/v2/${kind}`)) as { id: string; name: string }[])
      if (!keep(o.name)) await api(sandbox, `/api/v2/${kind}/${o.id}`, { method: 'DELETE' });
}

/** The SSE stream's events, as they come. */
function follow(url: string): { events: Record<string, unknown>[]; stop: () => void } {
  const events: Record<string, unknown>[] = [];
  const abort = new AbortController();
  void (async () => {
    const res = await fetch(`${url}/api/events/stream`, { signal: abort.signal });
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true });
      const lines = buffer.split('\n');
      buffer = lines.pop() ?? '';
      for (const line of lines) if (line.startsWith('data: ')) events.push(JSON.parse(line.slice(6)) as Record<string, unknown>);
    }
  })().catch(() => undefined);
  return { events, stop: () => abort.abort() };
}

beforeAll(async () => {
  assertBuilt();
  sandboxes = { staging: await startSandbox({ port: 0, rateLimit: 'off' }), prod: await startSandbox({ port: 0, rateLimit: 'off' }) };
  receiver = await startReceiver();
  dir = mkdtempSync(join(tmpdir(), 'obsync-notifications-'));
  writeManifests();
  writeFileSync(join(dir, 'obsync.yaml'), config());
});

afterAll(async () => {
  await daemon?.stop();
  await receiver.close();
  for (const s of Object.values(sandboxes)) await s.close();
  rmSync(dir, { recursive: true, force: true });
});

const onPath = (path: string) => receiver.requests.filter((r) => r.path === path);
const generic = () => onPath('/generic').map((r) => JSON.parse(r.raw) as Record<string, unknown>);
const runsFinished = () => daemon?.events('run-finished').length ?? 0;

it(
  'an emptied service: one notification per target and class in ' + 'every sink, nothing dropped, every per-object event streamed',
  async () => {
    const env = { OBSYNC_API_KEY: sandboxes.staging.credentials.apiKey, HOOK_SECRET: SECRET, HOOK_HEADER: HEADER_VALUE };
    daemon = await startDaemon(dir, ['--no-watch', '--schedule', '0 0 1 1 *'], env);
    await until('the first run of both targets', () => (runsFinished() >= 2 ? true : undefined));
    expect(daemon.events('run-finished').map((e) => e.result)).toEqual(['success', 'success']);
    expect(daemon.events('created')).toHaveLength(105);
    // Creating what the manifests declare is no drift (issue 51): no drift event, nothing counted.
    expect(daemon.events('drift')).toEqual([]);
    expect(await (await fetch(`${daemon.url}/metrics`)).text()).not.toMatch(/^obsync_drift_total\{/m);
    await until('the leadership notifications', () => (generic().length >= 2 ? true : undefined));

    const stream = follow(daemon.url);
    await until('the stream to connect', async () =>
      (await (await fetch(`${daemon?.url ?? ''}/metrics`)).text()).includes('obsync_status_stream_clients 1') ? true : undefined,
    );
    await empty(sandboxes.staging);
    await empty(sandboxes.prod, (name) => name === 'Checkout service' || name.startsWith('Checkout p99'));
    const [live] = (await api(sandboxes.prod, '/api/v2/alerts')) as { id: string }[];
    const { id, ...alert } = (await api(sandboxes.prod, `/api/v2/alerts/${live?.id ?? ''}`)) as { id: string } & Record<string, unknown>;
    await api(sandboxes.prod, `/api/v2/alerts/${id}`, { method: 'PUT', body: JSON.stringify({ ...alert, threshold: 1500 }) });

    daemon.child.kill('SIGHUP');
    await until('the second run of both targets', () => (runsFinished() >= 4 ? true : undefined));
    const paths = ['/generic', '/cloudevents', '/am/api/v2/alerts', '/slack'];
    await until('every sink told', () => (paths.every((p) => onPath(p).length >= 6) ? true : undefined));
    stream.stop();

    // One per target and class, in every sink; the two leadership notes from the start.
    const docs = generic().filter((d) => d.kind !== 'leader');
    expect(docs.map((d) => `${String(d.target)} ${String(d.kind)} ${String(d.count)}`).sort()).toEqual([
      'prod drift 4',
      'prod healed 4',
      'staging drift 100',
      'staging healed 100',
    ]);
    for (const p of paths) expect(onPath(p), p).toHaveLength(6);
    const staging = docs.find((d) => d.target === 'staging' && d.kind === 'drift');
    expect(staging?.summary).toMatch(/^100 objects were missing on staging and were recreated: Dashboard\/\S+, \S+, \S+ and 97 more$/);
    const prod = docs.find((d) => d.target === 'prod' && d.kind === 'drift') as {
      summary: string;
      objects: { event: { address: string }; changes: string[] }[];
    };
    expect(prod.summary).toBe(
      '4 objects drifted on prod: 3 were missing and were recreated (Dashboard/few-a, Dashboard/few-b and Dashboard/few-c); 1 was ' +
        'changed and was put back (Alert/checkout-p99-high)',
    );
    expect(prod.objects.find((o) => o.event.address === 'Alert/checkout-p99-high')?.changes).toContain('threshold 1500 → 900');

    // Nothing dropped: every body says so, and so do the metrics and the log.
    expect(docs.map((d) => d.dropped)).toEqual([0, 0, 0, 0]);
    const metrics = await (await fetch(`${daemon.url}/metrics`)).text();
    expect(metrics).not.toMatch(/result="dropped"/);
    expect(daemon.lines().filter((l) => l.msg === 'notification dropped')).toEqual([]);
    // drift_total counts the drift events of the second run, by kind.
    expect(metrics).toMatch(/obsync_drift_total\{target="staging",kind="Dashboard"\} 99\n/);
    expect(metrics).toMatch(/obsync_drift_total\{target="prod",kind="Alert"\} 1\n/);

    // Every per-object event went out on the stream.
    const count = (target: string, event: string) => stream.events.filter((e) => e.target === target && e.event === event).length;
    expect(TARGETS.map((t) => ['drift', 'healed', 'created'].map((e) => count(t, e)))).toEqual([
      [100, 100, 100],
      [4, 4, 3],
    ]);

    // Signed (a Standard Webhooks library verifies it), with the custom header; schema-valid.
    const ajv = new Ajv({ strict: true, allErrors: true });
    addFormats.default(ajv);
    const valid = ajv.compile(JSON.parse(readFileSync('docs/schema/notification.schema.json', 'utf8')) as object);
    const verifier = new Webhook(SECRET);
    for (const r of onPath('/generic')) {
      expect(r.headers.authorization).toBe(HEADER_VALUE);
      const body = verifier.verify(r.raw, r.headers);
      expect(valid(body), JSON.stringify(valid.errors)).toBe(true);
      expect(r.headers['webhook-id']).toBe((body as { id: string }).id);
    }
    // CloudEvents: the SDK reads and validates each one; its data is the same document.
    for (const r of onPath('/cloudevents')) {
      const event = HTTP.toEvent({ headers: r.headers, body: r.raw }) as CloudEvent<unknown>;
      expect(event.validate()).toBe(true);
      expect(valid(event.data), JSON.stringify(valid.errors)).toBe(true);
    }
    // Alertmanager takes every alert.
    for (const r of onPath('/am/api/v2/alerts')) expect(alertmanagerRefuses(JSON.parse(r.raw))).toEqual([]);
    const firing = onPath('/am/api/v2/alerts').flatMap((r) => JSON.parse(r.raw) as { labels: Record<string, string> }[]);
    expect(firing.map((a) => `${a.labels.alertname} ${a.labels.target}`).sort()).toEqual([
      'ObsyncDrift prod',
      'ObsyncDrift staging',
      'ObsyncHealed prod',
      'ObsyncHealed staging',
      'ObsyncLeadership prod',
      'ObsyncLeadership staging',
    ]);
    // Slack: the summary and the field change, as text.
    const slack = onPath('/slack')
      .map((r) => r.raw)
      .join('\n');
    expect(slack).toContain('100 objects were missing on staging and were recreated');
    expect(slack).toContain('• Alert/checkout-p99-high: threshold 1500 → 900');

    // No secret anywhere: not in the log, not in a body.
    const everything = `${daemon.output()}${receiver.requests.map((r) => r.raw).join('')}`;
    for (const secret of [SECRET, SECRET.slice(6), HEADER_VALUE, sandboxes.staging.credentials.apiKey])
      expect(everything).not.toContain(secret);
  },
);
