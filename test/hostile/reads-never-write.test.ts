/**
 * Issue 53 item 3: reads never write. On an idle hosted service, every command that only reads
 * (plan in any output, export, import, validate, state list, a plan-mode daemon) sends nothing
 * but GETs and the POSTs listed as read-only (src/remote/read-only.ts): the wake-up PATCH a
 * ClickPipes read would need is refused before it leaves, the command says the service is idle
 * and plans (or exports) the rest, and the service stays idle. Only `apply` wakes it.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isRead } from '../../src/remote/read-only.js';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { assertBuilt } from '../support/cli.js';
import { fakeIO, runInProcess } from '../support/cli-io.js';
import { startDaemon } from '../support/daemon.js';
import { until } from '../support/wait.js';

let sandbox: SandboxHandle;
let dir: string;
const IDLE = /the service is idle; ClickPipes cannot be read without waking it/;

const MANIFESTS = `apiVersion: obsync/v1
kind: Dashboard
metadata: {name: idle-check}
spec:
  name: Idle check
  tiles: []
---
apiVersion: obsync/v1
kind: Pipe
metadata: {name: events-s3}
spec:
  name: events-s3
  state: running
`;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, rateLimit: 'off', pipeTransitionMs: 5 });
  dir = mkdtempSync(join(tmpdir(), 'obsync-idle-'));
  const c = sandbox.credentials;
  writeFileSync(
    join(dir, 'obsync.yaml'),
    `apiVersion: obsync/v1
kind: Config
manifests: [manifests]
targets:
  - name: hosted
    variant: hosted
    baseUrl: ${sandbox.url}
    organizationId: ${c.organizationId}
    serviceId: ${c.serviceId}
    credentials: {keyId: ${c.keyId}, keySecret: ${c.keySecret}}
    rateLimit: {requests: 1000, perSeconds: 1}
`,
  );
  mkdirSync(join(dir, 'manifests'));
  writeFileSync(join(dir, 'manifests', 'all.yaml'), MANIFESTS);
  // The dashboard exists and is owned, so import has something to find.
  const applied = fakeIO(dir);
  expect(await runInProcess(applied.io, ['apply', '--auto-approve']), applied.err()).toBe(0);
});

afterAll(async () => {
  await sandbox?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** What the service was sent that is not a read. */
function writes(): string[] {
  return sandbox
    .requests()
    .filter((r) => !isRead(r))
    .map((r) => `${r.method} ${r.path}`);
}

async function dashboardId(): Promise<string> {
  const c = sandbox.credentials;
  const auth = `Basic ${Buffer.from(`${c.keyId}:${c.keySecret}`).toString('base64')}`;
  const res = await fetch(`${sandbox.url}/v1/organizations/${c.organizationId}/services/${c.serviceId}/clickstack/dashboards`, {
    headers: { authorization: auth },
  });
  const body = (await res.json()) as { result: { id: string; name: string }[] };
  return body.result.find((d) => d.name === 'Idle check')?.id ?? '';
}

type Command = { args: (id: string) => string[]; reads: boolean };

/** Every command that reads the service without writing to it, and those that do not read it at all. */
const COMMANDS: Record<string, Command> = {
  plan: { args: () => ['plan'], reads: true },
  'plan json': { args: () => ['plan', '--output', 'json', '--detailed-exitcode'], reads: true },
  'plan markdown': { args: () => ['plan', '--output', 'markdown'], reads: true },
  export: { args: () => ['export', '--out-dir', 'exported', '--force'], reads: true },
  'export pipes': { args: () => ['export', '--kind', 'Pipe', '--out-dir', 'exported-pipes', '--force'], reads: true },
  import: { args: (id) => ['import', 'Dashboard/idle-check', id], reads: true },
  validate: { args: () => ['validate'], reads: false },
  'state list': { args: () => ['state', 'list'], reads: false },
};

describe('on an idle hosted service', () => {
  beforeAll(() => assertBuilt());

  it('any sequence of read-only commands sends no write, says why pipes were not read, and leaves the service idle', async () => {
    const id = await dashboardId();
    expect(id).not.toBe('');
    await fc.assert(
      fc.asyncProperty(fc.array(fc.constantFrom(...Object.keys(COMMANDS)), { minLength: 1, maxLength: 4 }), async (names) => {
        sandbox.service.idle();
        sandbox.clearRequests();
        for (const name of names) {
          const command = COMMANDS[name] as Command;
          const { io, out, err } = fakeIO(dir);
          const code = await runInProcess(io, command.args(id));
          expect(writes(), `${name}: ${err()}`).toEqual([]);
          expect(sandbox.service.state(), name).toBe('idle');
          if (name.startsWith('plan')) {
            // The rest is planned; the pipe is reported, not planned, and the plan is not a failure.
            expect(code, err()).not.toBe(1);
            expect(out() + err()).toMatch(IDLE);
          }
          if (name === 'export') expect(err()).toMatch(IDLE);
          if (name === 'export pipes') expect([code, err()]).toEqual([1, expect.stringMatching(IDLE)]);
        }
      }),
      { numRuns: 6 },
    );
  });

  it('a plan-mode daemon does not wake it', async () => {
    sandbox.service.idle();
    sandbox.clearRequests();
    const daemon = await startDaemon(dir, ['--mode', 'plan', '--no-watch', '--schedule', '0 0 1 1 *']);
    try {
      await until('a run', () => (daemon.events('run-finished').length >= 1 ? true : undefined), { context: daemon.output });
    } finally {
      await daemon.stop();
    }
    expect(sandbox.requests().some((r) => r.path.includes('/clickpipes'))).toBe(true);
    expect(writes()).toEqual([]);
    expect(sandbox.service.state()).toBe('idle');
  });

  it('apply wakes it (under the writer lease) and plans the pipe', async () => {
    sandbox.service.idle();
    sandbox.clearRequests();
    const { io, out, err } = fakeIO(dir);
    expect(await runInProcess(io, ['apply', '--auto-approve']), err()).toBe(0);
    expect(writes()).toContain(
      `PATCH /v1/organizations/${sandbox.credentials.organizationId}/services/${sandbox.credentials.serviceId}/state`,
    );
    expect(out() + err()).not.toMatch(IDLE);
  });
});
