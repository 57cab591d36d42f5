import { describe, expect, it } from 'vitest';
import type { ChartsPort } from '../core/ports.js';
import type { DashboardPreviewInput } from '../core/preview.js';
import { fillPreviewData } from './preview-data.js';

const tile = (display: string, sourceId: unknown = 'src1') => ({
  name: display,
  x: 0,
  y: 0,
  w: 6,
  h: 4,
  config: { displayType: display, sourceId, select: [{ aggFn: 'count', where: '' }] },
});

function input(...tiles: ReturnType<typeof tile>[]): DashboardPreviewInput {
  return { address: 'Dashboard/d', name: 'd', after: { name: 'd', tiles } } as unknown as DashboardPreviewInput;
}

describe('preview data', () => {
  it('asks one series per line or stacked-bar tile while the budget lasts, and says why a tile has none', async () => {
    const asked: unknown[] = [];
    const charts: ChartsPort = {
      series: async (q) => {
        asked.push(q);
        if (asked.length === 2) throw new Error('HTTP 500');
        return [{ ts_bucket: 0, 'series_0.data': 3 }];
      },
    };
    const d = input(tile('line'), tile('search'), tile('stacked_bar', 'src4'), tile('line', { $ref: 'Source/new' }), tile('line', 'src2'));
    await fillPreviewData([d], { charts, variant: 'self-hosted', budget: 2, now: new Date(Date.UTC(2026, 0, 1)) });
    expect(asked).toHaveLength(2);
    expect(d.data).toEqual([
      { points: [{ bucket: 0, group: '', value: 3 }] },
      undefined,
      { reason: 'its series request failed: HTTP 500' },
      { reason: 'its source is created by this plan' },
      { reason: "the plan's series request budget is spent" },
    ]);
  });

  it('fills the before side of an update too, after the after sides, asking a query both sides share once', async () => {
    const asked: unknown[] = [];
    const charts: ChartsPort = {
      series: async (q) => {
        asked.push(q);
        return [{ ts_bucket: 0, 'series_0.data': asked.length }];
      },
    };
    const d = { ...input(tile('line'), tile('line', 'src2')), before: { name: 'd', tiles: [tile('line'), tile('line', 'src3')] } };
    await fillPreviewData([d as DashboardPreviewInput], { charts, variant: 'self-hosted', budget: 3, now: new Date(Date.UTC(2026, 0, 1)) });
    expect(asked).toHaveLength(3);
    const value = (n: number) => ({ points: [{ bucket: 0, group: '', value: n }] });
    expect(d.data).toEqual([value(1), value(2)]);
    expect((d as DashboardPreviewInput).beforeData).toEqual([value(1), value(3)]);
    const spent = { ...input(tile('line')), before: { name: 'd', tiles: [tile('line', 'src3')] } } as DashboardPreviewInput;
    await fillPreviewData([spent], { charts, variant: 'self-hosted', budget: 1, now: new Date(Date.UTC(2026, 0, 1)) });
    expect(spent.beforeData).toEqual([{ reason: "the plan's series request budget is spent" }]);
  });

  it('asks the number, table, pie and bar tiles as a line tile of the same query; a formula number says why it has none', async () => {
    const asked: { series: unknown }[] = [];
    const charts: ChartsPort = {
      series: async (q) => {
        asked.push(q as { series: unknown });
        return [{ ts_bucket: 0, 'series_0.data': asked.length }];
      },
    };
    const formula = { ...tile('number'), config: { ...tile('number').config, formulas: [{ expression: 'A*2' }] } };
    const d = input(tile('number'), tile('table', 's2'), tile('pie', 's3'), tile('bar', 's4'), tile('markdown'), formula);
    await fillPreviewData([d], { charts, variant: 'self-hosted', budget: 10, now: new Date(Date.UTC(2026, 0, 1)) });
    expect(asked).toHaveLength(4);
    expect(d.data?.slice(0, 5).map((x) => x && 'points' in x && x.points[0]?.value)).toEqual([1, 2, 3, 4, undefined]);
    expect(d.data?.[5]).toEqual({ reason: expect.stringMatching(/^a formula tile/) });
  });

  it('asks nothing of a hosted target', async () => {
    const d = input(tile('line'));
    await fillPreviewData([d], { charts: undefined, variant: 'hosted', budget: 20, now: new Date() });
    expect(d.data).toEqual([{ reason: 'hosted: no chart series API' }]);
  });
});
