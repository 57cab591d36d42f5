/**
 * The newcomer's path, as written (issue 46): on a fresh copy of the repository, the README's
 * quickstart, then on another the docs' tutorial (docs/getting-started.md), each command run by
 * bash exactly as the page shows it, the output checked against the page's ```text blocks.
 *
 * Three things are not run for real: `npm ci` is a shell function here that links this checkout's
 * node_modules and builds dist/ (what npm ci's `prepare` does, without its type check; the install
 * itself is tested by test/deploy/package-install.test.ts); the quickstart's `npm test` (this is it);
 * and in the tutorial, `npx obsync` runs the package's bin (package.json `bin.obsync`, the file npx
 * resolves it to, checked here) with node directly. npx spent 3 s to 15 s of CPU on each call finding
 * that bin among the 440 installed packages; the quickstart keeps its one real `npx`.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { npmChildEnv } from '../deploy/npm-env.js';
import { type CommandBlock, commandBlocks, section } from './markdown-commands.js';

const REPO = resolve(import.meta.dirname, '../..');
const copies: string[] = [];
afterAll(() => {
  for (const dir of copies) rmSync(dir, { recursive: true, force: true });
});

/** The repository's files as a fresh clone has them (tracked, and new ones not ignored), in a temporary folder. */
function freshCopy(): string {
  const listed = spawnSync('git', ['ls-files', '-co', '--exclude-standard', '-z'], { cwd: REPO, encoding: 'utf8' });
  expect(listed.status, listed.stderr).toBe(0);
  const files = listed.stdout.split('\0').filter((f) => f && existsSync(join(REPO, f)));
  const dir = mkdtempSync(join(tmpdir(), 'obsync-newcomer-'));
  copies.push(dir);
  const copy = spawnSync('bash', ['-c', 'tar --null -T - -cf - | tar -xf - -C "$0"', dir], { cwd: REPO, input: files.join('\0') });
  expect(copy.status, String(copy.stderr)).toBe(0);
  return dir;
}

const NPM_CI = `npm() {
  if [ "$1" = ci ]; then
    ln -s "${join(REPO, 'node_modules')}" node_modules && command npm run --silent build:emit
  else command npm "$@"; fi
}`;

/** `npx obsync …` as the bin npx finds for it: the package's own (this copy's package.json). */
function npxAsBin(dir: string): string {
  const { bin } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { bin: Record<string, string> };
  expect(bin.obsync).toBe('dist/cli/main.js');
  return `npx() {
  if [ "$1" = obsync ]; then shift; node "${join(dir, bin.obsync ?? '')}" "$@"; else command npx "$@"; fi
}`;
}

/** Runs the blocks in order in `dir` (a `cd` carries over to the next block), checking each one's output. */
function runBlocks(dir: string, blocks: readonly CommandBlock[], shims = NPM_CI): void {
  let cwd = dir;
  for (const block of blocks) {
    const script = `set -e\n${shims}\n${block.script}\npwd > "${join(dir, '.cwd')}"`;
    const run = spawnSync('bash', ['-c', script], {
      cwd,
      encoding: 'utf8',
      timeout: 120_000,
      env: npmChildEnv({ NO_COLOR: '1', npm_config_offline: 'true' }),
    });
    const output = `${run.stdout}${run.stderr}`;
    expect(run.status, `${block.script}\n${output}`).toBe(0);
    for (const line of block.expect) expect(squash(output), `${block.script}\nexpected: ${line}\n${output}`).toContain(squash(line));
    cwd = readFileSync(join(dir, '.cwd'), 'utf8').trim();
  }
}

const squash = (s: string) => s.replace(/\s+/g, ' ').trim();

describe("a newcomer's path, run as written", () => {
  it("the README's quickstart: its first command applies the examples to the embedded sandbox", () => {
    const blocks = commandBlocks(section(readFileSync(join(REPO, 'README.md'), 'utf8'), 'Quickstart'));
    const [quickstart] = blocks;
    const lines = quickstart?.script.trim().split('\n') ?? [];
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatch(/^npm test\s/);
    runBlocks(freshCopy(), [{ script: lines[0] ?? '', expect: ['Apply complete:'] }]);
  }, 180_000);

  it('the tutorial (docs/getting-started.md), every command in order', () => {
    const blocks = commandBlocks(readFileSync(join(REPO, 'docs/getting-started.md'), 'utf8'));
    expect(blocks.length).toBeGreaterThanOrEqual(5);
    const dir = freshCopy();
    runBlocks(dir, blocks, `${NPM_CI}\n${npxAsBin(dir)}`);
  }, 300_000);
});
