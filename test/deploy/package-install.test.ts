/**
 * The README's Install section, from a release tarball: `npm pack`, then `npm install --global`
 * of that tarball into an empty prefix with production dependencies only, as on a fresh machine.
 * Offline: the dependencies come from this checkout's node_modules through a registry on
 * loopback (test/support/local-registry.ts), with an empty npm cache and no user config.
 * The tarball carries the LICENSE package.json names and every file its Markdown links to, and
 * installs without a warning (its package.json has no install script).
 * From the installed `obsync`: --version, init, and every command init prints, exactly as printed.
 */
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt } from '../support/cli.js';
import { startLocalRegistry, type LocalRegistry } from '../support/local-registry.js';
import { unresolvedLinks } from './markdown-links.js';

const ROOT = resolve(import.meta.dirname, '../..');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  version: string;
  license: string;
  files: string[];
  dependencies: Record<string, string>;
};

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

let dir: string;
let registry: LocalRegistry;
/** PATH with the prefix's bin first, then node's own directory and the system's (no npm global bin, no checkout). */
let path: string;

/** A child with only the environment a fresh shell would have: no npm_config_*, no proxy, no OBSYNC_*. */
function run(file: string, args: readonly string[], cwd: string, env: Record<string, string> = {}): Promise<Run> {
  return new Promise((done) => {
    execFile(
      file,
      [...args],
      { cwd, env: { PATH: path, HOME: join(dir, 'home'), NO_COLOR: '1', ...env }, maxBuffer: 32 * 1024 * 1024, timeout: 240_000 },
      (err, stdout, stderr) => done({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
    );
  });
}

const npm = (args: readonly string[], cwd: string) =>
  run(
    process.execPath,
    [
      npmCli(),
      ...args,
      `--registry=${registry.url}`,
      `--cache=${join(dir, 'npm-cache')}`,
      '--userconfig=/dev/null',
      '--no-update-notifier',
      '--no-audit',
      '--no-fund',
    ],
    cwd,
  );

/** npm's own entry point, next to this node (never a registry-installed wrapper). */
function npmCli(): string {
  const candidates = [join(dirname(process.execPath), '../lib/node_modules/npm/bin/npm-cli.js'), '/usr/share/nodejs/npm/bin/npm-cli.js'];
  const found = candidates.find((c) => existsSync(c));
  if (!found) throw new Error(`npm-cli.js not found beside ${process.execPath}`);
  return found;
}

beforeAll(async () => {
  assertBuilt();
  dir = mkdtempSync(join(tmpdir(), 'obsync-install-'));
  mkdirSync(join(dir, 'home'));
  path = [join(dir, 'prefix', 'bin'), dirname(process.execPath), '/usr/bin', '/bin'].join(':');
  registry = await startLocalRegistry(ROOT, join(dir, 'registry'));
});

afterAll(async () => {
  await registry?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('installing the packed tarball on a fresh machine', () => {
  it('packs, installs with production dependencies only, and runs version, init, validate, plan and apply from there', async () => {
    // The release tarball, packed with its prepack and postpack as `npm pack` runs them, from a copy
    // of the package's files (they rewrite package.json while packing: not this checkout's, which other
    // tests read). dist/ is built by `npm test` before vitest.
    const source = join(dir, 'source');
    // An entry `!x` of files excludes x from the tarball: nothing to copy.
    const copied = ['package.json', 'scripts', ...pkg.files.filter((f) => !f.startsWith('!'))];
    for (const entry of copied) cpSync(join(ROOT, entry), join(source, entry), { recursive: true });
    const packed = await npm(['pack', '--json', `--pack-destination=${dir}`], source);
    expect(packed.code, packed.stderr).toBe(0);
    expect(readFileSync(join(source, 'package.json'), 'utf8')).toBe(readFileSync(join(ROOT, 'package.json'), 'utf8'));
    const [info] = JSON.parse(packed.stdout) as { filename: string; files: { path: string }[] }[];
    const inTarball = info?.files.map((f) => f.path) ?? [];
    expect(inTarball).toContain('dist/cli/main.js');
    expect(inTarball.some((f) => f.startsWith('src/') || f.startsWith('test/') || f.endsWith('.test.js'))).toBe(false);
    // The license package.json names, and every relative link of the packed Markdown, inside the tarball.
    expect(pkg.license).toBe('Apache-2.0');
    expect(inTarball).toContain('LICENSE');
    expect(readFileSync(join(source, 'LICENSE'), 'utf8')).toMatch(
      /^\s*Apache License\s+Version 2\.0, January 2004\b[\s\S]*END OF TERMS AND CONDITIONS/,
    );
    const markdown = inTarball.filter((f) => f.endsWith('.md'));
    expect(markdown).toContain('README.md');
    expect(markdown.flatMap((f) => unresolvedLinks(f, readFileSync(join(source, f), 'utf8'), inTarball))).toEqual([]);

    const prefix = join(dir, 'prefix');
    const installed = await npm(['install', '--global', `--prefix=${prefix}`, '--omit=dev', join(dir, info?.filename ?? '')], dir);
    expect(installed.code, installed.stderr).toBe(0);
    // No warning at all (npm 11 warns of every install script: a `prepare` in the packed package.json was one).
    expect(installed.stderr).toBe('');
    const manifest = JSON.parse(readFileSync(join(prefix, 'lib', 'node_modules', 'obsync', 'package.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    expect(manifest.scripts).toBeUndefined();
    expect(registry.missed).toEqual([]);
    expect([...registry.downloaded].sort()).toEqual(expect.arrayContaining(Object.keys(pkg.dependencies).sort()));
    const modules = join(prefix, 'lib', 'node_modules', 'obsync', 'node_modules');
    for (const dev of ['typescript', 'vitest', 'eslint', '@biomejs']) expect(existsSync(join(modules, dev)), dev).toBe(false);
    expect(readdirSync(join(prefix, 'bin'))).toEqual(['obsync']);

    const version = await run('obsync', ['--version'], dir);
    expect(version).toMatchObject({ code: 0, stderr: '' });
    expect(version.stdout).toBe(`obsync ${pkg.version}\nnode ${process.version}\nplatform ${process.platform}-${process.arch}\n`);

    const work = join(dir, 'work');
    mkdirSync(work);
    const init = await run('obsync', ['init', 'my-project'], work);
    expect(init.code, init.stderr).toBe(0);
    expect(readFileSync(join(work, 'my-project', '.gitignore'), 'utf8')).toMatch(/^\.obsync\/$/m);
    const next = init.stdout.split('Next:\n')[1]?.split('\n\n')[0]?.split('\n') ?? [];
    const commands = next.filter((l) => l.trim() !== '').map((l) => l.trim().replace(/\s+#.*$/, ''));
    expect(commands).toEqual(['cd my-project', 'obsync validate', 'obsync plan', 'obsync apply']);
    expect(init.stdout).not.toContain('not on your PATH');

    // Every printed command as printed, in one shell; apply off a terminal needs --auto-approve.
    const script = join(dir, 'next.sh');
    writeFileSync(
      script,
      `set -e\n${commands.map((c) => (c === 'obsync apply' ? `${c} --auto-approve` : c)).join('\n')}\nobsync plan --detailed-exitcode\n`,
    );
    const shell = await run('/bin/sh', [script], work);
    expect(shell.code, shell.stderr).toBe(0);
    expect(shell.stdout).toContain('valid: 2 resource(s)');
    expect(shell.stdout).toContain('+ Dashboard/example-service');
    expect(shell.stdout).toContain('Apply complete: 2 created');
    expect(shell.stdout).toContain("No changes. Target 'sandbox' (hosted) matches the manifests.");
    expect(shell.stderr).toContain("obsync: target 'sandbox' is the embedded sandbox (hosted API");
    expect(registry.missed).toEqual([]);
  }, 300_000);
});
