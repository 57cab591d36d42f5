/** What a command may touch of the outside world, injected so commands are testable in-process. */
import type { Writable } from 'node:stream';
import { ObsyncError, errorMessage } from '../core/errors.js';

export interface CliIO {
  stdout: Writable & { isTTY?: boolean };
  stderr: Writable & { isTTY?: boolean };
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  /** false after the global --no-color (set by the program before a command runs). */
  color?: boolean;
}

/** The process's streams, each opened on first use (opening stdin costs start-up time most commands never need). */
export function processIO(): CliIO {
  return {
    get stdout() {
      return process.stdout;
    },
    get stderr() {
      return process.stderr;
    },
    get stdin() {
      return process.stdin;
    },
    env: process.env,
    cwd: process.cwd(),
  };
}

/** Thrown by a command to end with a given exit code (DESIGN §5: 0 ok, 1 error, 2 changes). */
export class ExitRequest extends Error {
  constructor(readonly exitCode: number) {
    super(`exit ${exitCode}`);
  }
}

/** Colour only on a TTY, never with NO_COLOR, TERM=dumb or --no-color. */
export function colorEnabled(io: CliIO, stream: 'stdout' | 'stderr', flag?: boolean): boolean {
  if (flag === false || io.color === false) return false;
  if (io.env.NO_COLOR !== undefined && io.env.NO_COLOR !== '') return false;
  if (io.env.TERM === 'dumb') return false;
  if (io.env.FORCE_COLOR !== undefined && io.env.FORCE_COLOR !== '0') return true;
  return io[stream].isTTY === true;
}

/** One error report on stderr: the message, its hint, never a stack unless asked. */
export function reportError(io: CliIO, err: unknown, verbose = false): void {
  if (err instanceof ObsyncError) {
    io.stderr.write(`error: ${err.message}\n`);
    if (err.hint) io.stderr.write(`  hint: ${err.hint}\n`);
  } else {
    io.stderr.write(`error: ${errorMessage(err)}\n`);
  }
  if (verbose && err instanceof Error && err.stack) io.stderr.write(`${err.stack}\n`);
}

/**
 * A reader that went away (`obsync schema | head -1`) is not an error: later writes are dropped
 * and the command ends normally, without a stack trace (an apply in progress still completes).
 */
export function ignoreClosedPipe(stream: NodeJS.WritableStream): void {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE' || err.code === 'ERR_STREAM_DESTROYED') return;
    throw err;
  });
}
