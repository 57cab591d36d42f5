import { describe, expect, it } from 'vitest';
import type { JsonRecord } from './contract.js';
import { DEMO_IDS } from './seed.js';
import { bucketValue } from './telemetry.js';
import { demoDomain, failure, value } from './test-helpers.js';

const request = {
  series: [
    { sourceId: DEMO_IDS.logs, aggFn: 'count', where: '', groupBy: [] },
    { sourceId: DEMO_IDS.logs, aggFn: 'avg', field: 'Duration', where: '', groupBy: [] },
  ],
  startTime: 1767225600000,
  endTime: 1767229200000,
  granularity: '5m',
};

describe('chart series', () => {
  it('is deterministic, bucketed by granularity, with counts as strings', () => {
    const rows = value(demoDomain().chartSeries(request));
    expect(value(demoDomain().chartSeries(request))).toEqual(rows);
    expect(rows).toHaveLength(12);
    expect(rows[0]?.ts_bucket).toBe(1767225600000);
    expect(typeof rows[0]?.['series_0.data']).toBe('string');
    expect(typeof rows[0]?.['series_1.data']).toBe('number');
  });

  it('answers a bucket the same in every query that covers it: overlapping windows and other series agree', () => {
    const byBucket = (rows: JsonRecord[], key: string) => new Map(rows.map((r) => [r.ts_bucket, r[key]]));
    const first = value(demoDomain().chartSeries(request));
    const shifted = value(
      demoDomain().chartSeries({
        ...request,
        series: [request.series[1], request.series[0]],
        startTime: request.startTime + 1_800_000,
        endTime: request.endTime + 5_400_000,
      }),
    );
    const a = byBucket(first, 'series_0.data');
    const b = byBucket(shifted, 'series_1.data');
    const shared = [...a.keys()].filter((t) => b.has(t));
    expect(shared).toHaveLength(6);
    for (const t of shared) expect(b.get(t)).toEqual(a.get(t));
  });

  it('has a daily cycle, incidents and gaps: a week of errors is far from flat', () => {
    const step = 300_000;
    const start = 1_767_225_600_000;
    const series = { sourceId: DEMO_IDS.logs, aggFn: 'count', where: 'SeverityText:error' };
    const counts: (number | null)[] = [];
    for (let t = start; t < start + 7 * 86_400_000; t += step) {
      const v = bucketValue(series, [], 0, 1, t, step);
      counts.push(v === null ? null : Number(v));
    }
    const present = counts.filter((c): c is number => c !== null).sort((x, y) => x - y);
    const median = present[Math.floor(present.length / 2)] ?? 0;
    expect(median).toBeGreaterThan(2);
    // Incidents: the worst buckets are many times the typical one.
    expect(present.at(-1) ?? 0).toBeGreaterThan(4 * median);
    // The daily cycle: 14:00 UTC is busier than 02:00 over the week.
    const traffic = { ...series, where: '' };
    const at = (hour: number) =>
      Array.from({ length: 7 }, (_, d) => Number(bucketValue(traffic, [], 0, 1, start + d * 86_400_000 + hour * 3_600_000, 3_600_000)));
    expect(at(14).reduce((x, y) => x + y)).toBeGreaterThan(1.5 * at(2).reduce((x, y) => x + y));
    // Gaps: somewhere in two months a bucket of this source has no data at all.
    const gap = Array.from({ length: 60 * 288 }, (_, i) => start + i * step).some((t) => bucketValue(traffic, [], 0, 1, t, step) === null);
    expect(gap).toBe(true);
  });

  it('validates series count, groupBy agreement, granularity and millisecond timestamps', () => {
    const d = demoDomain();
    const one = request.series[0];
    expect(failure(d.chartSeries({ ...request, series: Array(6).fill(one) })).message).toMatch(/^Body validation failed: series: /);
    expect(failure(d.chartSeries({ ...request, series: [] })).status).toBe(400);
    expect(failure(d.chartSeries({ ...request, series: [one, { ...one, groupBy: ['a'] }] })).message).toContain(
      'All series must have the same groupBy fields',
    );
    expect(failure(d.chartSeries({ ...request, granularity: '3m' })).message).toContain('granularity');
    expect(failure(d.chartSeries({ ...request, startTime: 1767225600 })).message).toContain('Timestamp must be in milliseconds');
    const notFound = d.chartSeries({ ...request, series: [{ ...one, sourceId: 'abcabcabcabcabcabcabcabc' }] });
    expect(!notFound.ok && notFound.error).toMatchObject({
      status: 404,
      selfHostedBody: { type: 'json', body: { error: 'Source not found for series 0' } },
    });
  });

  it('returns groups and the column form', () => {
    const rows = value(
      demoDomain().chartSeries({ ...request, series: [{ ...request.series[0], groupBy: ['ServiceName'] }], seriesReturnType: 'column' }),
    );
    expect(rows[0]).toMatchObject({ __hdx_time_bucket: '2026-01-01 00:00:00', ServiceName: 'ServiceName-1' });
    expect(typeof rows[0]?.series_0).toBe('string');
    expect(new Set(rows.map((r) => r.ServiceName))).toEqual(new Set(['ServiceName-1', 'ServiceName-2', 'ServiceName-3']));
  });
});
