/**
 * Rotating the API key obsync uses, on the hosted variant, through the CLI as the README tells
 * it: create a new key, switch to it, disable the old one, see that it no longer works, delete it.
 * `keys list` as a table and as JSON, never a secret; deletes ask first.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { assertBuilt, runCli } from '../support/cli.js';
import { fakeIO, runInProcess } from '../support/cli-io.js';

let sandbox: SandboxHandle;
let dir: string;

beforeAll(() => assertBuilt());

// A sandbox per test: the rotation deletes the sandbox's own key.
beforeEach(async () => {
  sandbox = await startSandbox({ host: '127.0.0.1', port: 0, rateLimit: 'off' });
  dir = mkdtempSync(join(tmpdir(), 'obsync-keys-'));
  const c = sandbox.credentials;
  writeFileSync(
    join(dir, 'obsync.yaml'),
    `apiVersion: obsync/v1\nkind: Config\ntargets:\n  - name: prod\n    variant: hosted\n    baseUrl: ${sandbox.url}\n    ` +
      `organizationId: ${c.organizationId}\n    serviceId: ${c.serviceId}\n  - name: staging\n    variant: self-hosted\n    baseUrl: ` +
      `${sandbox.url}\n    credentials: {apiKey: "\${env:STAGING_KEY}"}\n`,
  );
});

afterEach(async () => {
  await sandbox.close();
  rmSync(dir, { recursive: true, force: true });
});

const as = (keyId: string, keySecret: string) => ({ OBSYNC_KEY_ID: keyId, OBSYNC_KEY_SECRET: keySecret });
const keys = (args: string[], env: Record<string, string>) => runCli(['keys', ...args, '--target', 'prod'], { cwd: dir, env });

describe('obsync keys', () => {
  it('rotates the key obsync uses: create, switch, disable the old one, delete it', async () => {
    const old = as(sandbox.credentials.keyId, sandbox.credentials.keySecret);
    const before = await keys(['list'], old);
    expect(before.code, before.stderr).toBe(0);
    const [header, ...rows] = before.stdout.trimEnd().split('\n');
    expect(header).toMatch(/^ID +NAME +STATE +ROLES +KEY ID +CREATED +EXPIRES +LAST USED +ALLOWED FROM$/);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatch(
      /^\S+ +sandbox-bootstrap +enabled +Admin +…\S+ +\d{4}-\d\d-\d\d \d\d:\d\d UTC +never +\d{4}-\d\d-\d\d \d\d:\d\d UTC +anywhere$/,
    );

    const created = await keys(['create', '--name', 'obsync-2026-12', '--role', 'admin', '--out', 'new-key.json'], old);
    expect(created.code, created.stderr).toBe(0);
    const fresh = JSON.parse(readFileSync(join(dir, 'new-key.json'), 'utf8')) as { keyId: string; keySecret: string };
    const now = as(fresh.keyId, fresh.keySecret);

    const listed = await keys(['list', '--output', 'json'], now);
    const all = JSON.parse(listed.stdout) as { id: string; name: string; state: string }[];
    expect(all.map((k) => [k.name, k.state])).toEqual([
      ['sandbox-bootstrap', 'enabled'],
      ['obsync-2026-12', 'enabled'],
    ]);
    for (const text of [before.stdout, listed.stdout, created.stderr]) {
      expect(text).not.toContain(sandbox.credentials.keySecret);
      expect(text).not.toContain(fresh.keySecret);
    }

    const disabled = await keys(['disable', 'sandbox-bootstrap'], now);
    expect(disabled.code, disabled.stderr).toBe(0);
    expect(disabled.stdout).toMatch(/^disabled key 'sandbox-bootstrap' \(id \S+, key id ending \S+\)\n$/);
    // The old key no longer works; a rollback would be `keys enable`.
    const withOld = await keys(['list'], old);
    expect(withOld.code).toBe(1);
    expect(withOld.stderr).toContain('HTTP 401');

    const id = all.find((k) => k.name === 'sandbox-bootstrap')?.id ?? '';
    const noTerminal = await keys(['delete', id], now);
    expect(noTerminal.code).toBe(1);
    expect(noTerminal.stderr).toContain('refusing to delete a key without --auto-approve');
    const deleted = await keys(['delete', id, '--auto-approve'], now);
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(deleted.stdout).toContain("deleted key 'sandbox-bootstrap'");
    expect((JSON.parse((await keys(['list', '--output', 'json'], now)).stdout) as { name: string }[]).map((k) => k.name)).toEqual([
      'obsync-2026-12',
    ]);

    // The key obsync authenticates with is neither disabled nor deleted (issue 50): refused before anything is sent,
    // with the way round it.
    sandbox.clearRequests();
    for (const verb of ['disable', 'delete']) {
      const self = await keys([verb, 'obsync-2026-12', '--auto-approve'].slice(0, verb === 'delete' ? 3 : 2), now);
      expect(self.code).toBe(1);
      expect(self.stderr).toContain(`refusing to ${verb} key 'obsync-2026-12'`);
      expect(self.stderr).toMatch(
        /it is the key this target authenticates with .*; nothing was sent\n {2}hint: point the target at another key first/,
      );
    }
    expect(sandbox.requests().filter((r) => r.method !== 'GET')).toEqual([]);
    expect((JSON.parse((await keys(['list', '--output', 'json'], now)).stdout) as { state: string }[]).map((k) => k.state)).toEqual([
      'enabled',
    ]);
  });

  it('asks before a delete on a terminal; only yes deletes', async () => {
    const c = sandbox.credentials;
    const env = as(c.keyId, c.keySecret);
    const created = await keys(['create', '--name', 'to-delete', '--role', 'developer', '--out', 'to-delete.json'], env);
    expect(created.code, created.stderr).toBe(0);
    const no = fakeIO(dir, { env, tty: true, input: 'no\n' });
    expect(await runInProcess(no.io, ['keys', 'delete', 'to-delete', '--target', 'prod'])).toBe(1);
    expect(no.err()).toContain("Delete API key 'to-delete'");
    expect(no.err()).toContain('Delete cancelled.');
    const yes = fakeIO(dir, { env, tty: true, input: 'yes\n' });
    expect(await runInProcess(yes.io, ['keys', 'delete', 'to-delete', '--target', 'prod'])).toBe(0);
    expect(yes.out()).toContain("deleted key 'to-delete'");
  });

  it('names a key that does not exist, or two keys of one name, and the way out', async () => {
    const env = as(sandbox.credentials.keyId, sandbox.credentials.keySecret);
    const missing = await keys(['disable', 'nope'], env);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("error: no key has the id or name 'nope'\n  hint: `obsync keys list` shows them");
    for (const n of [1, 2])
      expect((await keys(['create', '--name', 'twin', '--role', 'developer', '--out', `twin${n}.json`], env)).code).toBe(0);
    const twins = await keys(['delete', 'twin', '--auto-approve'], env);
    expect(twins.code).toBe(1);
    expect(twins.stderr).toContain("error: 2 keys are named 'twin'\n  hint: name one by its id:");
  });

  it('says that keys are a hosted capability on a self-hosted target', async () => {
    const res = await runCli(['keys', 'list', '--target', 'staging'], { cwd: dir, env: { STAGING_KEY: sandbox.credentials.apiKey } });
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/API keys \(hosted variant only\)/);
  });
});
