/**
 * Issue 13, item 6: a server that echoes the request (and the Authorization header) in a 400
 * must not put a pipe password or the target key into the CLI's progress lines, `--output json`
 * or the daemon's log. The proxy in front of the sandbox plays that server. Issue 44: nor a pending
 * invitation's invite URL, in any output, export or the state.
 */
import { collectionOf } from '../../src/kinds/registry.js';
import type { ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/core/errors.js';
import { Secret } from '../../src/core/secret.js';
import { createServicePort } from '../../src/remote/index.js';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { assertBuilt, runCli, spawnCli } from '../support/cli.js';
import { startProxy, type Proxy } from '../support/proxy.js';
import { until } from '../support/wait.js';

/** Quotes, a backslash, a slash, a plus and a space: its JSON-escaped and URL-encoded forms differ from it. */
const PASSWORD = 'pg"pa\\ss/w+rd 94127';
/** A numeric-looking key secret. */
const KEY_SECRET = '83927461550912';

let sandbox: SandboxHandle;
let proxy: Proxy;
let dir: string;
let child: ChildProcess | undefined;

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
    credentials: {keyId: ${c.keyId}, keySecret: "\${env:OBSYNC_KEY_SECRET}"}
    rateLimit: {requests: 1000, perSeconds: 1}
    retries: 0
`,
  );
  mkdirSync(join(dir, 'manifests'));
  writeFileSync(
    join(dir, 'manifests/pipe.yaml'),
    `apiVersion: obsync/v1
kind: Pipe
metadata: {name: orders}
spec:
  name: orders-postgres
  source:
    postgres:
      credentials: {username: app, password: "\${env:PG_PASSWORD}"}
`,
  );
}

const env = () => ({ PG_PASSWORD: PASSWORD, OBSYNC_KEY_SECRET: KEY_SECRET });

/** Every form in which the secrets could come out. */
function leaks(text: string): string[] {
  const basic = Buffer.from(`${sandbox.credentials.keyId}:${KEY_SECRET}`).toString('base64');
  const forms = [PASSWORD, JSON.stringify(PASSWORD).slice(1, -1), encodeURIComponent(PASSWORD), 'pa\\\\ss/w+rd', KEY_SECRET, basic];
  return forms.filter((f) => text.includes(f));
}

beforeAll(() => assertBuilt());

beforeEach(async () => {
  sandbox = await startSandbox({ port: 0, rateLimit: 'off', keySecret: KEY_SECRET, pipeTransitionMs: 20 });
  // Writes are answered with a 400 that echoes the body and the Authorization header, as some servers do.
  proxy = await startProxy(sandbox.url, (req) =>
    req.method === 'GET'
      ? undefined
      : {
          status: 400,
          body: JSON.stringify({
            status: 400,
            error: `invalid request ${req.body} (auth ${String(req.headers.authorization)})`,
            requestId: 'r-echo',
          }),
        },
  );
  dir = mkdtempSync(join(tmpdir(), 'obsync-hostile-secrets-'));
  project();
});

afterEach(async () => {
  if (child && child.exitCode === null) {
    child.kill('SIGKILL');
    await new Promise((r) => child?.once('exit', r));
  }
  child = undefined;
  await proxy.close();
  await sandbox.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('a server echoing the request in its error', () => {
  it('shows the mask, never the secrets, in the text progress and the JSON report', async () => {
    const text = await runCli(['apply', '--auto-approve'], { cwd: dir, env: env() });
    // The server really did receive (and echo) the password and the key.
    expect(proxy.arrivals.some((r) => r.method === 'PATCH' && r.body.includes(JSON.stringify(PASSWORD).slice(1, -1)))).toBe(true);
    expect(text.code).toBe(1);
    expect(text.stderr).toMatch(/Pipe\/orders: failed .*HTTP 400 — invalid request .*\(sensitive\)/);
    expect(leaks(text.stdout + text.stderr)).toEqual([]);

    const json = await runCli(['apply', '--auto-approve', '--output', 'json'], { cwd: dir, env: env() });
    const report = JSON.parse(json.stdout) as { targets: { results: { address: string; outcome: string; message?: string }[] }[] };
    expect(report.targets[0]?.results.find((r) => r.address === 'Pipe/orders')).toMatchObject({
      outcome: 'failed',
      message: expect.stringContaining('(sensitive)') as string,
    });
    expect(leaks(json.stdout + json.stderr)).toEqual([]);
  });

  it('shows the mask, never the secrets, in the daemon log', async () => {
    let output = '';
    child = spawnCli(['run', '--listen', '127.0.0.1:0', '--schedule', '*/5 * * * *', '--no-watch'], { cwd: dir, env: env() });
    child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
    await until('the failed step in the log', () => (/"event":"failed","address":"Pipe\/orders"/.test(output) ? true : undefined), {
      context: () => output,
    });
    expect(output).toMatch(/"event":"failed","address":"Pipe\/orders","code":"API","message":"PATCH .*HTTP 400 .*\(sensitive\)/);
    expect(leaks(output)).toEqual([]);
  });
});

describe('an echoed secret at the edge of the excerpt', () => {
  let server: Server | undefined;
  afterEach(async () => {
    await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
    server = undefined;
  });

  it('is masked before the excerpt is cut, so no piece of it survives', async () => {
    const key = 'bearer-key-cut-at-the-edge-6613';
    // A plain-text 400 whose excerpt (300 characters) ends in the middle of the echoed key.
    server = createServer((req, res) =>
      res.writeHead(400, { 'content-type': 'text/plain' }).end(`${'x'.repeat(290)}${req.headers.authorization ?? ''} tail`),
    );
    await new Promise<void>((r) => server?.listen(0, '127.0.0.1', () => r()));
    const port = createServicePort({
      name: 't',
      variant: 'self-hosted',
      baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      concurrency: 1,
      timeoutMs: 2000,
      retries: 0,
      pacing: { limit: 0, windowMs: 1000 },
      embedded: false,
      apiKey: new Secret(key),
    });
    const err = await collectionOf(port, 'Dashboard')
      .list()
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(ApiError);
    // The cut falls inside the mask, not inside the key.
    expect((err as ApiError).message).toMatch(/Bearer \(se/);
    expect((err as ApiError).message).not.toMatch(/Bearer be/);
    await port.close();
  });
});

describe('the invite URL of a pending invitation (issue 44)', () => {
  it('never appears in a plan of any format, an apply, its log, an export or the state, even when a server echoes it', async () => {
    const invite = await fetch(`${sandbox.url}/api/v2/team/invitation`, {
      method: 'POST',
      headers: { authorization: `Bearer ${sandbox.credentials.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'carol@example.com' }),
    });
    const url = String(((await invite.json()) as { data: { url: string } }).data.url);
    const token = url.slice(url.indexOf('token=') + 'token='.length);
    expect(token).toMatch(/^[0-9a-f]{64}$/);
    // A server that echoes the pending invitation's URL in the error of every write.
    const echo = await startProxy(sandbox.url, (req) =>
      req.method === 'GET' ? undefined : { status: 400, body: JSON.stringify({ message: `carol is invited already: ${url}` }) },
    );
    try {
      writeFileSync(
        join(dir, 'obsync.yaml'),
        `apiVersion: obsync/v1\nkind: Config\nmanifests: [manifests]\nstate: {backend: file, path: .obsync/state}\ntargets:\n  - name: ` +
          `sh\n    variant: self-hosted\n    baseUrl: ${echo.url}\n    credentials: {apiKey: ${sandbox.credentials.apiKey}}\n    ` +
          `rateLimit: {requests: 1000, perSeconds: 1}\n    retries: 0\n`,
      );
      rmSync(join(dir, 'manifests'), { recursive: true, force: true });
      mkdirSync(join(dir, 'manifests'));
      const member = (name: string, email: string) =>
        `apiVersion: obsync/v1\nkind: TeamMember\nmetadata: {name: ${name}}\nspec: {email: ${email}}\n`;
      writeFileSync(join(dir, 'manifests/team.yaml'), `${member('carol', 'carol@example.com')}---\n${member('dave', 'dave@example.com')}`);
      const outputs: string[] = [];
      for (const format of ['text', 'json', 'markdown'])
        outputs.push(JSON.stringify(await runCli(['plan', '--output', format], { cwd: dir, env: {} })));
      const applied = await runCli(['apply', '--auto-approve', '--output', 'json'], { cwd: dir, env: {} });
      expect(applied.code).toBe(1);
      expect(applied.stdout).toContain('carol is invited already: (sensitive)');
      outputs.push(JSON.stringify(applied));
      const exported = await runCli(['export', '--kind', 'TeamMember', '--out-dir', 'exported'], { cwd: dir, env: {} });
      expect(exported.code).toBe(0);
      outputs.push(JSON.stringify(exported));
      const files = execFileSync('find', [dir, '-type', 'f'], { encoding: 'utf8' }).trim().split('\n');
      expect(files.some((f) => f.includes('exported/'))).toBe(true);
      for (const f of files) outputs.push(readFileSync(f, 'utf8'));
      const all = outputs.join('\n');
      expect(all).toContain('carol@example.com');
      for (const form of [url, token, encodeURIComponent(url)]) expect(all).not.toContain(form);
    } finally {
      await echo.close();
    }
  });
});
