/**
 * Decoded OTLP requests as the rows ClickStack's collector writes (the ClickHouse exporter's
 * otel_traces, otel_logs and otel_metrics_* tables): the same column names, ids in hex, attribute
 * maps of strings, span kind and status as words (`Server`, `Error`), Duration in nanoseconds.
 */
import { setOwn } from '../../core/json.js';
import { hexId } from './codec.js';

export type Row = Record<string, unknown>;
type Obj = Record<string, unknown>;

const asObj = (v: unknown): Obj => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : {});
const asList = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** An AnyValue as ClickHouse's exporter writes it into a String column (AsString: arrays and maps as JSON). */
export function anyValueText(value: unknown): string {
  const plain = anyValuePlain(value);
  return typeof plain === 'string' ? plain : (JSON.stringify(plain) ?? '');
}

function anyValuePlain(value: unknown): unknown {
  const v = asObj(value);
  if ('stringValue' in v) return str(v.stringValue);
  if ('boolValue' in v) return v.boolValue === true;
  if ('intValue' in v) return String(v.intValue);
  if ('doubleValue' in v) return Number(v.doubleValue);
  if ('bytesValue' in v) return str(v.bytesValue);
  if ('arrayValue' in v) return asList(asObj(v.arrayValue).values).map(anyValuePlain);
  if ('kvlistValue' in v)
    return Object.fromEntries(asList(asObj(v.kvlistValue).values).map((kv) => [str(asObj(kv).key), anyValuePlain(asObj(kv).value)]));
  return '';
}

export function attributeMap(list: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  for (const kv of asList(list)) {
    const { key, value } = asObj(kv);
    if (typeof key === 'string') setOwn(out, key, anyValueText(value));
  }
  return out;
}

const nanos = (v: unknown): bigint => {
  try {
    return BigInt(typeof v === 'string' || typeof v === 'number' ? v : 0);
  } catch {
    return 0n;
  }
};

/** DateTime64(9) as ClickHouse's JSON writes it: `2026-11-22 10:00:00.123456789`. */
export function clickhouseTime(unixNano: bigint): string {
  const ms = Number(unixNano / 1_000_000n);
  const fraction = String(unixNano % 1_000_000_000n).padStart(9, '0');
  return `${new Date(ms).toISOString().slice(0, 19).replace('T', ' ')}.${fraction}`;
}

const SPAN_KINDS = ['Unspecified', 'Internal', 'Server', 'Client', 'Producer', 'Consumer'];
const STATUS_CODES = ['Unset', 'Ok', 'Error'];

interface Scoped {
  resource: Record<string, string>;
  scope: Obj;
  item: Obj;
}

/** Each item of each scope of each resource (ResourceSpans → ScopeSpans → Span, and the same for logs and metrics). */
function scopedItems(request: Obj, resourceKey: string, scopeKey: string, itemKey: string): Scoped[] {
  const out: Scoped[] = [];
  for (const rs of asList(request[resourceKey])) {
    const resource = attributeMap(asObj(asObj(rs).resource).attributes);
    for (const ss of asList(asObj(rs)[scopeKey])) {
      const scope = asObj(asObj(ss).scope);
      for (const item of asList(asObj(ss)[itemKey])) out.push({ resource, scope, item: asObj(item) });
    }
  }
  return out;
}

export function spanRows(request: Obj): Row[] {
  return scopedItems(request, 'resourceSpans', 'scopeSpans', 'spans').map(({ resource, scope, item: s }) => {
    const start = nanos(s.startTimeUnixNano);
    const status = asObj(s.status);
    const events = asList(s.events).map(asObj);
    return {
      Timestamp: clickhouseTime(start),
      TraceId: hexId(s.traceId),
      SpanId: hexId(s.spanId),
      ParentSpanId: hexId(s.parentSpanId),
      TraceState: str(s.traceState),
      SpanName: str(s.name),
      SpanKind: SPAN_KINDS[Number(s.kind ?? 0)] ?? 'Unspecified',
      ServiceName: resource['service.name'] ?? '',
      ResourceAttributes: resource,
      ScopeName: str(scope.name),
      ScopeVersion: str(scope.version),
      SpanAttributes: attributeMap(s.attributes),
      Duration: Number(nanos(s.endTimeUnixNano) - start),
      StatusCode: STATUS_CODES[Number(status.code ?? 0)] ?? 'Unset',
      StatusMessage: str(status.message),
      'Events.Timestamp': events.map((e) => clickhouseTime(nanos(e.timeUnixNano))),
      'Events.Name': events.map((e) => str(e.name)),
      'Events.Attributes': events.map((e) => attributeMap(e.attributes)),
    };
  });
}

export function logRows(request: Obj): Row[] {
  return scopedItems(request, 'resourceLogs', 'scopeLogs', 'logRecords').map(({ resource, scope, item: r }) => {
    const time = nanos(r.timeUnixNano) || nanos(r.observedTimeUnixNano);
    return {
      Timestamp: clickhouseTime(time),
      TimestampTime: clickhouseTime(time).slice(0, 19),
      TraceId: hexId(r.traceId),
      SpanId: hexId(r.spanId),
      TraceFlags: Number(r.flags ?? 0),
      SeverityText: str(r.severityText),
      SeverityNumber: Number(r.severityNumber ?? 0),
      ServiceName: resource['service.name'] ?? '',
      Body: anyValueText(r.body),
      ResourceAttributes: resource,
      ScopeName: str(scope.name),
      ScopeVersion: str(scope.version),
      LogAttributes: attributeMap(r.attributes),
    };
  });
}

const POINT_KINDS = [
  ['sum', 'Sum'],
  ['gauge', 'Gauge'],
  ['histogram', 'Histogram'],
  ['exponentialHistogram', 'ExponentialHistogram'],
  ['summary', 'Summary'],
] as const;

/** One row per data point (otel_metrics_sum, _gauge, _histogram… folded into one table with a Type column). */
export function metricRows(request: Obj): Row[] {
  const rows: Row[] = [];
  for (const { resource, scope, item: m } of scopedItems(request, 'resourceMetrics', 'scopeMetrics', 'metrics')) {
    const found = POINT_KINDS.find(([key]) => key in m);
    if (!found) continue;
    const data = asObj(m[found[0]]);
    for (const p of asList(data.dataPoints).map(asObj)) {
      rows.push({
        TimeUnix: clickhouseTime(nanos(p.timeUnixNano)),
        StartTimeUnix: clickhouseTime(nanos(p.startTimeUnixNano)),
        MetricName: str(m.name),
        MetricDescription: str(m.description),
        MetricUnit: str(m.unit),
        Type: found[1],
        ServiceName: resource['service.name'] ?? '',
        ResourceAttributes: resource,
        ScopeName: str(scope.name),
        Attributes: attributeMap(p.attributes),
        ...('asDouble' in p ? { Value: Number(p.asDouble) } : 'asInt' in p ? { Value: Number(p.asInt) } : {}),
        ...('count' in p ? { Count: Number(p.count), Sum: Number(p.sum ?? 0) } : {}),
        ...('bucketCounts' in p
          ? { BucketCounts: asList(p.bucketCounts).map(Number), ExplicitBounds: asList(p.explicitBounds).map(Number) }
          : {}),
        ...('isMonotonic' in data ? { IsMonotonic: data.isMonotonic === true } : {}),
        AggregationTemporality: Number(data.aggregationTemporality ?? 0),
      });
    }
  }
  return rows;
}
