import { describe, expect, it } from 'vitest';
import { createObservabilityDomain } from '../domain/index.js';
import { DEMO_IDS } from '../domain/seed.js';
import { value } from '../domain/test-helpers.js';
import { bucketedStreams, metricPoints } from './metric-series.js';
import { clickhouseTime, type Row } from './rows.js';

const T0 = Date.parse('2026-11-22T10:00:00Z');
const MIN = 60_000;
const STEP = 15 * MIN;

/** A point of obsync_drift_total (a cumulative monotonic sum, as obsync's Prometheus counters arrive). */
const drift = (minute: number, v: number, kind = 'Dashboard', extra: Row = {}): Row => ({
  TimeUnix: clickhouseTime(BigInt(T0 + minute * MIN) * 1_000_000n),
  MetricName: 'obsync_drift_total',
  Type: 'Sum',
  ServiceName: 'obsync',
  ResourceAttributes: { 'service.name': 'obsync' },
  Attributes: { target: 'prod', kind },
  Value: v,
  IsMonotonic: true,
  AggregationTemporality: 2,
  ...extra,
});

/** Each bucket's value per stream, as `minute: value` (the bucket's start in minutes after T0). */
function perBucket(points: Row[], type = 'sum', grid = { startTime: T0, endTime: T0 + 4 * STEP, stepMs: STEP }): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const r of bucketedStreams(points, type, grid)) {
    const key = `${(Date.parse(`${String(r.TimeUnix).slice(0, 23).replace(' ', 'T')}Z`) - T0) / MIN} ${JSON.stringify(r.Attributes)}`;
    out[key] = r.Value ?? null;
  }
  return out;
}
const dash = JSON.stringify({ target: 'prod', kind: 'Dashboard' });

describe("a sum metric's buckets, as HyperDX computes them over otel_metrics_sum", () => {
  it("counts a cumulative counter's increase within each bucket, not its value; the first point has no previous one", () => {
    const points = [drift(1, 3), drift(5, 3), drift(16, 4), drift(20, 6), drift(31, 6)];
    expect(perBucket(points)).toEqual({ [`0 ${dash}`]: 0, [`15 ${dash}`]: 3, [`30 ${dash}`]: 0 });
    // The stream's first point alone in its bucket: no previous value, no value (ClickHouse's NULL).
    expect(perBucket([drift(1, 3), drift(16, 4)])).toEqual({ [`0 ${dash}`]: null, [`15 ${dash}`]: 1 });
  });

  it('counts a counter reset mid-window as 0 (greatest(delta, 0)), then the increase from the new start', () => {
    // 5 → 7 (+2), reset to 1 (a restarted daemon: +0, not +1), 1 → 3 (+2).
    const points = [drift(1, 5), drift(16, 7), drift(20, 1), drift(25, 3)];
    expect(perBucket(points)).toEqual({ [`0 ${dash}`]: null, [`15 ${dash}`]: 4 });
  });

  it('keeps the streams apart (attributes, resource) and takes a delta sum as it is', () => {
    const alert = JSON.stringify({ target: 'prod', kind: 'Alert' });
    const points = [drift(1, 1), drift(2, 1, 'Alert'), drift(16, 2), drift(17, 5, 'Alert')];
    expect(perBucket(points)).toEqual({ [`0 ${dash}`]: null, [`15 ${dash}`]: 1, [`0 ${alert}`]: null, [`15 ${alert}`]: 4 });
    const delta = [drift(1, 2, 'Dashboard', { AggregationTemporality: 1 }), drift(16, 3, 'Dashboard', { AggregationTemporality: 1 })];
    expect(perBucket(delta)).toEqual({ [`0 ${dash}`]: 2, [`15 ${dash}`]: 3 });
  });

  it('reads one bucket before the range (the first bucket has its previous point) and no further', () => {
    const grid = { startTime: T0 + 2 * STEP, endTime: T0 + 3 * STEP, stepMs: STEP };
    expect(perBucket([drift(1, 1), drift(20, 2), drift(40, 5)], 'sum', grid)).toEqual({ [`15 ${dash}`]: null, [`30 ${dash}`]: 3 });
  });

  it("takes a gauge's last value in each bucket", () => {
    const gauge = (minute: number, v: number) => ({ ...drift(minute, v), MetricName: 'obsync_resources', Type: 'Gauge' });
    expect(perBucket([gauge(1, 9), gauge(14, 2), gauge(16, 4)], 'gauge')).toEqual({ [`0 ${dash}`]: 2, [`15 ${dash}`]: 4 });
    expect(metricPoints([gauge(1, 9), drift(1, 1)], { metricName: 'obsync_resources', metricDataType: 'gauge' })).toHaveLength(1);
  });
});

describe('the chart series API on a metric source', () => {
  const series = (metricName: string, metricDataType = 'sum') => ({
    series: [
      { sourceId: DEMO_IDS.metrics, aggFn: 'sum', metricName, metricDataType, field: 'Value', where: '', groupBy: ["Attributes['kind']"] },
    ],
    startTime: T0,
    endTime: T0 + 2 * STEP,
    granularity: '15m',
  });
  const points = [
    drift(1, 1),
    drift(2, 1, 'Alert'),
    drift(16, 3),
    drift(17, 2, 'Alert'),
    drift(18, 1, 'Alert', { Attributes: { target: 'dev', kind: 'Alert' } }),
  ];
  const domain = createObservabilityDomain({ telemetry: { rows: (table) => (table === 'otel_metrics' ? points : []) } });

  it("sums the streams' increases per group from the points received", () => {
    expect(value(domain.chartSeries(series('obsync_drift_total')))).toEqual([
      { ts_bucket: T0 + STEP, group: ['Dashboard'], 'series_0.data': 2 },
      { ts_bucket: T0 + STEP, group: ['Alert'], 'series_0.data': 1 },
    ]);
  });

  it('keeps the synthetic series for a metric without received points, and for a histogram', () => {
    const synthetic = createObservabilityDomain().chartSeries(series('obsync_other_total'));
    expect(value(domain.chartSeries(series('obsync_other_total')))).toEqual(value(synthetic));
    const histogram = series('obsync_drift_total', 'histogram');
    expect(value(domain.chartSeries(histogram))).toEqual(value(createObservabilityDomain().chartSeries(histogram)));
  });
});
