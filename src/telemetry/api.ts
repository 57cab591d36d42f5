/**
 * What the rest of obsync calls (issue 45): spans around work, a pino mixin and destination for
 * trace-correlated logs, shutdown. Nothing here imports OpenTelemetry: when telemetry is off,
 * NO_TELEMETRY is all that is loaded and every call costs one function call.
 */

/** Attribute values obsync sets; every one passes the scrubber before it leaves the process (./scrubbing.ts). */
export type AttributeValue = string | number | boolean | readonly string[];
export type Attributes = Readonly<Record<string, AttributeValue | undefined>>;

/** The span a `span()` callback runs in. */
export interface SpanHandle {
  setAttributes(attributes: Attributes): void;
  /** Marks the span failed without an exception (a run that finished with failed steps). */
  fail(message: string): void;
}

/** A pino destination: each line pino writes (one JSON object) also becomes an OTLP log record. */
export interface LineDestination {
  write(line: string): void;
}

export interface Telemetry {
  readonly enabled: boolean;
  /**
   * Runs `fn` inside a new span, a child of the span active where it is called (nesting follows
   * async calls). A thrown error, or a rejected promise, is recorded on the span (status ERROR and
   * an exception event) and rethrown. A returned promise ends the span when it settles.
   */
  span<T>(name: string, attributes: Attributes, fn: (span: SpanHandle) => T): T;
  /** For pino's `mixin` option: `{trace_id, span_id}` while a span is active, else `{}`. */
  logMixin(): Record<string, string>;
  /** A destination to add to pino's streams (pino.multistream) so log lines go out as OTLP log records; null when off. */
  logDestination(): LineDestination | null;
  /** Exports what is buffered now (spans, logs, and the metrics as they stand). */
  flush(): Promise<void>;
  /** Flushes and stops the exporters; the object then behaves as off. Never throws. */
  shutdown(): Promise<void>;
}

const NOOP_SPAN: SpanHandle = {
  setAttributes: () => undefined,
  fail: () => undefined,
};

const EMPTY: Record<string, string> = Object.freeze({});

/** Telemetry when none is configured: no SDK, no work. */
export const NO_TELEMETRY: Telemetry = Object.freeze({
  enabled: false,
  span: <T>(_name: string, _attributes: Attributes, fn: (span: SpanHandle) => T): T => fn(NOOP_SPAN),
  logMixin: () => EMPTY,
  logDestination: () => null,
  flush: () => Promise.resolve(),
  shutdown: () => Promise.resolve(),
});
