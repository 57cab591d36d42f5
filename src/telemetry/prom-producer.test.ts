import { AggregationTemporality, DataPointType, type HistogramMetricData, type SumMetricData } from '@opentelemetry/sdk-metrics';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { PromRegistryProducer, toOtlpMetrics, unitOf } from './prom-producer.js';

describe('the prom-client registry as OTLP metrics', () => {
  it('keeps names, help and the unit of the name; counters are monotonic cumulative sums, gauges gauges', async () => {
    const registry = new Registry();
    new Counter({ name: 'obsync_reconcile_total', help: 'Runs.', labelNames: ['target', 'result'], registers: [registry] }).inc(
      { target: 'prod', result: 'success' },
      3,
    );
    new Gauge({ name: 'obsync_last_success_timestamp_seconds', help: 'Last.', labelNames: ['target'], registers: [registry] }).set(
      { target: 'prod' },
      17,
    );
    const [counter, gauge] = toOtlpMetrics(await registry.getMetricsAsJSON(), [1, 0], [2, 0]);
    expect(counter).toMatchObject({
      descriptor: { name: 'obsync_reconcile_total', description: 'Runs.', unit: '' },
      dataPointType: DataPointType.SUM,
      isMonotonic: true,
      aggregationTemporality: AggregationTemporality.CUMULATIVE,
    });
    expect((counter as SumMetricData).dataPoints).toEqual([
      { attributes: { target: 'prod', result: 'success' }, startTime: [1, 0], endTime: [2, 0], value: 3 },
    ]);
    expect(gauge).toMatchObject({ descriptor: { unit: 's' }, dataPointType: DataPointType.GAUGE, dataPoints: [{ value: 17 }] });
  });

  it("turns prom-client's cumulative le buckets into per-bucket counts with the +Inf bucket last", async () => {
    const registry = new Registry();
    const h = new Histogram({
      name: 'obsync_reconcile_duration_seconds',
      help: 'd',
      labelNames: ['target'],
      buckets: [1, 5],
      registers: [registry],
    });
    for (const v of [0.5, 0.7, 3, 9]) h.observe({ target: 'a' }, v);
    h.observe({ target: 'b' }, 2);
    const [metric] = toOtlpMetrics(await registry.getMetricsAsJSON(), [0, 0], [0, 0]) as HistogramMetricData[];
    expect(metric?.descriptor.unit).toBe('s');
    const byTarget = Object.fromEntries(metric?.dataPoints.map((p) => [p.attributes.target, p.value]) ?? []);
    expect(byTarget.a).toEqual({ buckets: { boundaries: [1, 5], counts: [2, 1, 1] }, sum: 13.2, count: 4 });
    expect(byTarget.b).toEqual({ buckets: { boundaries: [1, 5], counts: [0, 1, 0] }, sum: 2, count: 1 });
  });

  it('reads the registry as it stands at each collection', async () => {
    const registry = new Registry();
    const c = new Counter({ name: 'x_total', help: 'x', registers: [registry] });
    const producer = new PromRegistryProducer(registry, 0);
    c.inc();
    const first = await producer.collect();
    c.inc(2);
    const second = await producer.collect();
    const value = (r: typeof first) => (r.resourceMetrics.scopeMetrics[0]?.metrics[0] as SumMetricData).dataPoints[0]?.value;
    expect([value(first), value(second)]).toEqual([1, 3]);
  });

  it('derives units from the name as Prometheus writes them', () => {
    expect([unitOf('a_seconds'), unitOf('a_seconds_total'), unitOf('a_bytes'), unitOf('a_total'), unitOf('a')]).toEqual([
      's',
      's',
      'By',
      '',
      '',
    ]);
  });
});
