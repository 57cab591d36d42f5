import { createLogger, type Logger } from '../log/logger.js';
import { colorEnabled, type CliIO } from './io.js';

/**
 * Logs go to stderr: pretty on a terminal (coloured unless NO_COLOR / --no-color), JSON lines
 * otherwise; OBSYNC_LOG_LEVEL wins over the command's default.
 */
export function cliLogger(io: CliIO, level: string): Logger {
  const lvl = io.env.OBSYNC_LOG_LEVEL ?? level;
  const traced = io.telemetry?.enabled === true ? { telemetry: io.telemetry } : {};
  // The process's own stderr is written at its file descriptor (synchronously, nothing lost at exit); any other (a test's) as a stream.
  if (io.stderr.isTTY !== true)
    return createLogger({ format: 'json', level: lvl, ...traced, ...(io.isProcess === true ? {} : { stream: io.stderr }) });
  return createLogger({ format: 'pretty', level: lvl, ...traced, stream: io.stderr, color: colorEnabled(io, 'stderr') });
}
