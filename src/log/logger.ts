/**
 * The pino factory and the one list of redacted paths. Credentials also travel as `Secret`
 * objects, which print as `(sensitive)`, and every line passes the scrubber on its way to the
 * destination, so a secret value under any other key or inside any message cannot leak either.
 */
import { Writable } from 'node:stream';
import { styleText } from 'node:util';
import pino from 'pino';
import { finalText, isOutputWriter } from '../core/output.js';
import { printable, styled, type Format } from '../core/printable.js';
import { scrub } from '../core/scrub.js';
import { SENSITIVE } from '../core/secret.js';
import { withoutReservedKeys } from './fields.js';

export type Logger = pino.Logger;
export type LogFormat = 'json' | 'pretty';

const SECRET_KEYS = [
  'authorization',
  'Authorization',
  'apiKey',
  'keySecret',
  'secret',
  'password',
  'token',
  'credentials',
  'accessKey',
  'secretKey',
  'serviceAccountKey',
  'connectionString',
  'privateKey',
  'headers',
  'queryParams',
];

/** pino's `*` matches exactly one level, so each depth is listed. */
export const REDACT_PATHS = SECRET_KEYS.flatMap((k) => [k, `*.${k}`, `*.*.${k}`, `*.*.*.${k}`]);

export interface LoggerOptions {
  level?: string;
  format?: LogFormat;
  /** Defaults to stderr: stdout is for data (plans, JSON output). */
  fd?: 1 | 2;
  /** For tests: write here instead of a file descriptor. */
  stream?: NodeJS.WritableStream;
  /** Pretty format only: colour the level and fields (default: when the stream is a terminal and NO_COLOR is unset). */
  color?: boolean;
  /** obsync's telemetry when on: trace_id/span_id on every line (pino's mixin), and each line also sent as an OTLP log record. */
  telemetry?: LogTelemetry;
}

/** The part of src/telemetry's Telemetry a logger uses (structural: this module loads none of it). */
export interface LogTelemetry {
  logMixin(): Record<string, string>;
  logDestination(): { write(line: string): void } | null;
}

export function createLogger(opts: LoggerOptions = {}): Logger {
  const options: pino.LoggerOptions = {
    level: opts.level ?? 'info',
    redact: { paths: REDACT_PATHS, censor: SENSITIVE },
    base: undefined,
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }), log: withoutReservedKeys },
    ...(opts.telemetry ? { mixin: () => opts.telemetry?.logMixin() ?? {} } : {}),
  };
  const otlp = opts.telemetry?.logDestination() ?? null;
  const also = (main: pino.DestinationStream) => (otlp ? alsoTo(main, otlp) : main);
  if (opts.format === 'pretty')
    return pino(options, also(scrubbing(prettyStream(opts.stream ?? (opts.fd === 1 ? process.stdout : process.stderr), opts.color))));
  const dest = opts.stream ?? pino.destination({ fd: opts.fd ?? 2, sync: true });
  // JSON lines pass the output pass too: invisible characters as JSON escapes, `##[` defused (a CI log shows them).
  return pino(options, also(isOutputWriter(dest) ? scrubbing(dest) : finalPass(dest)));
}

/** Each line to `main` and to the OTLP log destination (which scrubs what it exports: src/telemetry/scrubbing.ts). */
function alsoTo(main: pino.DestinationStream & Destination, otlp: { write(line: string): void }): pino.DestinationStream {
  return {
    write: (line: string) => {
      main.write(line);
      otlp.write(line);
    },
    ...(typeof main.flush === 'function' ? { flush: (cb?: (err?: Error | null) => void) => main.flush?.(cb) } : {}),
    ...(typeof main.flushSync === 'function' ? { flushSync: () => main.flushSync?.() } : {}),
  };
}

interface Destination {
  write(line: string): unknown;
  flush?: (cb?: (err?: Error | null) => void) => void;
  flushSync?: () => void;
}

/** The destination behind the scrubber: pino writes whole lines, so a secret is never split between two writes. */
function scrubbing(dest: NodeJS.WritableStream | Destination): pino.DestinationStream {
  const target = dest as Destination;
  return {
    write: (line: string) => target.write(scrub(line)),
    ...(typeof target.flush === 'function' ? { flush: (cb?: (err?: Error | null) => void) => target.flush?.(cb) } : {}),
    ...(typeof target.flushSync === 'function' ? { flushSync: () => target.flushSync?.() } : {}),
  };
}

/** The destination behind `finalText` (scrubber, then the output pass), for a stream that does not apply it itself. */
function finalPass(dest: NodeJS.WritableStream | Destination): pino.DestinationStream {
  const target = dest as Destination;
  return {
    write: (line: string) => target.write(finalText(line)),
    ...(typeof target.flush === 'function' ? { flush: (cb?: (err?: Error | null) => void) => target.flush?.(cb) } : {}),
    ...(typeof target.flushSync === 'function' ? { flushSync: () => target.flushSync?.() } : {}),
  };
}

/** A silent logger for tests and library use. */
export function nullLogger(): Logger {
  return pino({ level: 'silent' });
}

const LEVEL_STYLE: Record<string, Format> = {
  trace: 'gray',
  debug: 'gray',
  info: 'cyan',
  warn: 'yellow',
  error: 'red',
  fatal: 'red',
};

/** Human-readable lines for a terminal: `12:00:01 INFO  message key=value …`. */
function prettyStream(out: NodeJS.WritableStream, color: boolean | undefined): Writable {
  const colored = color ?? styleText('red', 'x', { stream: process.stderr }) !== 'x';
  const paint: Paint = colored ? styled : (_fmt, text) => text;
  // The colours are markers until the output pass; a stream that is not an output writer gets the pass here.
  const final = isOutputWriter(out) ? (text: string) => text : finalText;
  let pending = '';
  return new Writable({
    write(chunk: Buffer, _enc, done) {
      pending += chunk.toString('utf8');
      let nl = pending.indexOf('\n');
      while (nl >= 0) {
        out.write(final(formatLine(pending.slice(0, nl), paint) + '\n'));
        pending = pending.slice(nl + 1);
        nl = pending.indexOf('\n');
      }
      done();
    },
  });
}

type Paint = (format: Format, text: string) => string;

function formatLine(line: string, paint: Paint): string {
  let rec: Record<string, unknown>;
  try {
    rec = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line;
  }
  const { level, time, msg, ...rest } = rec;
  const lvl = typeof level === 'string' ? level : 'info';
  const clock = typeof time === 'string' ? time.slice(11, 19) : '';
  const fields = Object.entries(rest)
    .map(([k, v]) => printable(`${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`))
    .join(' ');
  const head = paint(LEVEL_STYLE[lvl] ?? 'white', lvl.toUpperCase().padEnd(5));
  return `${clock} ${head} ${typeof msg === 'string' ? printable(msg) : ''}${fields ? ' ' + paint('gray', fields) : ''}`;
}
