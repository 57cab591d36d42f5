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

/**
 * One export batch's pass through the scrubber. Every text is looked at, but each distinct one is
 * scrubbed once per batch: the same span names, routes, addresses and resource recur in hundreds
 * of spans. A batch is scrubbed in one synchronous pass, so no secret can be registered between a
 * text's first look-up and its reuse. What holds nothing to mask is passed on as it is (no copy).
 */
export class BatchScrub {
  readonly #texts = new Map<string, string>();
  readonly #resources = new Map<Resource, Resource>();

  text(text: string): string {
    let out = this.#texts.get(text);
    if (out === undefined) {
      out = scrub(text);
      this.#texts.set(text, out);
    }
    return out;
  }

  /** An attribute or log value, or a copy with every string in it (map keys included) scrubbed. */
  value(value: unknown): unknown {
    if (typeof value === 'string') return this.text(value);
    if (Array.isArray(value)) {
      const out = value.map((v: unknown) => this.value(v));
      return out.some((v, i) => v !== value[i]) ? out : value;
    }
    // Bytes are not text the scrubber can read: they do not leave.
    if (value instanceof Uint8Array) return '(bytes)';
    if (typeof value === 'object' && value !== null) {
      let changed = false;
      const entries = Object.entries(value).map(([k, v]) => {
        const entry = [this.text(k), this.value(v)] as const;
        changed ||= entry[0] !== k || entry[1] !== v;
        return entry;
      });
      return changed ? Object.fromEntries(entries) : value;
    }
    return value;
  }

  attributes<T extends Attributes>(attributes: T): T {
    return this.value(attributes) as T;
  }

  /** Resources are shared by every span: each is looked at once per batch. */
  resource(resource: Resource): Resource {
    let out = this.#resources.get(resource);
    if (!out) {
      const attributes = this.attributes(resource.attributes);
      out = attributes === resource.attributes ? resource : resourceFromAttributes(attributes);
      this.#resources.set(resource, out);
    }
    return out;
  }
}

/** A copy of an attribute or log value with every string in it (map keys included) scrubbed. */
export function scrubbedValue(value: unknown): unknown {
  return new BatchScrub().value(value);
}

export function scrubbedAttributes<T extends Attributes>(attributes: T): T {
  return new BatchScrub().attributes(attributes);
}

/** The span as it is when nothing in it is to mask; else a copy with every text scrubbed. */
export function scrubbedSpan(span: ReadableSpan, batch = new BatchScrub()): ReadableSpan {
  const name = batch.text(span.name);
  const message = span.status.message === undefined ? undefined : batch.text(span.status.message);
  const attributes = batch.attributes(span.attributes);
  const links = span.links.map((link) => (link.attributes ? withAttributes(link, batch.attributes(link.attributes)) : link));
  const events = span.events.map((e) => {
    const eventName = batch.text(e.name);
    const eventAttributes = e.attributes ? batch.attributes(e.attributes) : undefined;
    return eventName === e.name && eventAttributes === e.attributes
      ? e
      : { ...e, name: eventName, ...(eventAttributes ? { attributes: eventAttributes } : {}) };
  });
  const resource = batch.resource(span.resource);
  const same = <T>(xs: readonly T[], ys: readonly T[]) => xs.every((x, i) => x === ys[i]);
  if (
    name === span.name &&
    message === span.status.message &&
    attributes === span.attributes &&
    same(links, span.links) &&
    same(events, span.events) &&
    resource === span.resource
  )
    return span;
  return {
    name,
    kind: span.kind,
    spanContext: () => span.spanContext(),
    ...(span.parentSpanContext ? { parentSpanContext: span.parentSpanContext } : {}),
    startTime: span.startTime,
    endTime: span.endTime,
    status: message === undefined ? span.status : { ...span.status, message },
    attributes,
    links,
    events,
    duration: span.duration,
    ended: span.ended,
    resource,
    instrumentationScope: span.instrumentationScope,
    droppedAttributesCount: span.droppedAttributesCount,
    droppedEventsCount: span.droppedEventsCount,
    droppedLinksCount: span.droppedLinksCount,
  };
}

function withAttributes<T extends { attributes?: Attributes }>(x: T, attributes: Attributes): T {
  return attributes === x.attributes ? x : { ...x, attributes };
}

/** The record as it is when nothing in it is to mask; else a copy with every text scrubbed. */
export function scrubbedLogRecord(record: ReadableLogRecord, batch = new BatchScrub()): ReadableLogRecord {
  const severityText = record.severityText === undefined ? undefined : batch.text(record.severityText);
  const body = record.body === undefined ? undefined : (batch.value(record.body) as ReadableLogRecord['body']);
  const eventName = record.eventName === undefined ? undefined : batch.text(record.eventName);
  const attributes = batch.value(record.attributes) as ReadableLogRecord['attributes'];
  const resource = batch.resource(record.resource);
  if (
    severityText === record.severityText &&
    body === record.body &&
    eventName === record.eventName &&
    attributes === record.attributes &&
    resource === record.resource
  )
    return record;
  return {
    ...pick(record),
    ...(severityText === undefined ? {} : { severityText }),
    ...(body === undefined ? {} : { body }),
    ...(eventName === undefined ? {} : { eventName }),
    resource,
    attributes,
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
    const batch = new BatchScrub();
    this.inner.export(
      spans.map((s) => scrubbedSpan(s, batch)),
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
    const batch = new BatchScrub();
    this.inner.export(
      records.map((r) => scrubbedLogRecord(r, batch)),
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

function scrubbedMetric(metric: MetricData, batch: BatchScrub): MetricData {
  const dataPoints = metric.dataPoints.map((p) => ({ ...p, attributes: batch.attributes(p.attributes) }));
  return {
    ...metric,
    descriptor: { ...metric.descriptor, description: batch.text(metric.descriptor.description) },
    dataPoints,
  } as MetricData;
}

export function scrubbedResourceMetrics(metrics: ResourceMetrics): ResourceMetrics {
  const batch = new BatchScrub();
  return {
    resource: batch.resource(metrics.resource),
    scopeMetrics: metrics.scopeMetrics.map((s) => ({ ...s, metrics: s.metrics.map((m) => scrubbedMetric(m, batch)) })),
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
