/**
 * Issue 53 item 2 and issue 50 item 1, end to end: a server that answers a write with a 400
 * echoing the Authorization header and the request — escaped as PHP and Java (`\/`), Go
 * (`\u0026`, `\u003c`) and HTML (`&#47;`, `&amp;`) write it, percent-encoded in lower case, and cut
 * to its first 10 characters, and a generic webhook's body re-serialised compactly, its routing
 * key alone and 11 of 16 characters of a header value — against a hosted target (HTTP Basic
 * `keyId:keySecret`, the secret holding `/` and `+`) and a self-hosted one (a Bearer key holding `/`). Neither key, nor the key
 * id inside the Basic token, nor a piece of either, shows in the CLI's output, the daemon's log,
 * /readyz (no token), /api/status, or the generic and Slack notification payloads.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodedViews } from '../../src/core/unescape.js';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { fakeIO, runInProcess } from '../support/cli-io.js';
import { assertBuilt } from '../support/cli.js';
import { startDaemon, startReceiver, type Receiver, type RunningDaemon } from '../support/daemon.js';
import { escapedWith, percentEncoded } from '../support/echoes.js';
import { startProxy, type Proxy } from '../support/proxy.js';
import { until } from '../support/wait.js';

const KEY_ID = 'hosted-key-id-5d2e';
const KEY_SECRET = 'Hk9s/ecr3t+Value/Zq4W';
const API_KEY = 'sk9Q/api+key/8f2c91d0e7';
const TOKEN = 'status-token-echo-0c4e91f2a7';
/** A generic webhook's body (as written: spaced) with a routing key, and a header value: sensitive fields. */
const ROUTING_KEY = 'R0UT1NGKEY0c9d4e7fa2b1';
const BODY = `{ "routing_key": "${ROUTING_KEY}", "event_action": "trigger" }`;
const HEADER_VALUE = 'Hv7kQ2mN9pL4vR8t';

let sandbox: SandboxHandle;
let proxy: Proxy;
let receiver: Receiver;
let dir: string;
let daemon: RunningDaemon | undefined;

/** The 400 a careless server sends: what it got, in every escaping at once (built by hand: each part keeps its own escapes). */
function echo(authorization: string, body: string): string {
  const credential = authorization.replace(/^(Basic|Bearer) /, '');
  const php = (t: string) => JSON.stringify(t).slice(1, -1).replace(/\//g, '\\/');
  const go = (t: string) => escapedWith(JSON.stringify(t).slice(1, -1), 'Go json (<, >, &)');
  const parts = [
    `php: Authorization: ${php(authorization)} body ${php(body)}`,
    `go: <auth>${go(`${authorization} & more`)}</auth>`,
    `html: ${escapedWith(authorization, 'HTML named')}`,
    `url: ?auth=${percentEncoded(credential, [false])}`,
    `cut: ${credential.slice(0, 10)}… and ****${credential.slice(-12)}`,
  ];
  // A webhook: its body as the server re-serialised it (compact), its routing key alone, 11 of 16 characters of a header.
  const sent = JSON.parse(body) as { body?: string; headers?: Record<string, string> };
  if (sent.body !== undefined) {
    const parsed = JSON.parse(sent.body) as { routing_key: string };
    parts.unshift(
      `webhook: ${php(JSON.stringify(parsed))} key ${parsed.routing_key} header ${(sent.headers?.['X-Auth'] ?? '').slice(0, 11)}*****`,
    );
  }
  return `{"status":400,"error":"${parts.join(' | ')}","requestId":"r-echo"}`;
}

/** Every secret in play and the pieces that give it away, as written or under any escape. */
function leaks(text: string): string[] {
  const basic = Buffer.from(`${KEY_ID}:${KEY_SECRET}`).toString('base64');
  const pieces = [KEY_SECRET, API_KEY, basic, basic.slice(0, 12), basic.slice(-12), API_KEY.slice(0, 10), KEY_SECRET.slice(0, 10), TOKEN];
  pieces.push(ROUTING_KEY, HEADER_VALUE.slice(0, 11), JSON.stringify(JSON.parse(BODY)));
  const views = [text, ...decodedViews(text).map((v) => v.text)];
  return pieces.filter((p) => views.some((v) => v.includes(p)));
}

function project(): void {
  const c = sandbox.credentials;
  writeFileSync(
    join(dir, 'obsync.yaml'),
    `apiVersion: obsync/v1
kind: Config
manifests: [manifests]
targets:
  - name: hp
    variant: hosted
    baseUrl: ${proxy.url}
    organizationId: ${c.organizationId}
    serviceId: ${c.serviceId}
    credentials: {keyId: "\${env:OBSYNC_KEY_ID}", keySecret: "\${env:OBSYNC_KEY_SECRET}"}
    rateLimit: {requests: 1000, perSeconds: 1}
    retries: 0
  - name: sh
    variant: self-hosted
    baseUrl: ${proxy.url}
    credentials: {apiKey: "\${env:SH_API_KEY}"}
    rateLimit: {requests: 1000, perSeconds: 1}
    retries: 0
notifications:
  - {type: generic, url: "\${env:HOOK_URL}"}
  - {type: slack, url: "\${env:SLACK_URL}"}
statusToken: "\${env:OBSYNC_STATUS_TOKEN}"
`,
  );
  writeFileSync(
    join(dir, 'manifests/d.yaml'),
    'apiVersion: obsync/v1\nkind: Dashboard\nmetadata: {name: checkout}\nspec: {name: Checkout, tiles: []}\n',
  );
  writeFileSync(
    join(dir, 'manifests/w.yaml'),
    `apiVersion: obsync/v1\nkind: Webhook\nmetadata: {name: pager}\nspec:\n  service: generic\n  name: pager\n  url: ` +
      `https://events.example.com/v2/enqueue\n  body: ${JSON.stringify(BODY)}\n  headers: {X-Auth: ${HEADER_VALUE}}\n`,
  );
}

const env = () => ({
  OBSYNC_KEY_ID: KEY_ID,
  OBSYNC_KEY_SECRET: KEY_SECRET,
  SH_API_KEY: API_KEY,
  HOOK_URL: receiver.url,
  SLACK_URL: `${receiver.url}-slack`,
  OBSYNC_STATUS_TOKEN: TOKEN,
});

beforeAll(async () => {
  assertBuilt();
  sandbox = await startSandbox({ port: 0, rateLimit: 'off', keyId: KEY_ID, keySecret: KEY_SECRET, apiKey: API_KEY });
  proxy = await startProxy(sandbox.url, (req) =>
    req.method === 'GET'
      ? undefined
      : { status: 400, headers: { 'content-type': 'application/json' }, body: echo(String(req.headers.authorization), req.body) },
  );
  receiver = await startReceiver();
  dir = mkdtempSync(join(tmpdir(), 'obsync-hostile-escaped-'));
  mkdirSync(join(dir, 'manifests'));
  project();
});

afterAll(async () => {
  await daemon?.stop();
  await receiver.close();
  await proxy.close();
  await sandbox.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('a server echoing the credentials escaped, encoded and cut', () => {
  it('the CLI shows the mask, never a key or a piece of one (text and JSON)', async () => {
    for (const output of ['text', 'json']) {
      const run = fakeIO(dir, { env: env() });
      expect(await runInProcess(run.io, ['apply', '--auto-approve', '--output', output])).toBe(1);
      const all = run.out() + run.err();
      // The server really echoed them, in every style.
      expect(proxy.arrivals.some((r) => r.method === 'POST')).toBe(true);
      expect(all).toMatch(/HTTP 400/);
      expect(all).toMatch(/webhook: \(sensitive\) key \(sensitive\) header \(sensitive\)\*{5}/);
      expect(all).toContain('(sensitive)');
      expect(leaks(all), output).toEqual([]);
    }
  });

  it('the daemon log, /readyz, /api/status and both notification payloads never show one', async () => {
    daemon = await startDaemon(dir, ['--schedule', '0 0 1 1 *', '--no-watch'], env());
    const running = daemon;
    const failedNotes = () => receiver.bodies.filter((b) => JSON.stringify(b).includes('failing'));
    await until('a failed notification of each target to each sink', () => (failedNotes().length >= 4 ? true : undefined), {
      timeoutMs: 30_000,
      context: () => running.output().slice(-3000),
    });
    const readyz = await (await fetch(`${running.url}/readyz`)).text();
    const status = await (await fetch(`${running.url}/api/status`, { headers: { authorization: `Bearer ${TOKEN}` } })).text();
    expect(JSON.parse(readyz)).toMatchObject({
      ready: false,
      targets: { hp: { code: 'failing', error: 'API' }, sh: { code: 'failing', error: 'API' } },
    });
    expect(readyz).not.toMatch(/HTTP 400|php:|sensitive/);
    // The authenticated status says what the server said, masked.
    expect(status).toMatch(/HTTP 400 .*\(sensitive\)/);
    const generic = receiver.bodies.filter((b) => (b as { schema?: string }).schema !== undefined);
    const slack = receiver.bodies.filter((b) => (b as { blocks?: unknown }).blocks !== undefined);
    expect(generic.length).toBeGreaterThan(0);
    expect(slack.length).toBeGreaterThan(0);
    for (const [where, text] of Object.entries({
      log: running.output(),
      readyz,
      status,
      generic: JSON.stringify(generic),
      slack: JSON.stringify(slack),
    }))
      expect(leaks(text), where).toEqual([]);
  });
});
