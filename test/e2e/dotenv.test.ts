/**
 * `.env` as a user meets it: `./.env` and the `.env` beside the obsync.yaml in use are read before
 * a command runs (for `${env:}` and obsync's own settings), a variable already set in the
 * environment wins, `--dotenv FILE` reads another file instead, and an unreadable file is an error
 * that changes nothing. A variable that is missing says where it may come from.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { assertBuilt, runCli } from '../support/cli.js';

let dir: string;
let sandbox: SandboxHandle;

beforeAll(async () => {
  assertBuilt();
  sandbox = await startSandbox({ host: '127.0.0.1', port: 0, seed: 'demo', rateLimit: 'off' });
});
afterAll(() => sandbox.close());
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A project whose alert threshold is `${env:THRESHOLD}`. */
async function project(): Promise<string> {
  dir = mkdtempSync(join(tmpdir(), 'obsync-dotenv-'));
  expect((await runCli(['init'], { cwd: dir })).code).toBe(0);
  const file = join(dir, 'manifests', 'example.yaml');
  writeFileSync(file, readFileSync(file, 'utf8').replace('threshold: 800', 'threshold: ${env:THRESHOLD}'));
  return dir;
}

describe('.env', () => {
  it('./.env fills ${env:} references; a variable set in the environment wins', async () => {
    const cwd = await project();
    const unset = await runCli(['validate'], { cwd });
    expect(unset.code).toBe(1);
    expect(unset.stdout + unset.stderr).toContain('environment variable THRESHOLD is not set');
    expect(unset.stdout + unset.stderr).toContain('put it in .env or a file given with --dotenv');
    writeFileSync(join(cwd, '.env'), '# thresholds\nTHRESHOLD=700\n');
    // From elsewhere, with --config: the .env beside that obsync.yaml.
    const elsewhere = await runCli(['validate', '--config', join(cwd, 'obsync.yaml')], { cwd: tmpdir() });
    expect(elsewhere).toMatchObject({ code: 0, stdout: 'valid: 2 resource(s)\n' });
    expect(await runCli(['validate'], { cwd })).toMatchObject({ code: 0, stdout: 'valid: 2 resource(s)\n' });
    const fromFile = await runCli(['plan'], { cwd });
    expect(fromFile.stdout).toContain('+ threshold: 700');
    const fromEnv = await runCli(['plan'], { cwd, env: { THRESHOLD: '650' } });
    expect(fromEnv.stdout).toContain('+ threshold: 650');
  });

  it("sets obsync's own variables: a target from OBSYNC_BASE_URL and a key in .env, the key never printed", async () => {
    const cwd = await project();
    rmSync(join(cwd, 'obsync.yaml'));
    const key = sandbox.credentials.apiKey;
    writeFileSync(
      join(cwd, '.env'),
      `THRESHOLD=700\nOBSYNC_BASE_URL=${sandbox.url}\nOBSYNC_VARIANT=self-hosted\nexport OBSYNC_API_KEY="${key}"\n`,
    );
    const before = sandbox.requests().length;
    const plan = await runCli(['plan', 'manifests'], { cwd });
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain("on target 'default' (self-hosted)");
    expect(sandbox.requests().length).toBeGreaterThan(before); // the sandbox of .env, not the embedded one
    expect(plan.stderr).not.toContain('embedded sandbox');
    expect(plan.stdout + plan.stderr).not.toContain(key);
  });

  it('--dotenv FILE reads that file instead of ./.env, before or after the command', async () => {
    const cwd = await project();
    writeFileSync(join(cwd, '.env'), 'THRESHOLD=700\n');
    mkdirSync(join(cwd, 'env'));
    writeFileSync(join(cwd, 'env', 'staging.env'), 'THRESHOLD=900\n');
    expect((await runCli(['plan', '--dotenv', 'env/staging.env'], { cwd })).stdout).toContain('+ threshold: 900');
    expect((await runCli(['--dotenv', 'env/staging.env', 'plan'], { cwd })).stdout).toContain('+ threshold: 900');
  });

  it('an unreadable file is an error, and nothing runs', async () => {
    const cwd = await project();
    const missing = await runCli(['apply', '--auto-approve', '--dotenv', 'nope.env'], { cwd });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('error: --dotenv nope.env cannot be read');
    mkdirSync(join(cwd, '.env'));
    const directory = await runCli(['apply', '--auto-approve'], { cwd });
    expect(directory.code).toBe(1);
    expect(directory.stderr).toContain('error: .env cannot be read');
    expect(directory.stderr).toContain('is not a regular file (a directory)');
    expect(existsSync(join(cwd, '.obsync'))).toBe(false);
  });
});
