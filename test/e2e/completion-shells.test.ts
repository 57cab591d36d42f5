/**
 * Shell completion in the real shells, driven through a pseudo-terminal (tmux): zsh, bash and
 * fish, each set up as the script's own header says (zsh: the file `_obsync` in $fpath, then
 * compinit; bash: `source <(obsync completion bash)`; fish: ~/.config/fish/completions), complete
 * `obsync plan --target <Tab>` to the targets of ./obsync.yaml and a unique prefix to the whole
 * name. The three run at once in one tmux server on a socket of their own. And no script names a
 * variable after a special parameter of any of the shells (zsh's `path` is $PATH: a `local path`
 * emptied PATH inside the function and every command in it was "not found"), as the shells
 * themselves list them.
 */
import { execFile, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SHELLS, type Shell } from '../../src/cli/completion.js';
import { assertBuilt, CLI } from '../support/cli.js';
import { declaredNames, specialParameters } from './shell-names.js';

const run = promisify(execFile);
const has = (tool: string) => spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0;
const TARGETS = ['prod-eu', 'prod-us', 'staging'];
const DIST = join(dirname(CLI), '..');
const PROMPT = 'ready> ';

let dir: string;
let scripts: Record<Shell, string>;
let special: Set<string>;
let env: Record<string, string>;
const tmux = (...args: string[]) =>
  run('tmux', ['-S', join(dir, 'tmux.sock'), '-f', '/dev/null', ...args], { env, cwd: join(dir, 'project') });

beforeAll(async () => {
  assertBuilt();
  // What `obsync completion SHELL` prints, for the three shells from one process of the built CLI.
  const printAll =
    `const { buildFullProgram } = await import(${JSON.stringify(pathToFileURL(join(DIST, 'cli/program.js')).href)});
    const { completionScript, SHELLS } = await import(${JSON.stringify(pathToFileURL(join(DIST, 'cli/completion.js')).href)});
    const program = await buildFullProgram({ stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: {}, cwd: ` +
    `process.cwd() });
    process.stdout.write(JSON.stringify(Object.fromEntries(SHELLS.map((s) => [s, completionScript(program, s)]))));`;
  scripts = JSON.parse((await run(process.execPath, ['--input-type=module', '-e', printAll])).stdout) as Record<Shell, string>;
  special = specialParameters();
  dir = mkdtempSync(join(tmpdir(), 'obsync-completion-'));
  const file = (path: string, text: string, mode = 0o644) => {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text, { mode });
  };
  // `obsync` as the user types it: this checkout's CLI.
  file('bin/obsync', `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`, 0o755);
  file(
    'project/obsync.yaml',
    `apiVersion: obsync/v1\nkind: Config\ntargets:\n${TARGETS.map((n) => `  - {name: ${n}, variant: sandbox}\n`).join('')}`,
  );
  file('zfunc/_obsync', scripts.zsh);
  file('zdot/.zshrc', `fpath=(${join(dir, 'zfunc')} $fpath)\nautoload -Uz compinit && compinit -u -D\nPS1='${PROMPT}'\n`);
  file('obsync.bash', scripts.bash);
  // As `source <(obsync completion bash)` loads it, from the script printed above.
  file('bashrc', `source ${join(dir, 'obsync.bash')}\nPS1='${PROMPT}'\n`);
  file('xdg/fish/completions/obsync.fish', scripts.fish);
  // fish generates completions from man pages in the background on its first start when this
  // folder is missing; that job outlives the tmux server and writes while the folder is removed.
  mkdirSync(join(dir, 'xdg-data/fish/generated_completions'), { recursive: true });
  file('xdg/fish/config.fish', `set -g fish_greeting ''\nfunction fish_prompt; echo -n '${PROMPT}'; end\n`);
  env = {
    PATH: `${join(dir, 'bin')}:${dirname(process.execPath)}:/usr/bin:/bin`,
    HOME: join(dir, 'home'),
    ZDOTDIR: join(dir, 'zdot'),
    XDG_CONFIG_HOME: join(dir, 'xdg'),
    XDG_DATA_HOME: join(dir, 'xdg-data'),
    XDG_CACHE_HOME: join(dir, 'xdg-cache'),
    TERM: 'xterm-256color',
    LANG: 'C.UTF-8',
    NO_COLOR: '1',
  };
});

afterAll(async () => {
  // Only this test's own server, on its own socket.
  if (dir) await tmux('kill-server').catch(() => undefined);
  if (dir) rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
});

/** How each shell starts (its own rc files only) and what lists the candidates: readline lists them on the second Tab. */
const session = (shell: Shell): { command: string; tab: string[] } =>
  ({
    zsh: { command: 'zsh -d -i', tab: ['Tab'] },
    bash: { command: `bash --noprofile --rcfile ${join(dir, 'bashrc')} -i`, tab: ['Tab', 'Tab'] },
    fish: { command: 'fish -i', tab: ['Tab'] },
  })[shell];

/** The pane's text once `done` holds for it within `ms`; null otherwise (the last text seen is kept in `seen`). */
async function paneWithin(session: string, done: (text: string) => boolean, ms: number, seen: { text: string }): Promise<string | null> {
  for (const deadline = Date.now() + ms; Date.now() < deadline; ) {
    seen.text = (await tmux('capture-pane', '-p', '-J', '-t', session)).stdout;
    if (done(seen.text)) return seen.text;
    await new Promise((r) => setTimeout(r, 100));
  }
  return null;
}

/**
 * Types `line` at the prompt and waits until the pane shows it. A shell that has drawn its prompt
 * may still be setting up its line editor: the terminal echoes what arrives meanwhile, and the
 * editor may then drop it (seen on a loaded machine). So the line is cleared (C-u) and typed again
 * until it shows.
 */
async function typeLine(shell: Shell, line: string): Promise<void> {
  for (let attempt = 0; attempt < 10; attempt++) {
    await tmux('send-keys', '-t', shell, 'C-u');
    await tmux('send-keys', '-t', shell, '-l', line);
    if (await paneWithin(shell, (t) => t.includes(`${PROMPT}${line.trimEnd()}`), 2_000, { text: '' })) return;
  }
  throw new Error(`${shell}: '${line}' never showed at the prompt`);
}

/**
 * Types `line`, presses `keys` and returns the pane once `done` holds. A line the terminal echoed
 * before the line editor took over can still be dropped by it (bash then lists every command for
 * an empty line: "Display all 1159 possibilities?", seen in CI): the attempt is answered, cancelled
 * (C-c) and made again, up to five times in all.
 */
async function typeAndComplete(shell: Shell, line: string, keys: string[], done: (text: string) => boolean): Promise<string> {
  const seen = { text: '' };
  for (let attempt = 0; attempt < 5; attempt++) {
    await typeLine(shell, line);
    await tmux('send-keys', '-t', shell, ...keys);
    const text = await paneWithin(shell, done, 8_000, seen);
    if (text) return text;
    await tmux('send-keys', '-t', shell, 'n');
    await tmux('send-keys', '-t', shell, 'C-c');
  }
  throw new Error(`${shell}: the pane never showed what was expected after '${line}' and ${keys.join(' ')}; it shows:\n${seen.text}`);
}

async function completeInShell(shell: Shell): Promise<{ listed: string; completed: string }> {
  const { tab } = session(shell);
  if (!(await paneWithin(shell, (t) => t.includes(PROMPT), 30_000, { text: '' }))) throw new Error(`${shell}: no prompt in 30 s`);
  const listed = await typeAndComplete(shell, 'obsync plan --target ', tab, (t) => TARGETS.every((n) => t.includes(n)));
  await tmux('send-keys', '-t', shell, 'C-c');
  const completed = await typeAndComplete(shell, 'obsync plan --target st', ['Tab'], (t) => t.includes('--target staging'));
  return { listed, completed };
}

describe('completion in the real shells, through a pseudo-terminal', () => {
  // CI installs tmux and the three shells (.ci/run): there a missing one fails instead of skipping.
  const shells = process.env.CI ? [...SHELLS] : SHELLS.filter(has);

  it.skipIf(!process.env.CI && (!has('tmux') || shells.length === 0))(
    `${shells.join(', ')}: obsync plan --target <Tab> offers the config's targets`,
    async () => {
      // One server, started by the first session (clients starting at once could each start one), then the shells at once.
      for (const shell of shells) await tmux('new-session', '-d', '-s', shell, '-x', '150', '-y', '40', session(shell).command);
      const results = await Promise.all(shells.map(async (s) => [s, await completeInShell(s)] as const));
      for (const [shell, { listed, completed }] of results) {
        for (const text of [listed, completed]) expect(text, shell).not.toMatch(/not found|command not found|Unknown command/i);
        expect(listed.slice(listed.indexOf('--target')), shell).toMatch(/prod-eu[\s\S]*prod-us[\s\S]*staging|staging[\s\S]*prod-eu/);
        expect(completed, shell).toMatch(/obsync plan --target staging\b/);
      }
      expect(shells.length).toBe(SHELLS.length);
    },
  );
});

describe('completion scripts', () => {
  it.each(SHELLS)('%s: no variable is named after a special parameter of bash, zsh or fish', (shell) => {
    expect(special.size).toBeGreaterThan(100);
    const declared = declaredNames(scripts[shell], shell);
    expect(declared.undeclared).toEqual([]);
    expect(declared.names.filter((n) => special.has(n.toLowerCase()))).toEqual([]);
  });
});
