/**
 * Telemetry when it is configured: the OpenTelemetry JS SDK's tracer, logger and meter providers,
 * each exporting over OTLP/HTTP (protobuf or JSON) through the scrubbing wrappers (./scrubbing.ts).
 * Only ./start.ts imports this module, dynamically, so nothing of the SDK loads when telemetry is off.
 */
import { context, SpanStatusCode, trace, type Span, type Tracer } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { OTLPLogExporter as JsonLogExporter } from '@opentelemetry/exporter-logs-otlp-http';
import { OTLPLogExporter as ProtoLogExporter } from '@opentelemetry/exporter-logs-otlp-proto';
import { OTLPMetricExporter as JsonMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { OTLPMetricExporter as ProtoMetricExporter } from '@opentelemetry/exporter-metrics-otlp-proto';
import { OTLPTraceExporter as JsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtoTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { CompressionAlgorithm } from '@opentelemetry/otlp-exporter-base';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchLogRecordProcessor, LoggerProvider } from '@opentelemetry/sdk-logs';
import { MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import { NO_TELEMETRY, type Attributes, type SpanHandle, type Telemetry } from './api.js';
import type { SignalConfig, TelemetryConfig } from './config.js';
import { setOwn } from '../core/json.js';
import { lineDestination } from './pino-lines.js';
import { PromRegistryProducer, type PromRegistry } from './prom-producer.js';
import { ScrubbingLogRecordExporter, ScrubbingMetricExporter, ScrubbingSpanExporter } from './scrubbing.js';

export interface SdkOptions {
  version: string;
  /** The prom-client registry to export over OTLP too (the daemon's); none: no metrics are exported. */
  promRegistry?: PromRegistry | undefined;
}

const SCOPE = 'obsync';

const exporterOptions = (s: SignalConfig) => ({
  url: s.url,
  headers: s.headers,
  timeoutMillis: s.timeoutMillis,
  compression: s.compression === 'gzip' ? CompressionAlgorithm.GZIP : CompressionAlgorithm.NONE,
});

function definedAttributes(attributes: Attributes): Record<string, string | number | boolean | string[]> {
  const out: Record<string, string | number | boolean | string[]> = {};
  for (const [k, v] of Object.entries(attributes)) if (v !== undefined) setOwn(out, k, typeof v === 'object' ? [...v] : v);
  return out;
}

function handleOf(span: Span): SpanHandle {
  return {
    setAttributes: (attributes) => void span.setAttributes(definedAttributes(attributes)),
    fail: (message) => void span.setStatus({ code: SpanStatusCode.ERROR, message }),
  };
}

function recordFailure(span: Span, err: unknown): void {
  span.recordException(err instanceof Error ? err : String(err));
  span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
}

function runInSpan<T>(tracer: Tracer, name: string, attributes: Attributes, fn: (span: SpanHandle) => T): T {
  return tracer.startActiveSpan(name, { attributes: definedAttributes(attributes) }, (span) => {
    let result: T;
    try {
      result = fn(handleOf(span));
    } catch (err) {
      recordFailure(span, err);
      span.end();
      throw err;
    }
    if (result instanceof Promise) {
      return result.then(
        (value: unknown) => {
          span.end();
          return value;
        },
        (err: unknown) => {
          recordFailure(span, err);
          span.end();
          throw err;
        },
      ) as T;
    }
    span.end();
    return result;
  });
}

export function startSdk(config: TelemetryConfig, options: SdkOptions): Telemetry {
  const resource = resourceFromAttributes({
    ...config.resourceAttributes,
    [ATTR_SERVICE_NAME]: config.serviceName,
    [ATTR_SERVICE_VERSION]: options.version,
  });
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  const { traces, logs, metrics } = config.signals;
  const tracerProvider = new BasicTracerProvider({
    resource,
    spanProcessors: traces
      ? [
          new BatchSpanProcessor(
            new ScrubbingSpanExporter(
              traces.protocol === 'http/json'
                ? new JsonTraceExporter(exporterOptions(traces))
                : new ProtoTraceExporter(exporterOptions(traces)),
            ),
          ),
        ]
      : [],
  });
  const loggerProvider = logs
    ? new LoggerProvider({
        resource,
        processors: [
          new BatchLogRecordProcessor({
            exporter: new ScrubbingLogRecordExporter(
              logs.protocol === 'http/json' ? new JsonLogExporter(exporterOptions(logs)) : new ProtoLogExporter(exporterOptions(logs)),
            ),
          }),
        ],
      })
    : undefined;
  const meterProvider =
    metrics && options.promRegistry
      ? new MeterProvider({
          resource,
          readers: [
            new PeriodicExportingMetricReader({
              exporter: new ScrubbingMetricExporter(
                metrics.protocol === 'http/json'
                  ? new JsonMetricExporter(exporterOptions(metrics))
                  : new ProtoMetricExporter(exporterOptions(metrics)),
              ),
              exportIntervalMillis: config.metricIntervalMillis,
              metricProducers: [new PromRegistryProducer(options.promRegistry)],
            }),
          ],
        })
      : undefined;
  const tracer = tracerProvider.getTracer(SCOPE, options.version);
  const destination = loggerProvider ? lineDestination(loggerProvider.getLogger(SCOPE, options.version)) : null;
  let stopped = false;
  const flush = async () => {
    await Promise.allSettled([tracerProvider.forceFlush(), loggerProvider?.forceFlush(), meterProvider?.forceFlush()]);
  };
  return {
    enabled: true,
    span: (name, attributes, fn) => (stopped ? NO_TELEMETRY.span(name, attributes, fn) : runInSpan(tracer, name, attributes, fn)),
    logMixin: (): Record<string, string> => {
      const active = trace.getActiveSpan()?.spanContext();
      return active && trace.isSpanContextValid(active) ? { trace_id: active.traceId, span_id: active.spanId } : {};
    },
    logDestination: () => (stopped ? null : destination),
    flush,
    shutdown: async () => {
      if (stopped) return;
      stopped = true;
      await Promise.allSettled([tracerProvider.shutdown(), loggerProvider?.shutdown(), meterProvider?.shutdown()]);
      contextManager.disable();
      context.disable();
    },
  };
}
