/**
 * Issue 13, item 13 (part): deep nesting, `1e400`, a full disk and terminal escape sequences in
 * keys, values and server answers give plain, positioned messages — never a stack overflow
 * message, a silently different number, a raw errno or a cleared screen.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadManifests } from '../../src/manifests/load.js';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { assertBuilt, runCli } from '../support/cli.js';
import { startProxy, type Proxy } from '../support/proxy.js';

const ESC = '\u001b';
let dir: string;

const dashboard = (spec: string) => `apiVersion: obsync/v1\nkind: Dashboard\nmetadata: {name: d}\nspec:\n  name: D\n  tiles: []\n${spec}`;

function load(text: string) {
  writeFileSync(join(dir, 'd.yaml'), text);
  return loadManifests([dir], { env: {} }).diagnostics.map((d) => `${d.line ?? '-'}:${d.col ?? '-'} ${d.path ?? '-'} ${d.message}`);
}

beforeAll(() => assertBuilt());
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'obsync-hostile-errors-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('hostile input gives plain, positioned messages', () => {
  it('nesting tens of thousands of levels deep, read again and again (a daemon re-reads every run)', () => {
    // Without the guard the second parse of such a file can crash the process outright (V8 runs
    // out of memory compiling a regular expression after the parser's stack overflow).
    for (const [i, n] of [50_000, 50_000, 10_000].entries()) {
      const messages = load(dashboard(`  savedFilterValues: ${'['.repeat(n)}${']'.repeat(n)}\n`));
      expect(messages, `read ${i + 1}`).toEqual(['7:84 - nesting deeper than 64 levels']);
    }
    const block = Array.from({ length: 1100 }, (_, i) => `${' '.repeat(i + 2)}k${i}:`).join('\n');
    expect(load(dashboard(`  savedQuery:\n${block} 1\n`))).toEqual(['71:66 - nesting deeper than 64 levels']);
  });

  it('numbers JavaScript cannot hold: 1e400, .inf, 2^64', () => {
    const messages = load(
      dashboard('  tags: []\n').replace(
        'tiles: []',
        'tiles:\n    - {name: t, x: 1e400, y: .inf, w: 18446744073709551616, h: 2, config: {displayType: markdown}}',
      ),
    );
    expect(messages).toEqual([
      '7:20 spec.tiles[0].x the number 1e400 is out of range (it would be infinite); write a smaller number',
      '7:30 spec.tiles[0].y the number .inf is infinite (not accepted)',
      '7:39 spec.tiles[0].w the number 18446744073709551616 is too large to keep exactly (more than 2^53); quote it if it is text or an id',
    ]);
  });

  it('escape sequences and carriage returns in keys and values are shown, never obeyed', async () => {
    writeFileSync(
      join(dir, 'd.yaml'),
      dashboard(`  "\\e[2J\\rkey": 1\n`)
        .replace(
          'name: D',
          'name: D\n  tags: [a]\n  tiles: [{name: t, x: 0, y: 0, w: 1, h: 1, config: {displayType: "\\e]0;pwned\\u0007line"}}]',
        )
        .replace('  tiles: []\n', ''),
    );
    for (const output of ['text', 'github']) {
      const res = await runCli(['validate', '--output', output, '.'], { cwd: dir });
      expect(res.code).toBe(1);
      expect(res.stdout + res.stderr).not.toContain(ESC);
      expect(res.stdout + res.stderr).not.toContain('\r');
      expect(res.stdout).toContain("unknown key '\\u001b[2J\\rkey'");
      expect(res.stdout).toContain('\\u001b]0;pwned\\u0007line');
    }
  });

  it('a full disk when writing a plan file names the file, without a stack', async () => {
    if (!existsSync('/dev/full')) return;
    writeFileSync(join(dir, 'd.yaml'), dashboard(''));
    const res = await runCli(['plan', '--out', '/dev/full', '.'], { cwd: dir });
    expect(res.code).toBe(1);
    expect(res.stderr).toContain(
      'error: cannot write /dev/full: no space left on the device (ENOSPC)\n  hint: free some disk space and run again\n',
    );
    expect(res.stderr).not.toMatch(/\n\s+at /);
  });
});

describe('a server answer with escape sequences', () => {
  let sandbox: SandboxHandle;
  let proxy: Proxy;

  beforeEach(async () => {
    sandbox = await startSandbox({ port: 0, rateLimit: 'off' });
    proxy = await startProxy(sandbox.url, (req) =>
      req.method === 'POST' ? { status: 400, body: JSON.stringify({ message: `bad${ESC}[2J${ESC}[H\rfake: applied` }) } : undefined,
    );
  });
  afterEach(async () => {
    await proxy.close();
    await sandbox.close();
  });

  it('is escaped in the apply progress line', async () => {
    writeFileSync(
      join(dir, 'obsync.yaml'),
      `apiVersion: obsync/v1\nkind: Config\nmanifests: [m]\ntargets:\n  - {name: s, variant: self-hosted, baseUrl: "${proxy.url}", ` +
        `credentials: {apiKey: ${sandbox.credentials.apiKey}}, retries: 0}\n`,
    );
    rmSync(join(dir, 'd.yaml'), { force: true });
    writeFileSync(join(dir, 'm.yaml'), dashboard(''));
    const res = await runCli(['apply', '--auto-approve', 'm.yaml', '--config', 'obsync.yaml'], { cwd: dir });
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('Dashboard/d: failed');
    expect(res.stderr).toContain('bad\\u001b[2J\\u001b[H\\rfake: applied');
    expect(res.stdout + res.stderr).not.toContain(ESC);
  });
});
