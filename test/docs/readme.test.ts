/**
 * The README is the front door (issue 46): short, and nothing in it that the code can contradict
 * unnoticed. Every `obsync …` command line it shows names a real command and only options that
 * command has; every link resolves to a file of the repository.
 */
import { existsSync, readFileSync } from 'node:fs';
import { PassThrough } from 'node:stream';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildFullProgram } from '../../src/cli/program.js';

const REPO = resolve(import.meta.dirname, '../..');
const README = readFileSync(join(REPO, 'README.md'), 'utf8');

/** The `obsync …` command lines inside the README's code blocks (a comment after `#` left out). */
function commandLines(): string[][] {
  const code = [...README.matchAll(/^```\w*\n([\s\S]*?)^```$/gm)].flatMap((m) => (m[1] ?? '').split('\n'));
  const uncommented = code.map((line) => line.replace(/(^|\s)#.*$/, ''));
  return uncommented.flatMap((line) => [...line.matchAll(/(?:^|[\s&;:])obsync ([^>|&;]*)/g)].map((m) => (m[1] ?? '').trim().split(/\s+/)));
}

function find(program: Command, words: readonly string[]): { command: Command; rest: string[] } {
  let command = program;
  let i = 0;
  for (; i < words.length; i++) {
    const sub = command.commands.find((c) => c.name() === words[i]);
    if (!sub) break;
    command = sub;
  }
  return { command, rest: words.slice(i) };
}

describe('README.md', () => {
  it('stays a front door: at most 250 lines', () => {
    expect(README.split('\n').length).toBeLessThanOrEqual(250);
  });

  it('shows only obsync command lines the CLI accepts: a real command, its own options', async () => {
    const sink = new PassThrough();
    const program = await buildFullProgram({ stdout: sink, stderr: sink, stdin: new PassThrough(), terminal: sink, env: {}, cwd: '/' });
    const lines = commandLines();
    expect(lines.length).toBeGreaterThanOrEqual(4);
    for (const words of lines) {
      const { command, rest } = find(program, words);
      if (command === program) expect(rest[0], `${words.join(' ')}: not a command`).toMatch(/^-/);
      const known = new Set([...command.options, ...program.options].flatMap((o) => [o.long, o.short]));
      known.add('--help');
      for (const word of rest.filter((w) => w.startsWith('-')))
        expect(known.has(word.split('=')[0]), `${words.join(' ')}: ${word}`).toBe(true);
    }
  });

  it('links only to files that exist', () => {
    for (const [, target = ''] of README.matchAll(/\]\(([^)#]+)(?:#[^)]*)?\)/g)) {
      if (/^https?:/.test(target)) continue;
      expect(existsSync(join(REPO, target)), target).toBe(true);
    }
  });
});
