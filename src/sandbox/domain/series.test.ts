import { describe, expect, it } from 'vitest';
import { DEMO_IDS } from './seed.js';
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
    expect(value(demoDomain().chartSeries({ ...request, endTime: request.endTime + 300000 }))).not.toEqual(rows);
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
  });
});
