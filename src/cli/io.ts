/** What a command may touch of the outside world, injected so commands are testable in-process. */
import { Writable } from 'node:stream';
import { ObsyncError, errorMessage } from '../core/errors.js';
import { printableLines } from '../core/printable.js';
import { finalText, OUTPUT_WRITER } from '../core/output.js';
import { SYSTEM_ERRORS } from '../core/system-errors.js';
import type { Telemetry } from '../telemetry/api.js';

export interface CliIO {
  stdout: Writable & { isTTY?: boolean };
  stderr: Writable & { isTTY?: boolean };
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  /**
   * The terminal itself (the process's stderr, without the output pass): only for cursor control
   * obsync makes, readline's prompt (./prompt.ts). Text never goes here unless it took the pass.
   */
  terminal: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  /** false after the global --no-color (set by the program before a command runs). */
  color?: boolean;
  /** Calls `handler` on each Ctrl-C (SIGINT) until the returned function is called. */
  onInterrupt?: (handler: () => void) => () => void;
  /** Ends the process at once (a second Ctrl-C). */
  exitNow?: (code: number) => never;
  /** The streams are the process's own: what Node itself prints (process warnings) lands on them too. */
  isProcess?: boolean;
  /** obsync's own telemetry, set before the command runs when an OTLP endpoint is configured (./cli-telemetry.ts). */
  telemetry?: Telemetry;
  /** Where `obsync run` puts its metrics registry for the OTLP export (set with `telemetry`). */
  telemetryMetrics?: { use(registry: { getMetricsAsJSON(): Promise<unknown> }): void };
}

/** The process's streams, each opened on first use (opening stdin costs start-up time most commands never need). */
export function processIO(): CliIO {
  let stdout: (Writable & { isTTY?: boolean }) | undefined;
  let stderr: (Writable & { isTTY?: boolean }) | undefined;
  return {
    get stdout() {
      return (stdout ??= outputWriter(process.stdout));
    },
    get stderr() {
      return (stderr ??= outputWriter(process.stderr));
    },
    get stdin() {
      return process.stdin;
    },
    terminal: process.stderr,
    env: process.env,
    cwd: process.cwd(),
    onInterrupt(handler) {
      process.on('SIGINT', handler);
      return () => process.off('SIGINT', handler);
    },
    exitNow(code) {
      process.exit(code);
    },
    isProcess: true,
  };
}

/**
 * A writer that passes everything through `finalText` (core/output.ts) on its way to `target`
 * (stdout, stderr): nothing a command prints can carry a known secret or act on the terminal.
 * Writes are forwarded synchronously, in order, and the terminal's properties stay visible
 * (colour and prompt decisions read them).
 */
export function outputWriter(target: NodeJS.WriteStream): Writable & { isTTY?: boolean } {
  const writer = new Writable({
    decodeStrings: false,
    write(chunk: string | Buffer, _encoding, done) {
      target.write(finalText(typeof chunk === 'string' ? chunk : chunk.toString('utf8')));
      done();
    },
    final(done) {
      done();
    },
  });
  Object.defineProperty(writer, OUTPUT_WRITER, { value: true });
  for (const key of ['isTTY', 'columns', 'rows'] as const)
    Object.defineProperty(writer, key, {
      get: () => target[key],
      // eslint-disable-next-line no-restricted-syntax -- fixed keys: isTTY, columns, rows
      set: (value: unknown) => Reflect.set(target, key, value),
      enumerable: true,
    });
  for (const method of ['getColorDepth', 'hasColors', 'getWindowSize', 'cursorTo', 'moveCursor', 'clearLine'] as const) {
    Object.defineProperty(writer, method, {
      value: (...args: unknown[]) => (target[method] as (...a: unknown[]) => unknown).apply(target, args),
    });
  }
  target.on('resize', () => writer.emit('resize'));
  // Errors (EPIPE) reach whoever listens on the writer; with no listener anywhere they stay uncaught, as before.
  target.on('error', (err) => {
    if (writer.listenerCount('error') > 0) writer.emit('error', err);
    else if (target.listenerCount('error') === 1) throw err;
  });
  return writer;
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

/** What an error is reported with: its message and hint (a Node system error as a plain sentence). */
export function errorReport(err: unknown): { message: string; hint?: string } {
  if (err instanceof ObsyncError) return err.hint ? { message: err.message, hint: err.hint } : { message: err.message };
  return systemErrorMessage(err) ?? { message: errorMessage(err) };
}

/** One error report on stderr: the message, its hint, never a stack unless asked. Control characters are shown escaped. */
export function reportError(io: CliIO, err: unknown, verbose = false): void {
  const say = (line: string) => io.stderr.write(`${printableLines(line)}\n`);
  const { message, hint } = errorReport(err);
  say(`error: ${message}`);
  if (hint) say(`  hint: ${hint}`);
  if (verbose && err instanceof Error && err.stack) say(err.stack);
}

/** A plain sentence for a Node system error (`ENOSPC: no space left on device, write`), naming the file when known. */
export function systemErrorMessage(err: unknown): { message: string; hint?: string } | undefined {
  if (!(err instanceof Error)) return undefined;
  const { code, syscall, path } = err as NodeJS.ErrnoException;
  if (typeof code !== 'string' || typeof syscall !== 'string') return undefined;
  const known = SYSTEM_ERRORS[code];
  // open serves reads and writes alike (a saved plan read, a plan file written): say open, not which.
  const action = syscall === 'open' ? 'open' : /write|rename|mkdir|copy|truncate|fsync|close/.test(syscall) ? 'write' : 'read';
  const what = known?.what ?? err.message;
  const message = `cannot ${action}${path ? ` ${path}` : ''}: ${what} (${code})`;
  return known?.hint ? { message, hint: known.hint } : { message };
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
