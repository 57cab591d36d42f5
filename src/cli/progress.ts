/**
 * Long waits made visible on a terminal: one progress line at the bottom of stderr that says what
 * obsync is waiting for — a rate limit, a retry's back-off, a server slow to answer — and counts
 * the seconds. Everything else written to stderr goes above it (the line is cleared and drawn
 * again around each write). Only on a terminal and not in CI: logs get no animation.
 */
import type { Writable } from 'node:stream';
import type { RetryReport, SlowRequest, WaitReport } from '../remote/transport-types.js';
import type { CliIO } from './io.js';
import { CLEAR_LINE } from '../core/printable.js';

/** Made real by the output pass of stderr's writer (text from elsewhere cannot clear a line). */
const CLEAR = CLEAR_LINE;
const TICK_MS = 1_000;

interface Entry {
  text: (now: number) => string;
  /** Epoch ms after which the entry is gone by itself. */
  until: number;
}

export interface Clock {
  now: () => number;
  every: (ms: number, fn: () => void) => { stop: () => void };
}

const REAL_CLOCK: Clock = {
  now: () => Date.now(),
  every: (ms, fn) => {
    const timer = setInterval(fn, ms);
    timer.unref();
    return { stop: () => clearInterval(timer) };
  },
};

type Stream = Writable & { isTTY?: boolean; columns?: number };

export class StatusLine {
  readonly #entries = new Map<number, Entry>();
  readonly #write: (text: string) => boolean;
  readonly #restore: () => void;
  #next = 0;
  #shown = false;
  #closed = false;
  #ticker: { stop: () => void } | undefined;

  constructor(
    private readonly stream: Stream,
    private readonly clock: Clock = REAL_CLOCK,
  ) {
    const own = Object.getOwnPropertyDescriptor(stream, 'write');
    const original = stream.write.bind(stream);
    this.#write = (text) => original(text);
    // Whatever else is written to the stream goes above the progress line.
    stream.write = ((...args: unknown[]) => {
      this.#erase();
      const ok = Reflect.apply(original, stream, args) as boolean;
      this.#draw();
      return ok;
    }) as Stream['write'];
    this.#restore = () => void (own ? Object.defineProperty(stream, 'write', own) : Reflect.deleteProperty(stream, 'write'));
  }

  /**
   * Clears the line for good (the command is ending: its last words, an error among them, must not
   * be followed by a progress line left on the screen) and gives the stream back.
   */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#entries.clear();
    this.#draw();
    this.#restore();
  }

  /** Shows `text` until `until` (epoch ms) or until the returned function is called; nothing once closed. */
  add(text: (now: number) => string, until = Number.POSITIVE_INFINITY): () => void {
    if (this.#closed) return () => {};
    const id = this.#next++;
    this.#entries.set(id, { text, until });
    this.#draw();
    return () => {
      this.#entries.delete(id);
      this.#draw();
    };
  }

  /** Redraws the line with the newest entry still current; clears it (and stops ticking) when none is. */
  #draw(): void {
    const now = this.clock.now();
    for (const [id, e] of this.#entries) if (e.until <= now) this.#entries.delete(id);
    const current = [...this.#entries.values()];
    const newest = current.at(-1);
    if (!newest) {
      this.#erase();
      this.#ticker?.stop();
      this.#ticker = undefined;
      return;
    }
    const more = current.length > 1 ? ` (+${current.length - 1} more)` : '';
    const width = Math.max(20, (this.stream.columns ?? 80) - 1);
    const line = `obsync: ${newest.text(now)}${more}`;
    this.#write(`${CLEAR}${line.length > width ? `${line.slice(0, width - 1)}…` : line}`);
    this.#shown = true;
    this.#ticker ??= this.clock.every(TICK_MS, () => this.#draw());
  }

  #erase(): void {
    if (!this.#shown) return;
    this.#write(CLEAR);
    this.#shown = false;
  }
}

const seconds = (ms: number) => `${Math.max(0, Math.ceil(ms / 1000))} s`;

/** The progress line's words for each kind of wait. */
export function waitText(wait: WaitReport, until: number): (now: number) => string {
  return (now) => `waiting ${seconds(until - now)} before the next request to ${wait.host} (${wait.reason})`;
}

export function retryText(retry: RetryReport, until: number): (now: number) => string {
  return (now) =>
    `${retry.method} ${retry.path} failed (${retry.cause}); attempt ${retry.attempt} of ${retry.attempts} in ${seconds(until - now)}`;
}

export function slowText(request: SlowRequest): (now: number) => string {
  return (now) => `${request.method} ${request.path}: no answer yet from ${request.host} after ${seconds(now - request.startedAt)}`;
}

/** A retry is shown for its back-off, and at least this long (a short back-off would only flicker). */
const MIN_SHOWN_MS = 1_500;

/** One progress line per stream, shared by the targets of a command. */
const LINES = new WeakMap<Stream, StatusLine>();

/** The progress line of a command's stderr, when it is a terminal outside CI; otherwise none. */
export function terminalProgress(io: CliIO, clock: Clock = REAL_CLOCK): ProgressReporter | undefined {
  if (io.stderr.isTTY !== true || (io.env.CI !== undefined && io.env.CI !== '' && io.env.CI !== 'false')) return undefined;
  let line = LINES.get(io.stderr);
  if (!line) LINES.set(io.stderr, (line = new StatusLine(io.stderr, clock)));
  const shown = line;
  return {
    onWait: (wait) => {
      const until = clock.now() + wait.seconds * 1000;
      shown.add(waitText(wait, until), until);
    },
    onRetry: (retry) => {
      const until = clock.now() + retry.waitMs;
      shown.add(retryText(retry, until), Math.max(until, clock.now() + MIN_SHOWN_MS));
    },
    onSlow: (request) => shown.add(slowText(request)),
  };
}

/** Clears and ends the progress line of the command's stderr, if it has one (before its last words). */
export function closeProgress(io: CliIO): void {
  LINES.get(io.stderr)?.close();
  LINES.delete(io.stderr);
}

export interface ProgressReporter {
  onWait: (wait: WaitReport) => void;
  onRetry: (retry: RetryReport) => void;
  onSlow: (request: SlowRequest) => () => void;
}
