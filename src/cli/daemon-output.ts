/**
 * obsync run's output. When its logs are JSON lines (stderr is not a terminal: a container, a
 * service manager, a pipe to a collector), every line on its stdout and stderr is a JSON object:
 * what the command's path writes there goes through jsonLines (src/log/json-lines.ts), an error
 * that ends the command is a log record rather than main's text report, and Node's own process
 * warnings are log records too. On a terminal nothing changes.
 */
import { errorReport, ExitRequest, type CliIO } from './io.js';
import { jsonLines } from '../log/json-lines.js';
import type { Logger } from '../log/logger.js';
import { ObsyncError } from '../core/errors.js';

export interface DaemonOutput {
  /** The IO the command uses from here on. */
  io: CliIO;
  /** What to throw for an error that ends the command (logged first when the logs are JSON). */
  failure(err: unknown): unknown;
  /** Ends the wrapping (a last line without a newline is written) and gives Node its warnings back. */
  close(): void;
}

export function daemonOutput(io: CliIO, logger: () => Logger): DaemonOutput {
  if (io.stderr.isTTY === true) return { io, failure: (err) => err, close: () => undefined };
  const stdout = jsonLines(io.stdout);
  const stderr = jsonLines(io.stderr);
  const restoreWarnings = io.isProcess === true ? warningsToLog(logger) : () => undefined;
  return {
    io: { ...io, stdout, stderr },
    failure(err) {
      if (err instanceof ExitRequest) return err;
      const { message, hint } = errorReport(err);
      logger().error(
        { error: message, ...(hint ? { hint } : {}), ...(err instanceof ObsyncError ? { code: err.code } : {}) },
        'obsync run failed',
      );
      logger().flush();
      return new ExitRequest(1);
    },
    close() {
      stdout.end();
      stderr.end();
      restoreWarnings();
    },
  };
}

/** Node prints a process warning as text on stderr: while the daemon runs, it is a log record instead. */
function warningsToLog(logger: () => Logger): () => void {
  const printers = process.listeners('warning');
  const toLog = (warning: Error & { code?: string }) =>
    logger().warn({ warning: warning.name, detail: warning.message, ...(warning.code ? { code: warning.code } : {}) }, 'node warning');
  process.removeAllListeners('warning');
  process.on('warning', toLog);
  return () => {
    process.off('warning', toLog);
    for (const printer of printers) process.on('warning', printer);
  };
}
