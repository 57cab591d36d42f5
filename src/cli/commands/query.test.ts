import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { seriesPoint } from './query.js';

describe('seriesPoint', () => {
  it('reads the row form: epoch milliseconds (or seconds) as ISO time, the group array by --group-by, the value as a number', () => {
    expect(seriesPoint({ ts_bucket: 1795694580000, group: ['checkout', 'eu'], 'series_0.data': '652' }, ['service', 'region'])).toEqual({
      time: '2026-11-26T12:03:00Z',
      group: { service: 'checkout', region: 'eu' },
      value: 652,
    });
    expect(seriesPoint({ ts_bucket: 1795694580, group: [], 'series_0.data': 698.87 }, []).time).toBe('2026-11-26T12:03:00Z');
  });

  it('reads the column form: a ClickHouse UTC time string and group columns', () => {
    expect(seriesPoint({ __hdx_time_bucket: '2026-11-26 12:03:00', series_0: 3, service: 'checkout' }, ['service'])).toEqual({
      time: '2026-11-26T12:03:00Z',
      group: { service: 'checkout' },
      value: 3,
    });
  });

  it('keeps a 64-bit count that a number cannot hold exactly as its digits, every other numeric string as a number', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 64n }), (n) => {
        const digits = n.toString();
        const value = seriesPoint({ ts_bucket: 0, group: [], 'series_0.data': digits }, []).value;
        if (Number.isSafeInteger(Number(n))) expect(value).toBe(Number(n));
        else expect(value).toBe(digits);
      }),
    );
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (x) => {
        const text = String(x);
        fc.pre(!/^-?\d+$/.test(text));
        expect(seriesPoint({ ts_bucket: 0, group: [], 'series_0.data': text }, []).value).toBe(Number(text));
      }),
    );
    expect(seriesPoint({ ts_bucket: 0, group: [], 'series_0.data': null }, []).value).toBeNull();
  });
});
