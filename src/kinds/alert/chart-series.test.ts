import { describe, expect, it } from 'vitest';
import { chartSeries, CHART_POINTS, thresholdLine } from './chart-series.js';

const STEP = 300_000;
const START = 1_767_225_600_000;
const windows = (count: number) => ({ start: START, count, stepMs: STEP });

describe('chartSeries', () => {
  it('keeps one point per window up to CHART_POINTS, the highest group, null where no row had a value', () => {
    const points = [
      { bucket: START, group: 'a', value: 3 },
      { bucket: START, group: 'b', value: 7 },
      { bucket: START + STEP, group: 'a', value: null },
      { bucket: START + 2 * STEP, group: 'a', value: Number.NaN },
      { bucket: START + 9 * STEP, group: 'a', value: 1 },
    ];
    expect(chartSeries({ thresholdType: 'above' }, windows(3), points)).toEqual({ start: START, stepMs: STEP, values: [7, null, null] });
    expect(chartSeries({ thresholdType: 'below' }, windows(1), points).values).toEqual([3]);
  });

  it('downsamples a long history to at most CHART_POINTS points, each the extreme of its windows (a peak is never averaged away)', () => {
    const points = Array.from({ length: 2016 }, (_, i) => ({ bucket: START + i * STEP, group: '', value: i === 1000 ? 99 : 1 }));
    const s = chartSeries({ thresholdType: 'above' }, windows(2016), points);
    expect(s.values.length).toBeLessThanOrEqual(CHART_POINTS);
    expect(s.stepMs).toBe(17 * STEP);
    expect(s.values.filter((v) => v === 99)).toHaveLength(1);
    expect(chartSeries({ thresholdType: 'below' }, windows(2016), points).values).not.toContain(99);
  });

  it('draws between and not_between with both bounds, others with one', () => {
    expect(thresholdLine({ thresholdType: 'between', threshold: 1, thresholdMax: 5 })).toEqual({ type: 'between', value: 1, max: 5 });
    expect(thresholdLine({ thresholdType: 'above', threshold: 1, thresholdMax: 5 })).toEqual({ type: 'above', value: 1 });
  });
});
