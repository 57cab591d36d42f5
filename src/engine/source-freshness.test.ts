import { describe, expect, it } from 'vitest';
import type { WireSeriesRow } from '../core/wire.js';
import { sourceRequest, staleSince } from './source-freshness.js';

const HOUR = 3_600_000;
const END = Date.UTC(2026, 10, 27, 12, 0);
const request = sourceRequest('s1', END - 7 * 24 * HOUR + 5 * 60_000, END - 60_000);
const rows = (...hoursBeforeEnd: number[]): WireSeriesRow[] =>
  hoursBeforeEnd.map((h) => ({ ts_bucket: END - h * HOUR, group: [], 'series_0.data': '12' }));

describe('source freshness', () => {
  it('asks one count of the whole source by the hour over whole hours', () => {
    expect(request).toMatchObject({ startTime: END - 7 * 24 * HOUR, endTime: END, granularity: '1h' });
    expect(request.series).toEqual([{ sourceId: 's1', aggFn: 'count', where: '', whereLanguage: 'lucene', groupBy: [] }]);
  });

  it('is fresh with a row in the last two hours, stale since the end of its last hour with rows, null without any', () => {
    expect(staleSince(request, rows(48, 2))).toBeUndefined();
    expect(staleSince(request, rows(48, 1))).toBeUndefined();
    expect(staleSince(request, rows(70, 46))).toBe(new Date(END - 45 * HOUR).toISOString());
    // A count of 0 is no data.
    expect(staleSince(request, [...rows(70), { ts_bucket: END - HOUR, group: [], 'series_0.data': '0' }])).toBe(
      new Date(END - 69 * HOUR).toISOString(),
    );
    expect(staleSince(request, [])).toBeNull();
  });
});
