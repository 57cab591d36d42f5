/**
 * One obsync.yaml, several targets (issue 16): only the targets a command uses have their
 * settings and credentials resolved, and bad input (an unknown target, a missing var, a kind the
 * variant cannot manage) is a clear error with nothing written.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { assertBuilt, runCli } from '../support/cli.js';

let dir: string;

const CONFIG = `apiVersion: obsync/v1
kind: Config
manifests: [base]
targets:
  - name: staging
    variant: sandbox
    api: self-hosted
    data: .obsync/sandbox-staging
    vars: {limit: 900}
  - name: production
    variant: hosted
    baseUrl: https://api.example.com
    organizationId: \${env:PROD_ORG_ID}
    serviceId: \${env:PROD_SERVICE_ID}
    credentials: {keyId: "\${env:PROD_KEY_ID}", keySecret: "\${env:PROD_KEY_SECRET}"}
    manifests: [production]
    vars: {limit: "\${env:PROD_LIMIT}"}
`;

const ALERT = `apiVersion: obsync/v1
kind: Dashboard
metadata: {name: checkout}
spec:
  name: Checkout
  tiles:
    - {key: errors, name: "Errors above \${var:limit}", x: 0, y: 0, w: 6, h: 2, config: {displayType: markdown}}
`;

const PIPE = 'apiVersion: obsync/v1\nkind: Pipe\nmetadata: {name: orders}\nspec: {name: orders-postgres, state: running}\n';

function write(rel: string, text: string): void {
  mkdirSync(join(dir, rel, '..'), { recursive: true });
  writeFileSync(join(dir, rel), text);
}

beforeAll(() => assertBuilt());

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'obsync-multienv-'));
  write('obsync.yaml', CONFIG);
  write('base/checkout.yaml', ALERT);
  write('production/pipe.yaml', PIPE);
});

afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('a target chosen among several', () => {
  it('plans with only its own settings resolved: the other target its unset variables are no error', async () => {
    const res = await runCli(['plan', '--target', 'staging', '--detailed-exitcode'], { cwd: dir });
    expect(res.stderr).not.toMatch(/error/i);
    expect(res.code).toBe(2);
    expect(res.stdout).toContain('Dashboard/checkout');
    expect(res.stdout).toContain('Errors above 900');
  });

  it('refuses an unknown target, naming the declared ones, with nothing written', async () => {
    const res = await runCli(['plan', '--target', 'stagging'], { cwd: dir });
    expect(res.code).toBe(1);
    expect(res.stderr).toContain("unknown target 'stagging'");
    expect(res.stderr).toContain('obsync.yaml declares: staging, production');
    expect(existsSync(join(dir, '.obsync'))).toBe(false);
  });

  it('refuses the selected target its unset variables, naming them', async () => {
    const res = await runCli(['plan', '--target', 'production'], { cwd: dir });
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/obsync\.yaml:13:\d+: error: environment variable PROD_ORG_ID is not set/);
    expect(res.stderr).not.toMatch(/staging/);
    expect(existsSync(join(dir, '.obsync'))).toBe(false);
  });

  it('refuses a kind its variant cannot manage and a missing var before anything is written', async () => {
    write('base/pipe.yaml', PIPE);
    write('base/checkout.yaml', ALERT.replace('${var:limit}', '${var:limt}'));
    const res = await runCli(['apply', '--target', 'staging', '--auto-approve'], { cwd: dir });
    expect(res.code).toBe(1);
    expect(res.stderr).toContain("base/pipe.yaml:1:1: error: target 'staging' (self-hosted) cannot manage Pipe objects");
    expect(res.stderr).toMatch(
      /base\/checkout\.yaml:7:\d+: error: \$\{var:limt\}: target 'staging' has no var 'limt' — did you mean 'limit'\?/,
    );
    expect(res.stdout).toBe('');
    // Not even the state directory or the sandbox's data.
    expect(existsSync(join(dir, '.obsync'))).toBe(false);
  });
});
