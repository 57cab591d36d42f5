/**
 * The one place telemetry passes the scrubber (src/core/scrub.ts): the exporters of spans and
 * log records are wrapped, so whatever a caller put in a name, an attribute, an event (an
 * exception's message and stack), a status message, a log body or the resource, the copy that
 * leaves has every known secret masked. No span or record reaches an OTLP exporter another way
 * (./sdk.ts builds the processors and the metric reader on these wrappers only). The same for
 * metrics: the resource and every data point's attributes.
 */
import type { Attributes } from '@opentelemetry/api';
import type { ExportResult } from '@opentelemetry/core';
import { resourceFromAttributes, type Resource } from '@opentelemetry/resources';
import type { LogRecordExporter, ReadableLogRecord } from '@opentelemetry/sdk-logs';
import {
  AggregationTemporality,
  type InstrumentType,
  type MetricData,
  type PushMetricExporter,
  type ResourceMetrics,
} from '@opentelemetry/sdk-metrics';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import { scrub } from '../core/scrub.js';

/** A copy of an attribute or log value with every string in it (map keys included) scrubbed. */
export function scrubbedValue(value: unknown): unknown {
  if (typeof value === 'string') return scrub(value);
  if (Array.isArray(value)) return value.map(scrubbedValue);
  // Bytes are not text the scrubber can read: they do not leave.
  if (value instanceof Uint8Array) return '(bytes)';
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [scrub(k), scrubbedValue(v)]));
  }
  return value;
}

export function scrubbedAttributes<T extends Attributes>(attributes: T): T {
  return scrubbedValue(attributes) as T;
}

/** Resources are shared by every span: each is scrubbed once per export batch at most. */
function scrubbedResource(resource: Resource, seen: Map<Resource, Resource>): Resource {
  let out = seen.get(resource);
  if (!out) {
    out = resourceFromAttributes(scrubbedAttributes(resource.attributes));
    seen.set(resource, out);
  }
  return out;
}

export function scrubbedSpan(span: ReadableSpan, resources = new Map<Resource, Resource>()): ReadableSpan {
  const status = span.status.message === undefined ? span.status : { ...span.status, message: scrub(span.status.message) };
  return {
    name: scrub(span.name),
    kind: span.kind,
    spanContext: () => span.spanContext(),
    ...(span.parentSpanContext ? { parentSpanContext: span.parentSpanContext } : {}),
    startTime: span.startTime,
    endTime: span.endTime,
    status,
    attributes: scrubbedAttributes(span.attributes),
    links: span.links.map((link) => ({ ...link, ...(link.attributes ? { attributes: scrubbedAttributes(link.attributes) } : {}) })),
    events: span.events.map((e) => ({
      ...e,
      name: scrub(e.name),
      ...(e.attributes ? { attributes: scrubbedAttributes(e.attributes) } : {}),
    })),
    duration: span.duration,
    ended: span.ended,
    resource: scrubbedResource(span.resource, resources),
    instrumentationScope: span.instrumentationScope,
    droppedAttributesCount: span.droppedAttributesCount,
    droppedEventsCount: span.droppedEventsCount,
    droppedLinksCount: span.droppedLinksCount,
  };
}

export function scrubbedLogRecord(record: ReadableLogRecord, resources = new Map<Resource, Resource>()): ReadableLogRecord {
  return {
    ...pick(record),
    ...(record.severityText === undefined ? {} : { severityText: scrub(record.severityText) }),
    ...(record.body === undefined ? {} : { body: scrubbedValue(record.body) as ReadableLogRecord['body'] }),
    ...(record.eventName === undefined ? {} : { eventName: scrub(record.eventName) }),
    resource: scrubbedResource(record.resource, resources),
    attributes: scrubbedValue(record.attributes) as ReadableLogRecord['attributes'],
  };
}

/** The record's fields that carry no text (times, ids, counts, scope). */
function pick(r: ReadableLogRecord) {
  return {
    hrTime: r.hrTime,
    hrTimeObserved: r.hrTimeObserved,
    ...(r.spanContext ? { spanContext: r.spanContext } : {}),
    ...(r.severityNumber === undefined ? {} : { severityNumber: r.severityNumber }),
    instrumentationScope: r.instrumentationScope,
    droppedAttributesCount: r.droppedAttributesCount,
  };
}

export class ScrubbingSpanExporter implements SpanExporter {
  constructor(private readonly inner: SpanExporter) {}
  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    const resources = new Map<Resource, Resource>();
    this.inner.export(
      spans.map((s) => scrubbedSpan(s, resources)),
      done,
    );
  }
  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }
  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}

export class ScrubbingLogRecordExporter implements LogRecordExporter {
  constructor(private readonly inner: LogRecordExporter) {}
  export(records: ReadableLogRecord[], done: (result: ExportResult) => void): void {
    const resources = new Map<Resource, Resource>();
    this.inner.export(
      records.map((r) => scrubbedLogRecord(r, resources)),
      done,
    );
  }
  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }
  forceFlush(): Promise<void> {
    return this.inner.forceFlush();
  }
}

function scrubbedMetric(metric: MetricData): MetricData {
  const dataPoints = metric.dataPoints.map((p) => ({ ...p, attributes: scrubbedAttributes(p.attributes) }));
  return { ...metric, descriptor: { ...metric.descriptor, description: scrub(metric.descriptor.description) }, dataPoints } as MetricData;
}

export function scrubbedResourceMetrics(metrics: ResourceMetrics): ResourceMetrics {
  return {
    resource: scrubbedResource(metrics.resource, new Map()),
    scopeMetrics: metrics.scopeMetrics.map((s) => ({ ...s, metrics: s.metrics.map(scrubbedMetric) })),
  };
}

export class ScrubbingMetricExporter implements PushMetricExporter {
  constructor(private readonly inner: PushMetricExporter) {}
  export(metrics: ResourceMetrics, done: (result: ExportResult) => void): void {
    this.inner.export(scrubbedResourceMetrics(metrics), done);
  }
  selectAggregationTemporality(type: InstrumentType) {
    return this.inner.selectAggregationTemporality?.(type) ?? AggregationTemporality.CUMULATIVE;
  }
  forceFlush(): Promise<void> {
    return this.inner.forceFlush();
  }
  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }
}
