/**
 * CI as a new user runs it: every run in a fresh working directory (a new runner), the state in
 * PostgreSQL through OBSYNC_STATE_URL. A merge that removes a manifest prunes it; an unchanged
 * secret stays unchanged; `state list | show | rm | migrate` work on the shared state; the
 * database password never appears in any output.
 */
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { assertBuilt, runCli, type CliResult } from '../support/cli.js';
import { startPostgres, type PgServer } from '../support/postgres.js';

let pg: PgServer;
let sandbox: SandboxHandle;
let schema: string;
const dirs: string[] = [];
const outputs: CliResult[] = [];
const S3_SECRET = 'ci-s3-secret-value-77';

const PIPE = `apiVersion: obsync/v1
kind: Pipe
metadata: {name: events-s3}
spec:
  name: events-s3
  source:
    objectStorage:
      authentication: IAM_USER
      accessKey: {accessKeyId: AKIAEXAMPLE, secretKey: "\${env:S3_SECRET}"}
`;

const EXTRA =
  `apiVersion: obsync/v1
kind: Dashboard
metadata: {name: ci-extra}
spec:
  name: CI extra
  tiles:
    - {key: lat, name: Latency, x: 0, y: 0, w: 12, h: 4, config: {displayType: line, source: Traces, select: [{aggFn: avg, ` +
  `valueExpression: Duration}]}}
`;

function config(state: string): string {
  const c = sandbox.credentials;
  return `apiVersion: obsync/v1
kind: Config
manifests: [kinds, team]
state: ${state}
targets:
  - name: prod
    variant: hosted
    baseUrl: ${sandbox.url}
    organizationId: ${c.organizationId}
    serviceId: ${c.serviceId}
    credentials: {keyId: ${c.keyId}, keySecret: ${c.keySecret}}
    rateLimit: {requests: 1000, perSeconds: 1}
`;
}

/** A fresh checkout on a fresh runner: nothing from an earlier run on disk. */
function checkout(opts: { extra: boolean; state?: string }): string {
  const dir = mkdtempSync(join(tmpdir(), 'obsync-ci-'));
  dirs.push(dir);
  cpSync('config-examples/kinds', join(dir, 'kinds'), { recursive: true });
  cpSync('config-examples/team', join(dir, 'team'), { recursive: true });
  writeFileSync(join(dir, 'kinds', 'zz-pipe.yaml'), PIPE);
  if (opts.extra) writeFileSync(join(dir, 'team', 'ci-extra.yaml'), EXTRA);
  writeFileSync(join(dir, 'obsync.yaml'), config(opts.state ?? `{backend: postgres, url: "\${env:OBSYNC_STATE_URL}", schema: ${schema}}`));
  return dir;
}

async function obsync(dir: string, args: string[], extraEnv: Record<string, string> = {}): Promise<CliResult> {
  const res = await runCli(args, { cwd: dir, env: { OBSYNC_STATE_URL: pg.url, S3_SECRET, ...extraEnv } });
  outputs.push(res);
  return res;
}

async function dashboardNames(): Promise<string[]> {
  const c = sandbox.credentials;
  const auth = `Basic ${Buffer.from(`${c.keyId}:${c.keySecret}`).toString('base64')}`;
  const res = await fetch(`${sandbox.url}/v1/organizations/${c.organizationId}/services/${c.serviceId}/clickstack/dashboards`, {
    headers: { authorization: auth },
  });
  return ((await res.json()) as { result: { name: string }[] }).result.map((d) => d.name);
}

beforeAll(async () => {
  assertBuilt();
  pg = await startPostgres();
});
afterAll(async () => {
  for (const out of outputs) {
    expect(out.stdout + out.stderr).not.toContain(pg.password);
    expect(out.stdout + out.stderr).not.toContain(S3_SECRET);
  }
  await pg.close();
});
beforeEach(async () => {
  sandbox = await startSandbox({ port: 0, rateLimit: 'off', pipeTransitionMs: 20 });
  schema = pg.freshSchema('ci');
});
afterEach(async () => {
  await sandbox.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('CI runs with the state in PostgreSQL', () => {
  it('prunes a manifest removed by a later merge, and sees an unchanged secret as unchanged on a fresh runner', async () => {
    const first = await obsync(checkout({ extra: true }), ['apply', '--auto-approve']);
    expect(first.code, first.stderr).toBe(0);
    expect(await dashboardNames()).toContain('CI extra');

    const review = await obsync(checkout({ extra: true }), ['plan', '--detailed-exitcode']);
    expect(review.code, review.stdout + review.stderr).toBe(0);

    const merged = await obsync(checkout({ extra: false }), ['apply', '--auto-approve', '--prune']);
    expect(merged.code, merged.stderr).toBe(0);
    expect(merged.stderr).toMatch(/Dashboard\/ci-extra: deleted/);
    expect(await dashboardNames()).not.toContain('CI extra');

    const listed = await obsync(checkout({ extra: false }), ['state', 'list', '--output', 'json']);
    const owned = JSON.parse(listed.stdout) as { kind: string; name: string; id: string }[];
    expect(owned.map((o) => `${o.kind}/${o.name}`)).toContain('Pipe/events-s3');
    expect(owned.map((o) => `${o.kind}/${o.name}`)).not.toContain('Dashboard/ci-extra');
  });

  it('forgets an object with state rm: prune never touches it afterwards', async () => {
    expect((await obsync(checkout({ extra: true }), ['apply', '--auto-approve'])).code).toBe(0);
    const table = await obsync(checkout({ extra: true }), ['state', 'list']);
    expect(table.stdout).toMatch(/^TARGET\s+KIND\s+NAME\s+ID\s+SINCE$/m);
    expect(table.stdout).toMatch(/^prod\s+Dashboard\s+ci-extra\s+\S+\s+\d{4}-/m);
    const shown = await obsync(checkout({ extra: true }), ['state', 'show', 'Dashboard/ci-extra']);
    expect(shown.stdout).toMatch(/status: owned/);
    const secretShown = await obsync(checkout({ extra: true }), ['state', 'show', 'Pipe/events-s3']);
    expect(secretShown.stdout).toMatch(/secrets:\n\s+- source\.objectStorage\.accessKey/);
    expect(secretShown.stdout).not.toMatch(/hmac-sha256/);

    const rm = await obsync(checkout({ extra: true }), ['state', 'rm', 'Dashboard/ci-extra']);
    expect(rm.code, rm.stderr).toBe(0);
    expect(rm.stdout).toMatch(/Forgot Dashboard\/ci-extra/);
    const again = await obsync(checkout({ extra: true }), ['state', 'rm', 'Dashboard/ci-extra']);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/not in the state of target 'prod'/);

    const plan = await obsync(checkout({ extra: false }), ['plan', '--prune', '--detailed-exitcode']);
    expect(plan.code, plan.stdout).toBe(0);
    expect(plan.stdout).not.toMatch(/ci-extra/);
    expect((await obsync(checkout({ extra: false }), ['apply', '--auto-approve', '--prune'])).code).toBe(0);
    expect(await dashboardNames()).toContain('CI extra');
  });

  it('migrates a file state to PostgreSQL and back, keeping ownership and the fingerprint key', async () => {
    const local = checkout({ extra: true, state: '{backend: file, path: .obsync/state}' });
    expect((await obsync(local, ['apply', '--auto-approve'], { OBSYNC_STATE_URL: '' })).code).toBe(0);
    const up = await obsync(local, ['state', 'migrate', '--to', 'postgres'], { OBSYNC_STATE_SCHEMA: schema });
    expect(up.code, up.stderr).toBe(0);
    expect(up.stdout).toMatch(/target 'prod': \d+ entries and 0 backups copied/);
    expect(up.stdout).toMatch(/with its fingerprint key/);
    const twice = await obsync(local, ['state', 'migrate', '--to', 'postgres'], { OBSYNC_STATE_SCHEMA: schema });
    expect(twice.code).toBe(1);
    expect(twice.stderr).toMatch(/already holds \d+ entries for target 'prod'/);

    // A fresh runner on the migrated state: nothing to do, the secret included.
    const fresh = await obsync(checkout({ extra: false }), ['plan', '--detailed-exitcode', '--prune']);
    expect(fresh.code, fresh.stdout).toBe(2);
    expect(fresh.stdout).toMatch(/- Dashboard\/ci-extra/);
    expect(fresh.stdout).not.toMatch(/Pipe\/events-s3/);

    const back = checkout({ extra: true });
    const down = await obsync(back, ['state', 'migrate', '--to', 'file']);
    expect(down.code, down.stderr).toBe(0);
    writeFileSync(join(back, 'obsync.yaml'), config('{backend: file, path: .obsync/state}'));
    const onFile = await obsync(back, ['plan', '--detailed-exitcode'], { OBSYNC_STATE_URL: '' });
    expect(onFile.code, onFile.stdout + onFile.stderr).toBe(0);
  });
});
