/**
 * Issue 24 item 10 (two of its minor points): `obsync export` wrote through symbolic links that
 * lead out of --out-dir, and `${file:}` could read obsync's state directory, the fingerprint key
 * included. Export now refuses any path that would leave the directory through a link (nothing
 * written), opens its files without following links, and `${file:}` never reads the state
 * directory — not with --allow-file-outside, not with allowFileOutside: true.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { assertBuilt, runCli } from '../support/cli.js';

let sandbox: SandboxHandle;
let dir: string;
let outside: string;

beforeAll(async () => {
  assertBuilt();
  sandbox = await startSandbox({ port: 0, rateLimit: 'off' });
});
afterAll(() => sandbox.close());
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'obsync-links-'));
  outside = mkdtempSync(join(tmpdir(), 'obsync-outside-'));
  writeFileSync(
    join(dir, 'obsync.yaml'),
    `apiVersion: obsync/v1\nkind: Config\nmanifests: [manifests]\ntargets:\n  - {name: t, variant: self-hosted, baseUrl: ` +
      `"${sandbox.url}", credentials: {apiKey: ${sandbox.credentials.apiKey}}}\n`,
  );
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

describe('export and symbolic links', () => {
  it('refuses a folder in --out-dir that links outside it, and writes nothing anywhere', async () => {
    mkdirSync(join(dir, 'manifests'));
    symlinkSync(outside, join(dir, 'manifests', 'webhook'));
    const res = await runCli(['export', '--out-dir', 'manifests'], { cwd: dir });
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/lead outside it through a symbolic link \(webhook\/.*\.yaml.*\); nothing was written/);
    expect(readdirSync(outside)).toEqual([]);
    expect(readdirSync(join(dir, 'manifests'))).toEqual(['webhook']);
  });

  it('refuses a link where a file goes (even one that points inside), and leaves its target alone', async () => {
    const first = await runCli(['export', '--out-dir', 'manifests'], { cwd: dir });
    expect(first.code).toBe(0);
    const [file] = readdirSync(join(dir, 'manifests', 'webhook'));
    if (!file) throw new Error('no webhook exported');
    const victim = join(outside, 'victim.txt');
    writeFileSync(victim, 'keep me');
    rmSync(join(dir, 'manifests', 'webhook', file));
    symlinkSync(victim, join(dir, 'manifests', 'webhook', file));
    const res = await runCli(['export', '--out-dir', 'manifests', '--force'], { cwd: dir });
    expect(res.code).toBe(1);
    expect(res.stderr).toContain(`webhook/${file}`);
    expect(readFileSync(victim, 'utf8')).toBe('keep me');
  });

  it('follows nothing for an --out-dir that is itself a link the user chose: it is resolved once', async () => {
    symlinkSync(outside, join(dir, 'manifests'));
    const res = await runCli(['export', '--out-dir', 'manifests'], { cwd: dir });
    expect(res.code).toBe(0);
    expect(existsSync(join(outside, 'webhook'))).toBe(true);
  });
});

describe('${file:} and the state directory', () => {
  const dashboard = (ref: string) => `apiVersion: obsync/v1\nkind: Dashboard\nmetadata: {name: d}\nspec: {name: "${ref}", tiles: []}\n`;

  const cases: [string, string, boolean, string[]][] = [
    ['the default state directory', '.obsync/state', false, []],
    ['with --allow-file-outside', '.obsync/state', false, ['--allow-file-outside']],
    ['OBSYNC_STATE_DIR elsewhere, allowFileOutside: true', 'STATE', true, []],
  ];
  it.each(cases)('refuses to read the fingerprint key: %s', async (_what, stateRel, allowOutside, flags) => {
    const state = stateRel === 'STATE' ? join(outside, 'state') : join(dir, stateRel);
    const env: Record<string, string> = stateRel === 'STATE' ? { OBSYNC_STATE_DIR: state } : {};
    if (allowOutside) writeFileSync(join(dir, 'obsync.yaml'), `${readFileSync(join(dir, 'obsync.yaml'), 'utf8')}allowFileOutside: true\n`);
    mkdirSync(join(dir, 'manifests'), { recursive: true });
    writeFileSync(join(dir, 'manifests', 'd.yaml'), dashboard('x'));
    // A first plan creates the state (its key included).
    expect((await runCli(['apply', '--auto-approve'], { cwd: dir, env })).code).toBe(0);
    const key = readdirSync(state).find((f) => f.includes('key'));
    if (!key) throw new Error(`no key file in ${state}: ${readdirSync(state).join(', ')}`);
    writeFileSync(join(dir, 'manifests', 'd.yaml'), dashboard(`\${file:${join(state, key)}}`));
    for (const command of [
      ['validate', ...flags],
      ['plan', ...flags],
    ]) {
      const res = await runCli(command, { cwd: dir, env });
      expect(res.code, command[0]).toBe(1);
      expect(res.stdout + res.stderr, command[0]).toMatch(
        new RegExp(
          String.raw`is in obsync's state directory \(the inventory and its fingerprint key\), which \$\{file:\} never reads, ` +
            String.raw`even with allowFileOutside`,
        ),
      );
      expect(res.stdout + res.stderr).not.toContain(readFileSync(join(state, key), 'utf8').trim().slice(0, 12));
    }
  });
});
