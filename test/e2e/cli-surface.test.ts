/**
 * The daily surface of the CLI as a user meets it: version, --no-color on every verb, numeric
 * flags, `obsync schema | head`, `obsync init`, and the completion scripts (checked by the shells).
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Command } from 'commander';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildFullProgram } from '../../src/cli/program.js';
import { assertBuilt, CLI, runCli, runCliProcess } from '../support/cli.js';
import { fakeIO, runInProcess } from '../support/cli-io.js';

let dir: string;
beforeAll(() => assertBuilt());
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});
const tmp = () => (dir = mkdtempSync(join(tmpdir(), 'obsync-surface-')));
const ANSI = new RegExp(`${String.fromCharCode(27)}\\[`);

describe('obsync version', () => {
  it('prints the versions of obsync and Node.js and the platform, as --version does', async () => {
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
    const expected = `obsync ${pkg.version}\nnode ${process.version}\nplatform ${process.platform}-${process.arch}\n`;
    const cmd = await runCli(['version'], { cwd: tmp() });
    expect(cmd).toEqual({ code: 0, stdout: expected, stderr: '' });
    expect((await runCli(['--version'], { cwd: dir })).stdout).toBe(expected);
  });
});

describe('--no-color', () => {
  /** Every command path of the program (plan, keys create, ...) with its required options. */
  function paths(cmd: Command, prefix: string[] = []): string[][] {
    return cmd.commands.flatMap((c) => {
      if (c.commands.length > 0) return paths(c, [...prefix, c.name()]);
      const required = c.options.filter((o) => o.mandatory).flatMap((o) => [o.long ?? '', o.argChoices?.[0] ?? 'x']);
      return [[...prefix, c.name(), ...required]];
    });
  }

  it('is accepted by every verb', async () => {
    const all = paths(await buildFullProgram(fakeIO(tmp()).io));
    expect(all.length).toBeGreaterThanOrEqual(11);
    for (const path of all) {
      const t = fakeIO(dir);
      // An unknown flag after it: commander names the first unknown option, so --no-color must be known.
      expect(await runInProcess(t.io, [...path, '--no-color', '--zz-unknown']), path.join(' ')).toBe(1);
      expect(t.err(), path.join(' ')).toContain("unknown option '--zz-unknown'");
    }
  });

  it('and NO_COLOR turn the colours of a plan off (FORCE_COLOR turns them on)', async () => {
    const forced = await runCli(['plan', 'config-examples/kinds'], {
      cwd: process.cwd(),
      env: { NO_COLOR: '', FORCE_COLOR: '1', OBSYNC_STATE_DIR: join(tmp(), 'state') },
    });
    expect(forced.code).toBe(0);
    expect(forced.stdout).toMatch(ANSI);
    const flag = await runCli(['plan', 'config-examples/kinds', '--no-color'], {
      cwd: process.cwd(),
      env: { NO_COLOR: '', FORCE_COLOR: '1', OBSYNC_STATE_DIR: join(dir, 'state') },
    });
    expect(flag.code).toBe(0);
    expect(flag.stdout).toContain('Dashboard/example-service');
    expect(flag.stdout).not.toMatch(ANSI);
  });
});

describe('numeric flags', () => {
  it.each([
    [['apply', '--concurrency', 'abc'], "option '--concurrency <n>' argument 'abc' is invalid. expected a whole number from 1 to 64"],
    [['run', '--concurrency', '0'], "option '--concurrency <n>' argument '0' is invalid"],
    [['plan', '--max-deletes', 'ten'], "option '--max-deletes <n>' argument 'ten' is invalid. expected a whole number ≥ 0"],
    [['run', '--debounce', 'soon'], "option '--debounce <ms>' argument 'soon' is invalid"],
    [['run', '--parallel-runs', '0'], "option '--parallel-runs <n>' argument '0' is invalid. expected a whole number from 1 to 256"],
    [['plan', '--timeout', 'abc'], "option '--timeout <seconds>' argument 'abc' is invalid"],
    [['apply', '--timeout', '0'], "option '--timeout <seconds>' argument '0' is invalid"],
    [['query', '--source', 'Logs', '--level', 'high'], "option '--level <q>' argument 'high' is invalid"],
    [['keys', 'create', '--name', 'k', '--timeout', '-1'], "option '--timeout <seconds>' argument '-1' is invalid"],
  ])('%j is refused before anything runs, in one line and a pointer to the help', async (args, message) => {
    const t = fakeIO(tmp());
    expect(await runInProcess(t.io, args)).toBe(1);
    const lines = t.err().trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toContain(`error: ${message}`);
    const command = args.filter((a) => /^[a-z]+$/.test(a) && a !== 'x').slice(0, args[0] === 'keys' ? 2 : 1);
    expect(lines[1]).toBe(`(see 'obsync ${command.join(' ')} --help')`);
    expect(t.err()).not.toContain('Usage:');
    expect(existsSync(join(dir, '.obsync'))).toBe(false);
  });
});

describe('obsync schema --help', () => {
  it('names every kind obsync manages', async () => {
    const { KINDS } = await import('../../src/kinds/registry.js');
    for (const args of [['schema', '--help'], ['--help']]) {
      const res = await runCli(args, { cwd: tmp() });
      expect(res.code).toBe(0);
      const text = res.stdout.replace(/\s+/g, ' ');
      for (const kind of KINDS) expect(text, `${args.join(' ')}: ${kind}`).toContain(kind);
    }
  });
});

describe('obsync schema | head -1', () => {
  it('ends quietly when the reader goes away', async () => {
    const child = spawn(process.execPath, [CLI, 'schema'], {
      cwd: tmp(),
      env: { PATH: process.env.PATH ?? '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.destroy(); // the reader closes before the first write: EPIPE
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });
});

describe('obsync init', () => {
  /** The commands under "Next:", as printed. */
  const nextCommands = (stdout: string) =>
    (stdout.split('Next:\n')[1]?.split('\n\n')[0] ?? '')
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => l.trim().replace(/\s+#.*$/, ''));

  it('writes a project whose printed next commands work as printed (obsync not on PATH: named in full)', async () => {
    // init prints the command that ran it (node and the binary's path): the binary itself.
    const res = await runCliProcess(['init', 'proj'], { cwd: tmp() });
    expect(res.code).toBe(0);
    expect(res.stdout).toContain('created proj/obsync.yaml');
    expect(res.stdout).toContain('created proj/.gitignore');
    const root = join(dir, 'proj');
    expect(readFileSync(join(root, 'manifests/example.yaml'), 'utf8').split('\n')[0]).toBe(
      '# yaml-language-server: $schema=../obsync.schema.json',
    );
    expect(readFileSync(join(root, 'obsync.yaml'), 'utf8').split('\n')[0]).toBe('# yaml-language-server: $schema=./obsync.schema.json');
    expect(readFileSync(join(root, 'obsync.schema.json'), 'utf8')).toBe((await runCli(['schema'], { cwd: dir })).stdout);
    const ignored = readFileSync(join(root, '.gitignore'), 'utf8').split('\n');
    expect(ignored).toContain('.obsync/');
    expect(ignored).toContain('.env');
    // This checkout's obsync is not on PATH here: the commands name it in full, and run as printed from a plain shell.
    const commands = nextCommands(res.stdout);
    expect(commands).toEqual(['cd proj', ...['validate', 'plan', 'apply'].map((c) => `node ${CLI} ${c}`)]);
    expect(res.stdout).toContain('obsync is not on your PATH');
    const script = `set -e\n${commands.map((c) => (c.endsWith(' apply') ? `${c} --auto-approve` : c)).join('\n')}\n`;
    const shell = spawnSync('/bin/sh', ['-c', script], {
      cwd: dir,
      encoding: 'utf8',
      env: { PATH: `${dirname(process.execPath)}:/usr/bin:/bin`, NO_COLOR: '1' },
    });
    expect(shell.status, shell.stderr).toBe(0);
    expect(shell.stdout).toContain('valid: 2 resource(s)');
    expect(shell.stdout).toContain('+ Dashboard/example-service');
    expect(shell.stdout).toContain('+ Alert/example-p95-high');
    expect(shell.stdout).toContain('Apply complete: 2 created');
  });

  it('adds what it ignores to an existing .gitignore, once', async () => {
    writeFileSync(join(tmp(), '.gitignore'), 'node_modules/\n/.env\n');
    const res = await runCliProcess(['init'], { cwd: dir });
    expect(res.code).toBe(0);
    expect(res.stdout).toContain('updated .gitignore');
    const text = readFileSync(join(dir, '.gitignore'), 'utf8');
    expect(text.startsWith('node_modules/\n/.env\n\n')).toBe(true);
    expect(text.split('\n').filter((l) => l === '.obsync/')).toHaveLength(1);
    expect(text.split('\n')).not.toContain('.env'); // `/.env` already ignores it
    expect(nextCommands(res.stdout)[0]).toBe(`node ${CLI} validate`); // no `cd` into the current directory
  });

  it('never overwrites: with any of its files present it writes nothing', async () => {
    writeFileSync(join(tmp(), 'obsync.yaml'), 'mine\n');
    const res = await runCli(['init'], { cwd: dir });
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('error: obsync.yaml already exists; obsync init never overwrites');
    expect(readFileSync(join(dir, 'obsync.yaml'), 'utf8')).toBe('mine\n');
    expect(existsSync(join(dir, 'manifests'))).toBe(false);
    expect(existsSync(join(dir, '.gitignore'))).toBe(false);
  });
});

describe('obsync completion', () => {
  const has = (shell: string) => spawnSync('sh', ['-c', `command -v ${shell}`]).status === 0;

  async function script(shell: string): Promise<string> {
    const res = await runCli(['completion', shell], { cwd: process.cwd() });
    expect(res.code).toBe(0);
    return res.stdout;
  }

  /** Words bash offers for the command line `words` with the cursor on the last word. */
  function bashComplete(source: string, words: string[]): string[] {
    const quoted = words.map((w) => `'${w}'`).join(' ');
    const res = spawnSync(
      'bash',
      ['-c', `${source}\nCOMP_WORDS=(${quoted}); COMP_CWORD=${words.length - 1}; _obsync; printf '%s\\n' "\${COMPREPLY[@]}"`],
      { encoding: 'utf8' },
    );
    expect(res.stderr).toBe('');
    return res.stdout.split('\n').filter(Boolean);
  }

  it.skipIf(!has('bash'))('bash: valid syntax, and it completes commands, flags and their values', async () => {
    const source = await script('bash');
    expect(spawnSync('bash', ['-n'], { input: source }).status).toBe(0);
    expect(bashComplete(source, ['obsync', 'pl'])).toEqual(['plan']);
    expect(bashComplete(source, ['obsync', 'plan', '--out'])).toEqual(['--out', '--output']);
    expect(bashComplete(source, ['obsync', 'plan', '--output', ''])).toEqual(['text', 'json', 'markdown', 'github', 'sarif']);
    expect(bashComplete(source, ['obsync', 'plan', '--no-c'])).toEqual(['--no-color']);
    expect(bashComplete(source, ['obsync', 'keys', ''])).toEqual(['create', 'list', 'disable', 'enable', 'delete']);
    expect(bashComplete(source, ['obsync', 'keys', 'create', '--ro'])).toEqual(['--role']);
    expect(bashComplete(source, ['obsync', 'completion', ''])).toEqual(['bash', 'zsh', 'fish']);
    expect(bashComplete(source, ['obsync', 'plan', '--out', ''])).toEqual([]); // a file name: the shell's own completion
  });

  it.skipIf(!has('bash'))(
    'bash: offers the targets of obsync.yaml after --target (the one --config names, else ./obsync.yaml)',
    async () => {
      const source = await script('bash');
      const cwd = tmp();
      const bin = join(cwd, 'bin');
      mkdirSync(bin);
      // `obsync` as the user types it: this checkout's CLI.
      writeFileSync(join(bin, 'obsync'), `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`, { mode: 0o755 });
      const config = (names: string[]) =>
        `apiVersion: obsync/v1\nkind: ` +
        `Config\ntargets:\n${names.map((n) => `  - {name: ${n}, variant: sandbox, data: .obsync/${n}}\n`).join('')}`;
      writeFileSync(join(cwd, 'obsync.yaml'), config(['staging', 'production']));
      mkdirSync(join(cwd, 'other'));
      writeFileSync(join(cwd, 'other', 'obsync.yaml'), config(['eu', 'us']));
      const complete = (words: string[]) => {
        const quoted = words.map((w) => `'${w}'`).join(' ');
        const res = spawnSync(
          'bash',
          ['-c', `${source}\nCOMP_WORDS=(${quoted}); COMP_CWORD=${words.length - 1}; _obsync; printf '%s\\n' "\${COMPREPLY[@]}"`],
          // stdin not a socket: bash would take itself for a remote shell and read ~/.bashrc.
          { encoding: 'utf8', cwd, env: { PATH: `${bin}:/usr/bin:/bin` }, stdio: ['ignore', 'pipe', 'pipe'] },
        );
        expect(res.stderr).toBe('');
        return res.stdout.split('\n').filter(Boolean);
      };
      expect(complete(['obsync', 'plan', '--target', ''])).toEqual(['staging', 'production']);
      expect(complete(['obsync', 'apply', '--target', 'st'])).toEqual(['staging']);
      expect(complete(['obsync', 'plan', '--config', 'other/obsync.yaml', '--target', ''])).toEqual(['eu', 'us']);
      expect(complete(['obsync', 'plan', 'other', '--target', ''])).toEqual(['eu', 'us']);
      expect(complete(['obsync', 'keys', 'create', '--target', 'p'])).toEqual(['production']);
      expect(complete(['obsync', ''])).not.toContain('__targets');
    },
  );

  it.skipIf(!has('zsh'))('zsh: valid syntax', async () => {
    expect(spawnSync('zsh', ['-n'], { input: await script('zsh') }).status).toBe(0);
  });

  it.skipIf(!has('fish'))('fish: valid syntax, and it completes commands, flags and their values', async () => {
    const file = join(tmp(), 'obsync.fish');
    writeFileSync(file, await script('fish'));
    expect(spawnSync('fish', ['--no-execute', file]).status).toBe(0);
    const complete = (line: string) =>
      spawnSync('fish', ['-c', `source ${file}; complete -C '${line}'`], { encoding: 'utf8' })
        .stdout.split('\n')
        .filter(Boolean)
        .map((l) => l.split('\t')[0]);
    expect(complete('obsync pl')).toEqual(['plan']);
    expect(complete('obsync plan --output ')).toEqual(['github', 'json', 'markdown', 'sarif', 'text']);
    expect(complete('obsync keys ')).toEqual(['create', 'delete', 'disable', 'enable', 'list']);
    expect(complete('obsync completion ')).toEqual(['bash', 'fish', 'zsh']);
  });

  it('refuses an unknown shell', async () => {
    const res = await runCli(['completion', 'tcsh'], { cwd: process.cwd() });
    expect(res.code).toBe(1);
    expect(res.stderr).toContain(
      "error: command-argument value 'tcsh' is invalid for argument 'shell'. Allowed choices are bash, zsh, fish.",
    );
  });
});
