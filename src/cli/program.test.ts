import { readFileSync } from 'node:fs';
import { PassThrough } from 'node:stream';
import { Help, type Command } from 'commander';
import { describe, expect, it } from 'vitest';
import type { CliIO } from './io.js';
import { buildFullProgram, buildProgram, COMMAND_NAMES, commandsFor } from './program.js';
import { VERSION } from './version.js';

function io(): CliIO {
  const stderr = new PassThrough();
  return { stdout: new PassThrough(), stderr, stdin: new PassThrough(), terminal: stderr, env: {}, cwd: '/' };
}

describe('lazy command loading', () => {
  it('loads only the command a run needs; every one for completion', () => {
    expect(commandsFor(['--help'])).toEqual([]);
    expect(commandsFor([])).toEqual([]);
    expect(commandsFor(['--no-color', 'plan', '--out', 'p.json'])).toEqual(['plan']);
    expect(commandsFor(['help', 'apply'])).toEqual(['apply']);
    expect(commandsFor(['keys', 'create', '--name', 'x'])).toEqual(['keys']);
    expect(commandsFor(['nope'])).toEqual([]);
    expect(commandsFor(['--dotenv', 'plan', 'validate'])).toEqual(['validate']);
    expect(commandsFor(['--dotenv=x.env', 'apply'])).toEqual(['apply']);
    expect(commandsFor(['completion', 'bash'])).toEqual(COMMAND_NAMES);
  });

  it('lists each command in --help exactly as the command itself describes it', { timeout: 60_000 }, async () => {
    const stubs = await buildProgram(io(), ['--help']);
    const full = await buildFullProgram(io());
    const help = new Help();
    const line = (c: Command) => `${help.subcommandTerm(c)} — ${c.description()}`;
    const shown = (p: Command) => p.commands.map((c) => p.createHelp().subcommandTerm(c) + ' — ' + c.description());
    expect(shown(stubs)).toEqual(full.commands.map(line));
  });

  it('is at the version of package.json', () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(VERSION).toBe(pkg.version);
  });
});
