/**
 * Exit codes and the guards of the daily verbs, against the real sandbox over loopback: a
 * refused prune, a selection that matches nothing, "no" at the prompt, a saved plan on a
 * terminal, keys create onto an existing file, --timeout and the host in API errors.
 */
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { assertBuilt, runCli } from '../support/cli.js';
import { fakeIO, runInProcess } from '../support/cli-io.js';

let sandbox: SandboxHandle;
let dir: string;

function config(url: string): string {
  const c = sandbox.credentials;
  return `apiVersion: obsync/v1
kind: Config
manifests: [kinds, team]
targets:
  - name: hosted
    variant: hosted
    baseUrl: ${url}
    organizationId: ${c.organizationId}
    serviceId: ${c.serviceId}
    credentials: {keyId: ${c.keyId}, keySecret: "\${env:KEY_SECRET}"}
    rateLimit: {requests: 1000, perSeconds: 1}
`;
}

const env = (extra: Record<string, string> = {}) => ({ KEY_SECRET: sandbox.credentials.keySecret, ...extra });
const writes = () => sandbox.requests().filter((r) => r.method !== 'GET');

beforeAll(() => assertBuilt());

beforeEach(async () => {
  sandbox = await startSandbox({ port: 0, rateLimit: 'off', pipeTransitionMs: 20 });
  dir = mkdtempSync(join(tmpdir(), 'obsync-exit-'));
  cpSync('config-examples/kinds', join(dir, 'kinds'), { recursive: true });
  cpSync('config-examples/team', join(dir, 'team'), { recursive: true });
  writeFileSync(join(dir, 'obsync.yaml'), config(sandbox.url));
  return async () => {
    await sandbox.close();
    rmSync(dir, { recursive: true, force: true });
  };
});

describe('a refused prune', () => {
  it('exits 1 after printing the plan, and apply then changes nothing', async () => {
    expect((await runCli(['apply', '--auto-approve'], { cwd: dir, env: env() })).code).toBe(0);
    rmSync(join(dir, 'kinds/alert.yaml')); // two owned alerts are no longer declared
    writeFileSync(
      join(dir, 'team/extra.yaml'),
      'apiVersion: obsync/v1\nkind: Alert\nmetadata: {name: extra}\nspec: {savedSearch: Errors, interval: 5m, threshold: 1, ' +
        'thresholdType: above, channel: {type: webhook, webhook: ops-slack}}\n',
    );
    const plan = await runCli(['plan', '--prune', '--max-deletes', '1'], { cwd: dir, env: env() });
    expect(plan.code).toBe(1);
    expect(plan.stdout).toContain('+ Alert/extra');
    expect(plan.stdout).toContain('Prune refused');
    expect(plan.stdout).toContain('2 deletes exceed the limit of 1');

    const json = await runCli(['plan', '--prune', '--max-deletes', '1', '--output', 'json'], { cwd: dir, env: env() });
    expect(json.code).toBe(1);
    expect((JSON.parse(json.stdout) as { targets: { prune: { refused: string[] } }[] }).targets[0]?.prune.refused).toHaveLength(1);
    expect(json.stderr).toContain('error: prune refused: 2 deletes exceed the limit of 1');

    sandbox.clearRequests();
    const apply = await runCli(['apply', '--auto-approve', '--prune', '--max-deletes', '1'], { cwd: dir, env: env() });
    expect(apply.code).toBe(1);
    expect(apply.stdout).toContain('Prune refused');
    expect(apply.stderr).toContain('Nothing was applied');
    expect(writes()).toEqual([]);
  });
});

describe('--only and --selector', () => {
  it('that match no declared or owned object exit 1, naming the selection, before any request', async () => {
    sandbox.clearRequests();
    const only = await runCli(['plan', '--only', 'Dashboard/chekout'], { cwd: dir, env: env() });
    expect(only.code).toBe(1);
    expect(only.stderr).toContain('error: --only Dashboard/chekout matches no declared or owned object');
    const selector = await runCli(['apply', '--auto-approve', '--selector', 'team=nobody'], { cwd: dir, env: env() });
    expect(selector.code).toBe(1);
    expect(selector.stderr).toContain('error: --selector team=nobody matches no declared or owned object');
    expect(sandbox.requests()).toEqual([]);
  });

  it('that match something plan it (exit 0)', async () => {
    const res = await runCli(['plan', '--selector', 'team=platform'], { cwd: dir, env: env() });
    expect(res.code).toBe(0);
    expect(res.stdout).toContain('Dashboard/example-service');
    expect(res.stdout).not.toContain('Dashboard/checkout');
  });

  it('still reach an owned object that is no longer declared (to prune it)', async () => {
    expect((await runCli(['apply', '--auto-approve'], { cwd: dir, env: env() })).code).toBe(0);
    rmSync(join(dir, 'kinds/alert.yaml'));
    const res = await runCli(['apply', '--auto-approve', '--prune', '--only', 'Alert/example-error-logs'], { cwd: dir, env: env() });
    expect(res.code).toBe(0);
    expect(res.stderr).toContain('Alert/example-error-logs: deleted');
  });
});

describe('the confirmation prompt (a terminal on stdin)', () => {
  it('"no" exits 1 with "Apply cancelled." and writes nothing', async () => {
    const t = fakeIO(dir, { env: env(), tty: true, input: 'no\n' });
    sandbox.clearRequests();
    expect(await runInProcess(t.io, ['apply'])).toBe(1);
    expect(t.err()).toContain("Apply these changes to target 'hosted'?");
    expect(t.err()).toContain('Apply cancelled.');
    expect(writes()).toEqual([]);
  });

  it('a saved plan applies without a prompt, as terraform apply plan.tfplan', async () => {
    expect((await runCli(['plan', '--out', 'plan.json'], { cwd: dir, env: env() })).code).toBe(0);
    // Were it asked, "no" would cancel it.
    const t = fakeIO(dir, { env: env(), tty: true, input: 'no\n' });
    expect(await runInProcess(t.io, ['apply', 'plan.json'])).toBe(0);
    expect(t.err()).not.toContain('Apply these changes');
    expect(t.out()).toContain('Apply complete:');
    expect(writes().length).toBeGreaterThan(0);
  });
});

describe('obsync keys create --out', () => {
  it('onto an existing file fails before a key is created, and leaves the file alone', async () => {
    writeFileSync(join(dir, 'key.json'), 'an older key\n');
    sandbox.clearRequests();
    const res = await runCli(['keys', 'create', '--name', 'ci', '--role', 'developer', '--out', 'key.json'], { cwd: dir, env: env() });
    expect(res.code).toBe(1);
    expect(res.stderr).toContain(`--out ${join(dir, 'key.json')} already exists; no key was created`);
    expect(res.stderr).not.toMatch(/EEXIST|at .*\.js/);
    expect(readFileSync(join(dir, 'key.json'), 'utf8')).toBe('an older key\n');
    expect(sandbox.requests()).toEqual([]);
  });

  it('writes a new file once, and leaves no empty file when the key could not be created', async () => {
    const ok = await runCli(['keys', 'create', '--name', 'ci', '--role', 'developer', '--out', 'new.json'], { cwd: dir, env: env() });
    expect(ok.code).toBe(0);
    expect(Object.keys(JSON.parse(readFileSync(join(dir, 'new.json'), 'utf8')) as object)).toEqual(['keyId', 'keySecret']);
    const refused = await runCli(['keys', 'create', '--name', 'ci', '--role', 'developer', '--out', 'other.json'], {
      cwd: dir,
      env: env({ KEY_SECRET: 'wrong' }),
    });
    expect(refused.code).toBe(1);
    expect(existsSync(join(dir, 'other.json'))).toBe(false);
  });
});

describe('API errors and --timeout', () => {
  it('name the host of the target, never its credentials', async () => {
    const res = await runCli(['plan'], { cwd: dir, env: env({ KEY_SECRET: 'wrong-secret-value' }) });
    expect(res.code).toBe(1);
    expect(res.stderr).toContain(`on 127.0.0.1:${sandbox.port} failed: HTTP 401`);
    expect(res.stderr).not.toContain('wrong-secret-value');
  });

  it('--timeout bounds each request; the error names the host', async () => {
    sandbox.faults.set({ latencyMs: 5_000 });
    const res = await runCli(['plan', '--timeout', '0.2'], { cwd: dir, env: env() });
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(new RegExp(`GET \\S+ on 127\\.0\\.0\\.1:${sandbox.port} failed: no response`));
  });
});
