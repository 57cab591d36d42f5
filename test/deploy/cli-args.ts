/**
 * Checks an obsync command line against the real commander program (src/cli/program.ts): unknown
 * commands and flags, missing values and bad choices fail as they would for a user. Nothing runs.
 */
import { Writable } from 'node:stream';
import { Readable } from 'node:stream';
import { CommanderError, type Command } from 'commander';
import type { CliIO } from '../../src/cli/io.js';
import { buildFullProgram } from '../../src/cli/program.js';

export interface ParsedCommand {
  /** e.g. `run`, `keys create`. */
  command: string;
  options: Record<string, unknown>;
  args: string[];
}

const sink = () => new Writable({ write: (_c, _e, done) => done() });

/** Parses `argv` (without the leading `obsync`); throws commander's error for anything the CLI would refuse. */
export async function parseObsyncArgs(argv: readonly string[]): Promise<ParsedCommand> {
  const stderr = sink();
  const io: CliIO = { stdout: sink(), stderr, stdin: Readable.from([]), terminal: stderr, env: {}, cwd: process.cwd() };
  const program = await buildFullProgram(io);
  let parsed: ParsedCommand | undefined;
  const prepare = (cmd: Command, path: string[]) => {
    cmd.exitOverride();
    cmd.configureOutput({ writeOut: () => undefined, writeErr: () => undefined });
    for (const sub of cmd.commands) {
      const subPath = [...path, sub.name()];
      if (sub.commands.length === 0) {
        sub.action(() => {
          parsed = { command: subPath.join(' '), options: sub.opts(), args: sub.args };
        });
      }
      prepare(sub, subPath);
    }
  };
  prepare(program, []);
  try {
    await program.parseAsync([...argv], { from: 'user' });
  } catch (err) {
    // --version and --help end the parse with exit code 0: an accepted command line.
    if (err instanceof CommanderError && err.exitCode === 0) return { command: err.code, options: {}, args: [] };
    throw err;
  }
  if (!parsed) throw new Error(`'obsync ${argv.join(' ')}' names no command`);
  return parsed;
}
