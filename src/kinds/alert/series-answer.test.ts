/**
 * Issue 50, item 6: a series answer matching none of the asked series or buckets read as a
 * confident "0 of 2016 windows". An answer is taken only when some row is for an asked bucket
 * and carries every asked series; one with rows, none of which is, is unavailable.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { WireSeriesRow } from '../../core/wire.js';
import { INTERVAL_MS } from './checker.js';
import { unansweredRequest } from './series-answer.js';
import type { SeriesRequest, SeriesSpec } from './series-query.js';

const spec: SeriesSpec = { sourceId: 's', aggFn: 'count', where: '', whereLanguage: 'lucene', groupBy: [] };

const request = fc
  .record({
    granularity: fc.constantFrom(...Object.keys(INTERVAL_MS)),
    slot: fc.integer({ min: 20_000, max: 30_000 }),
    count: fc.integer({ min: 1, max: 500 }),
    series: fc.integer({ min: 1, max: 2 }),
  })
  .map(({ granularity, slot, count, series }): SeriesRequest => {
    const step = INTERVAL_MS[granularity] ?? 60_000;
    return { series: Array.from({ length: series }, () => spec), startTime: slot * step, endTime: (slot + count) * step, granularity };
  });

/** A row the request asked for: an asked bucket (as a number or an ISO string), every asked series. */
function askedRow(r: SeriesRequest, i: number, iso: boolean): WireSeriesRow {
  const step = INTERVAL_MS[r.granularity] ?? 60_000;
  const count = (r.endTime - r.startTime) / step;
  const bucket = r.startTime + (i % count) * step;
  const row: WireSeriesRow = { ts_bucket: iso ? new Date(bucket).toISOString() : bucket, group: [] };
  r.series.forEach((_, k) => {
    row[`series_${k}.data`] = '3';
  });
  return row;
}

/** Ways a hostile or confused server answers something else: each makes an asked row one that was not asked for. */
const ASIDE: readonly ((row: WireSeriesRow, r: SeriesRequest, n: number) => WireSeriesRow)[] = [
  (row, r, n) => ({ ...row, ts_bucket: r.startTime + (n % ((INTERVAL_MS[r.granularity] ?? 60_000) - 1)) + 1 }), // off the grid
  (row, r, n) => ({ ...row, ts_bucket: r.endTime + n * (INTERVAL_MS[r.granularity] ?? 60_000) }), // after the range
  (row, r, n) => ({ ...row, ts_bucket: r.startTime - (n + 1) * 86_400_000 * 365 }), // a year or more before
  (row) => ({ ...row, ts_bucket: 'yesterday' }),
  (row) => ({ ts_bucket: row.ts_bucket ?? 0, group: [], 'series_7.data': '3' }), // another series
];

describe('unansweredRequest', () => {
  it('takes an answer with at least one asked row, and calls one whose every row is aside unanswered', () => {
    fc.assert(
      fc.property(
        request,
        fc.array(fc.tuple(fc.nat(), fc.boolean(), fc.option(fc.integer({ min: 0, max: ASIDE.length - 1 }), { nil: undefined })), {
          maxLength: 30,
        }),
        (r, rows) => {
          const answer = rows.map(([n, iso, aside], i) => {
            const row = askedRow(r, n + i, iso);
            return aside === undefined ? row : (ASIDE[aside] as (typeof ASIDE)[number])(row, r, n);
          });
          const answered = rows.length === 0 || rows.some(([, , aside]) => aside === undefined);
          const why = unansweredRequest(r, answer);
          if (answered) expect(why).toBeNull();
          else
            expect(why).toMatch(
              new RegExp(
                /^the chart series answer does not answer the request: /.source +
                  /none of its \d+ row\(s\) (is for a bucket|carries the series) asked for/.source,
              ),
            );
        },
      ),
      { numRuns: 300 },
    );
  });

  it('says which part missed: the buckets, or the series', () => {
    const r: SeriesRequest = { series: [spec], startTime: 0, endTime: 600_000, granularity: '5m' };
    expect(unansweredRequest(r, [{ ts_bucket: 150_000, 'series_0.data': '1' }])).toBe(
      'the chart series answer does not answer the request: none of its 1 row(s) is for a bucket asked for ' +
        '(1970-01-01T00:00:00.000Z to 1970-01-01T00:10:00.000Z, every 5m); not evaluated',
    );
    expect(unansweredRequest(r, [{ ts_bucket: 300_000, 'series_1.data': '1' }])).toBe(
      'the chart series answer does not answer the request: none of its 1 row(s) carries the series asked for (series_0.data); not ' +
        'evaluated',
    );
  });
});
