/**
 * The daemon's prom-client registry (src/daemon/metrics.ts) as OTLP metrics: one source of truth,
 * the same names, the unit the name ends in (`_seconds` → `s`, `_bytes` → `By`). A MetricProducer
 * for the SDK's PeriodicExportingMetricReader (`metricProducers`): each collection reads the
 * registry as it stands. Counters become monotonic cumulative sums, gauges gauges, histograms
 * explicit-bucket histograms (prom-client's cumulative `le` buckets turned into per-bucket counts).
 * Summaries (none of obsync's) are left out. The scrubber is applied on the way out (./scrubbing.ts).
 */
import type { HrTime } from '@opentelemetry/api';
import {
  AggregationTemporality,
  DataPointType,
  type CollectionResult,
  type MetricData,
  type MetricProducer,
} from '@opentelemetry/sdk-metrics';
import { ValueType } from '@opentelemetry/api';
import { resourceFromAttributes } from '@opentelemetry/resources';
import * as z from 'zod';

/** What `registry.getMetricsAsJSON()` resolves to, as far as the conversion reads it. */
const promJson = z.array(
  z.looseObject({
    name: z.string(),
    help: z.string(),
    type: z.union([z.string(), z.number()]),
    values: z.array(
      z.looseObject({
        value: z.number(),
        metricName: z.string().optional(),
        labels: z.record(z.string(), z.union([z.string(), z.number()])),
      }),
    ),
  }),
);
type PromMetric = z.output<typeof promJson>[number];
type PromValue = PromMetric['values'][number];

/** The part of a prom-client Registry this reads. */
export interface PromRegistry {
  getMetricsAsJSON(): Promise<unknown>;
}

export function unitOf(name: string): string {
  const base = name.replace(/_total$/, '');
  if (base.endsWith('_seconds')) return 's';
  if (base.endsWith('_bytes')) return 'By';
  return '';
}

const labelsKey = (labels: Record<string, string | number>) => JSON.stringify(Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : 1)));

function attributesOf(labels: Record<string, string | number>): Record<string, string | number> {
  return Object.fromEntries(Object.entries(labels).map(([k, v]) => [k, typeof v === 'number' ? v : String(v)]));
}

function histogramPoints(metric: PromMetric, startTime: HrTime, endTime: HrTime) {
  const series = new Map<string, { labels: Record<string, string | number>; bounds: [number, number][]; sum: number; count: number }>();
  const entry = (labels: Record<string, string | number>) => {
    const key = labelsKey(labels);
    let s = series.get(key);
    if (!s) {
      s = { labels, bounds: [], sum: 0, count: 0 };
      series.set(key, s);
    }
    return s;
  };
  for (const v of metric.values) {
    const { le, ...labels } = v.labels;
    if (v.metricName?.endsWith('_bucket') && le !== undefined) entry(labels).bounds.push([le === '+Inf' ? Infinity : Number(le), v.value]);
    else if (v.metricName?.endsWith('_sum')) entry(labels).sum = v.value;
    else if (v.metricName?.endsWith('_count')) entry(labels).count = v.value;
  }
  return [...series.values()].map((s) => {
    const sorted = s.bounds.sort((a, b) => a[0] - b[0]);
    const boundaries = sorted.filter(([le]) => Number.isFinite(le)).map(([le]) => le);
    // prom-client's buckets count everything up to their bound; OTLP counts each bucket alone, +Inf last.
    const cumulative = [...sorted.filter(([le]) => Number.isFinite(le)).map(([, n]) => n), s.count];
    const counts = cumulative.map((n, i) => n - (i === 0 ? 0 : (cumulative[i - 1] ?? 0)));
    return {
      attributes: attributesOf(s.labels),
      startTime,
      endTime,
      value: { buckets: { boundaries, counts }, sum: s.sum, count: s.count },
    };
  });
}

function numberPoints(values: readonly PromValue[], startTime: HrTime, endTime: HrTime) {
  return values.map((v) => ({ attributes: attributesOf(v.labels), startTime, endTime, value: v.value }));
}

/** prom-client's JSON as OTLP metric data; `startTime`: when the counters started counting. */
export function toOtlpMetrics(json: unknown, startTime: HrTime, endTime: HrTime): MetricData[] {
  const out: MetricData[] = [];
  for (const metric of promJson.parse(json)) {
    const descriptor = { name: metric.name, description: metric.help, unit: unitOf(metric.name), valueType: ValueType.DOUBLE };
    const aggregationTemporality = AggregationTemporality.CUMULATIVE;
    const type = String(metric.type);
    if (type === 'counter' || type === '0') {
      const dataPoints = numberPoints(metric.values, startTime, endTime);
      out.push({ descriptor, aggregationTemporality, dataPointType: DataPointType.SUM, isMonotonic: true, dataPoints });
    } else if (type === 'gauge' || type === '1') {
      out.push({
        descriptor,
        aggregationTemporality,
        dataPointType: DataPointType.GAUGE,
        dataPoints: numberPoints(metric.values, startTime, endTime),
      });
    } else if (type === 'histogram' || type === '2') {
      out.push({
        descriptor,
        aggregationTemporality,
        dataPointType: DataPointType.HISTOGRAM,
        dataPoints: histogramPoints(metric, startTime, endTime),
      });
    }
  }
  return out;
}

const toHrTime = (ms: number): HrTime => [Math.floor(ms / 1000), Math.round((ms % 1000) * 1e6)];

export class PromRegistryProducer implements MetricProducer {
  readonly #start: HrTime;
  constructor(
    private readonly registry: PromRegistry,
    startedAtMs: number = Date.now(),
  ) {
    this.#start = toHrTime(startedAtMs);
  }

  async collect(): Promise<CollectionResult> {
    try {
      const metrics = toOtlpMetrics(await this.registry.getMetricsAsJSON(), this.#start, toHrTime(Date.now()));
      return {
        resourceMetrics: { resource: resourceFromAttributes({}), scopeMetrics: [{ scope: { name: 'obsync.prometheus' }, metrics }] },
        errors: [],
      };
    } catch (err) {
      return { resourceMetrics: { resource: resourceFromAttributes({}), scopeMetrics: [] }, errors: [err] };
    }
  }
}
