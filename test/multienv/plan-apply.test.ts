/**
 * plan and apply on several targets from one command (issue 16): grouped output per target
 * (text, markdown, JSON), --detailed-exitcode over all, one confirmation for all, a saved plan
 * of several targets, and a target whose server is down never stopping the others.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { NOTHING_LISTENS } from '../support/wait.js';
import { SANDBOX_DEFAULTS } from '../../src/sandbox/defaults.js';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { assertBuilt, runCli } from '../support/cli.js';
import { fakeIO, runInProcess } from '../support/cli-io.js';

const ENV = { STAGING_API_KEY: SANDBOX_DEFAULTS.apiKey, PROD_KEY_ID: SANDBOX_DEFAULTS.keyId, PROD_KEY_SECRET: SANDBOX_DEFAULTS.keySecret };

let dir: string;
let sandbox: SandboxHandle;

beforeAll(() => assertBuilt());

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'obsync-multi-plan-'));
  cpSync('config-examples/multi-env', dir, { recursive: true });
  sandbox = await startSandbox({ port: 0, rateLimit: 'off', pipeTransitionMs: 20 });
  pointAt({ staging: sandbox.url, production: sandbox.url });
});

afterEach(async () => {
  await sandbox.close();
  rmSync(dir, { recursive: true, force: true });
});

// The hosted default limit (10 requests per 10 s) makes an apply of this size wait 10 s; the waits
// have their own tests (test/hostile/waits-server.test.ts), these are about the targets.
const SERVICE_LINE = '    serviceId: b0000000-0000-4000-8000-000000000001\n';
const NO_WAITS = '    rateLimit: {requests: 1000, perSeconds: 1}\n';

/** The example's obsync.yaml with each target at the given base URL (and no client-side waits). */
function pointAt(urls: { staging: string; production: string }): void {
  const original = readFileSync('config-examples/multi-env/obsync.yaml', 'utf8');
  const [head, production] = original.split('  - name: production');
  writeFileSync(
    join(dir, 'obsync.yaml'),
    `${(head ?? '').replace('http://127.0.0.1:8000', urls.staging)}  - name: production` +
      (production ?? '').replace('http://127.0.0.1:8000', urls.production).replace(SERVICE_LINE, `${SERVICE_LINE}${NO_WAITS}`),
  );
}

// A chart query (a backtest) is a POST that writes nothing.
const writes = () => sandbox.requests().filter((r) => r.method !== 'GET' && !r.path.endsWith('/charts/series'));

describe('plan with several targets', () => {
  it('covers every declared target, one section each, and exits 2 when any has changes', async () => {
    const res = await runCli(['plan', '--detailed-exitcode'], { cwd: dir, env: ENV });
    expect(res.stderr).not.toMatch(/^error/m);
    expect(res.code).toBe(2);
    const staging = res.stdout.indexOf("obsync will perform these actions on target 'staging' (self-hosted):");
    const production = res.stdout.indexOf("obsync will perform these actions on target 'production' (hosted):");
    expect(staging).toBeGreaterThanOrEqual(0);
    expect(production).toBeGreaterThan(staging);
    expect(res.stdout).toContain('Storefront canary (staging)');
    expect(res.stdout.slice(production)).not.toContain('storefront-canary');
    expect(res.stdout).toMatch(
      new RegExp(
        String.raw`^Targets: staging: 4 to create, 0 to update, 0 to delete, 0 unchanged; production: 3 to create, 0 to update, ` +
          String.raw`0 to delete, 1 to adopt, 0 unchanged\n$`,
        'm',
      ),
    );
    expect(writes()).toEqual([]);
  });

  it('writes one markdown section per target (a pull-request comment) and one JSON document with targets', async () => {
    const md = await runCli(['plan', '--output', 'markdown'], { cwd: dir, env: ENV });
    expect(md.stdout.match(/^### Target `(\w+)`/gm)).toEqual(['### Target `staging`', '### Target `production`']);
    expect(md.stdout).toContain('**Targets:** `staging`: 4 to create');
    const json = await runCli(['plan', '--output', 'json'], { cwd: dir, env: ENV });
    const doc = JSON.parse(json.stdout) as {
      format_version: string;
      targets: { target: string; variant: string; summary: { create: number } }[];
    };
    expect(doc.targets.map((t) => [t.target, t.variant, t.summary.create])).toEqual([
      ['staging', 'self-hosted', 4],
      ['production', 'hosted', 3],
    ]);
  });

  it('plans the targets whose settings resolve and reports the one whose variable is missing, as an unreachable one', async () => {
    const { PROD_KEY_SECRET: _unset, ...partial } = ENV;
    const res = await runCli(['plan'], { cwd: dir, env: partial });
    expect(res.code).toBe(1);
    expect(res.stdout).toContain("obsync will perform these actions on target 'staging' (self-hosted):");
    expect(res.stdout).toMatch(/^Targets: staging: 4 to create, 0 to update, 0 to delete, 0 unchanged; production: not planned$/m);
    const missing = new RegExp(
      String.raw`obsync\.yaml:\d+:\d+: error: environment variable PROD_KEY_SECRET is not set \(referenced as ` +
        String.raw`\$\{env:PROD_KEY_SECRET\}\): set it, or put it in \.env or a file given with --dotenv \(at ` +
        String.raw`targets\[1\]\.credentials\.keySecret\)`,
    );
    expect(res.stdout).toMatch(
      new RegExp(`Target 'production' could not be planned: its settings in \\S+ cannot be resolved:\\n  \\S*${missing.source}`),
    );
    expect(res.stderr).toMatch(/^error: target 'production': its settings in obsync\.yaml cannot be resolved:$/m);
    expect(res.stderr).toContain('hint: set the variables it names (or plan the other targets with --target)');
    // In JSON the target is under `failed`, so `apply FILE` refuses the file as incomplete.
    const json = await runCli(['plan', '--output', 'json'], { cwd: dir, env: partial });
    const doc = JSON.parse(json.stdout) as { targets: { target: string }[]; failed: { target: string }[] };
    expect(doc.targets.map((t) => t.target)).toEqual(['staging']);
    expect(doc.failed.map((f) => f.target)).toEqual(['production']);
    // apply goes on with staging, reports production, and exits 1.
    const apply = await runCli(['apply', '--auto-approve'], { cwd: dir, env: partial });
    expect(apply.code).toBe(1);
    expect(apply.stderr).toMatch(/^staging: Dashboard\/storefront: created/m);
    expect(apply.stderr).toMatch(/^error: target 'production': its settings in /m);
    // The one target asked for, with its variable missing: the command's own error, nothing planned.
    const one = await runCli(['plan', '--target', 'production'], { cwd: dir, env: partial });
    expect(one.code).toBe(1);
    expect(one.stderr).toMatch(/^error: obsync\.yaml is invalid:\n.*PROD_KEY_SECRET is not set/m);
    // A literal mistake in one target is still the whole file's error.
    writeFileSync(join(dir, 'obsync.yaml'), readFileSync(join(dir, 'obsync.yaml'), 'utf8').replace('variant: hosted', 'variant: hostd'));
    const literal = await runCli(['plan'], { cwd: dir, env: ENV });
    expect(literal.code).toBe(1);
    expect(literal.stdout).toBe('');
  });

  it('plans the targets given with --target (repeatable), only those', async () => {
    const res = await runCli(['plan', '--target', 'production', '--target', 'staging', '--output', 'json'], { cwd: dir, env: ENV });
    expect((JSON.parse(res.stdout) as { targets: { target: string }[] }).targets.map((t) => t.target)).toEqual(['production', 'staging']);
    const one = await runCli(['plan', '--target', 'production', '--output', 'json'], { cwd: dir, env: ENV });
    expect((JSON.parse(one.stdout) as { targets: { target: string }[] }).targets.map((t) => t.target)).toEqual(['production']);
  });

  it('saves a plan of several targets that apply takes back, then nothing is left to do', async () => {
    const plan = await runCli(['plan', '--out', 'plan.json'], { cwd: dir, env: ENV });
    expect(plan.code).toBe(0);
    // A target the saved plan does not hold would be applied unreviewed: refused, nothing written.
    const other = await runCli(['apply', 'plan.json', '--target', 'qa'], { cwd: dir, env: ENV });
    expect(other.code).toBe(1);
    expect(other.stderr).toContain("plan.json holds the plan of 'staging', 'production', not of 'qa'");
    expect(writes()).toEqual([]);
    const apply = await runCli(['apply', 'plan.json'], { cwd: dir, env: ENV });
    expect(apply.stderr).toMatch(/^staging: Dashboard\/storefront: created/m);
    expect(apply.stderr).toMatch(/^production: Dashboard\/storefront: created/m);
    expect(apply.code).toBe(0);
    const again = await runCli(['plan', '--detailed-exitcode'], { cwd: dir, env: ENV });
    expect(again.stdout).toContain('Targets: staging: no changes; production: no changes');
    expect(again.code).toBe(0);
    // Changes on one target only: still 2.
    writeFileSync(
      join(dir, 'staging/dashboards/storefront-canary.yaml'),
      readFileSync(join(dir, 'staging/dashboards/storefront-canary.yaml'), 'utf8').replace(
        'Storefront canary (staging)',
        'Storefront canary',
      ),
    );
    const one = await runCli(['plan', '--detailed-exitcode'], { cwd: dir, env: ENV });
    expect(one.stdout).toContain('Targets: staging: 0 to create, 1 to update, 0 to delete, 3 unchanged; production: no changes');
    expect(one.code).toBe(2);
  });
});

describe('apply with several targets', () => {
  it('asks once for all targets on a terminal; only yes applies, to every target', async () => {
    const no = fakeIO(dir, { env: ENV, tty: true, input: 'no\n' });
    expect(await runInProcess(no.io, ['apply'])).toBe(1);
    expect(no.err().match(/Apply these changes to/g)).toHaveLength(1);
    expect(no.err()).toContain("Apply these changes to targets 'staging', 'production'? Only 'yes' is accepted");
    expect(writes()).toEqual([]);
    const yes = fakeIO(dir, { env: ENV, tty: true, input: 'yes\n' });
    expect(await runInProcess(yes.io, ['apply'])).toBe(0);
    expect(yes.out()).toContain("Apply complete: target 'staging': 4 created");
    expect(yes.out()).toContain("Apply complete: target 'production': 3 created");
  });

  it('applies nothing to any target when a prune guard refuses on one of them', async () => {
    expect((await runCli(['apply', '--auto-approve'], { cwd: dir, env: ENV })).code).toBe(0);
    // Staging no longer declares its canary (a prune candidate); production's pipe is to stop (an update).
    rmSync(join(dir, 'staging/dashboards/storefront-canary.yaml'));
    writeFileSync(
      join(dir, 'production/pipes/orders-postgres.yaml'),
      readFileSync(join(dir, 'production/pipes/orders-postgres.yaml'), 'utf8').replace('state: running', 'state: stopped'),
    );
    const before = writes().length;
    const res = await runCli(['apply', '--auto-approve', '--prune', '--max-deletes', '0'], { cwd: dir, env: ENV });
    expect(res.code).toBe(1);
    expect(res.stderr).toContain(
      'Nothing was applied: fix what the prune guard names, raise --max-deletes if the deletes are intended (--allow-empty-kind KIND for ' +
        "the last objects of a kind), or apply without --prune (on 'staging'; nothing was applied to any target).",
    );
    expect(writes().length).toBe(before);
  });

  it('needs --auto-approve off a terminal, and then writes nothing at all', async () => {
    const res = await runCli(['apply'], { cwd: dir, env: ENV });
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('refusing to apply without --auto-approve');
    expect(writes()).toEqual([]);
  });

  it('goes on with the other targets when one server is down, says which failed, and exits 1', async () => {
    pointAt({ staging: NOTHING_LISTENS, production: sandbox.url });
    const plan = await runCli(['plan'], { cwd: dir, env: { ...ENV, OBSYNC_LOG_LEVEL: 'silent' } });
    expect(plan.code).toBe(1);
    expect(plan.stdout).toContain("Target 'staging' could not be planned");
    expect(plan.stdout).toContain("obsync will perform these actions on target 'production' (hosted):");
    expect(plan.stderr).toMatch(/^error: target 'staging': /m);
    const apply = await runCli(['apply', '--auto-approve'], { cwd: dir, env: ENV });
    expect(apply.code).toBe(1);
    expect(apply.stdout).toMatch(/Apply complete: 3 created/);
    expect(apply.stderr).toMatch(/^error: target 'staging': /m);
    expect(writes().length).toBeGreaterThan(0);
  });
});
