/** The CLI in-process, with fake streams: for what a child process cannot show (a terminal on stdin). */
import { PassThrough } from 'node:stream';
import { ExitRequest, outputWriter, reportError, type CliIO } from '../../src/cli/io.js';
import { buildProgram } from '../../src/cli/program.js';
import { CommanderError } from 'commander';

export interface FakeIO {
  io: CliIO;
  out: () => string;
  err: () => string;
}

export function fakeIO(cwd: string, opts: { env?: Record<string, string>; tty?: boolean; input?: string } = {}): FakeIO {
  const out: string[] = [];
  const err: string[] = [];
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  stdout.on('data', (c: Buffer) => out.push(c.toString()));
  stderr.on('data', (c: Buffer) => err.push(c.toString()));
  const stdin = Object.assign(new PassThrough(), { isTTY: opts.tty === true });
  if (opts.input !== undefined) stdin.end(opts.input);
  // Through the writers a real process has (scrubber and output pass), as processIO gives them.
  const writer = (stream: PassThrough) => outputWriter(stream as unknown as NodeJS.WriteStream);
  // The terminal is the raw stream: readline's prompt is not passed through the output pass.
  const io: CliIO = { stdout: writer(stdout), stderr: writer(stderr), stdin, terminal: stderr, env: { NO_COLOR: '1', ...opts.env }, cwd };
  return { io, out: () => out.join(''), err: () => err.join('') };
}

/** Runs `obsync ...args` as main.ts does and returns the exit code. */
export async function runInProcess(io: CliIO, args: string[]): Promise<number> {
  try {
    await (await buildProgram(io, args)).parseAsync(args, { from: 'user' });
    return 0;
  } catch (e) {
    if (e instanceof ExitRequest) return e.exitCode;
    if (e instanceof CommanderError) return e.exitCode === 0 ? 0 : 1;
    reportError(io, e);
    return 1;
  }
}
