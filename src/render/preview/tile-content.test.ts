import { describe, expect, it } from 'vitest';
import type { TileData } from '../../core/preview.js';
import type { JsonObject } from '../../core/wire.js';
import { tilesOf } from './model.js';
import { dashboardOption } from './option.js';
import { svgOf } from './svg.js';
import { aggregateCaption, groupValues, numberText, windowAggregateOf } from './tile-values.js';

const T = Date.UTC(2026, 0, 1);
const M5 = 300_000;
/** Three 5-minute buckets of three groups: api 1,2,3; web 4,5,null; db 0.5 once. */
const POINTS = [
  { bucket: T, group: 'api', value: 1 },
  { bucket: T + M5, group: 'api', value: 2 },
  { bucket: T + 2 * M5, group: 'api', value: 3 },
  { bucket: T, group: 'web', value: 4 },
  { bucket: T + M5, group: 'web', value: 5 },
  { bucket: T + 2 * M5, group: 'web', value: null },
  { bucket: T + M5, group: 'db', value: 0.5 },
];
const DATA: TileData = { points: POINTS };

function tile(name: string, displayType: string, x: number, y: number, extra: JsonObject = {}): JsonObject {
  return {
    id: name,
    name,
    x,
    y,
    w: 8,
    h: 5,
    config: { displayType, sourceId: 's', select: [{ aggFn: 'count' }], groupBy: 'svc', ...extra },
  };
}

function board(): JsonObject {
  return {
    name: 'all',
    tiles: [
      tile('n', 'number', 0, 0, { numberFormat: { output: 'number', thousandSeparated: true } }),
      tile('p', 'pie', 8, 0),
      tile('b', 'bar', 16, 0),
      tile('t', 'table', 0, 5),
      {
        id: 'm',
        name: 'm',
        x: 8,
        y: 5,
        w: 8,
        h: 5,
        config: { displayType: 'markdown', markdown: '# Runbook\n\nCall **ops**\nthen wait\nline 4\nline 5\nline 6' },
      },
      tile('s', 'search', 16, 5, { select: 'Body', where: 'level:error' }),
    ],
  };
}

describe('a tile drawn as its display type: the model', () => {
  it('makes one value per group over the window, exact for count, sum, max and min, the last bucket otherwise', () => {
    expect(groupValues(POINTS, 'total')).toEqual([
      { group: 'web', value: 9 },
      { group: 'api', value: 6 },
      { group: 'db', value: 0.5 },
    ]);
    expect(groupValues(POINTS, 'highest').map((g) => g.value)).toEqual([5, 3, 0.5]);
    expect(groupValues(POINTS, 'last')).toEqual([
      { group: 'web', value: 5 },
      { group: 'api', value: 3 },
      { group: 'db', value: 0.5 },
    ]);
    expect([windowAggregateOf('count', false), windowAggregateOf('max', false), windowAggregateOf('avg', false)]).toEqual([
      'total',
      'highest',
      'last',
    ]);
    expect(windowAggregateOf('sum', true)).toBe('last');
    expect([aggregateCaption('total'), aggregateCaption('last')]).toEqual(['total over 6 h', 'last 5 min']);
    expect(tilesOf(board()).map((t) => t.aggregate)).toEqual(['total', 'total', 'total', 'total', 'last', 'last']);
  });

  it('writes a number with its simple format: separators, digits, abbreviations, percent, currency, factor', () => {
    expect(numberText(1234567, { thousandSeparated: true })).toBe('1,234,567');
    expect(numberText(1234.5678, { mantissa: 2 })).toBe('1234.57');
    expect(numberText(1234567, { average: true, mantissa: 1 })).toBe('1.2m');
    expect(numberText(0.125, { output: 'percent', mantissa: 1 })).toBe('12.5%');
    expect(numberText(5, { output: 'currency', currencySymbol: '€', mantissa: 2 })).toBe('€5.00');
    expect(numberText(1500, { factor: 0.001 })).toBe('1.5');
    expect(numberText(2048, { output: 'byte' })).toBe('2048');
  });

  it('draws each display type: the number large, the pie with a sector per group, the bars, the table rows, the markdown lines', () => {
    const input = { address: 'Dashboard/all', name: 'all', after: board(), data: [DATA, DATA, DATA, DATA, undefined, undefined] };
    const picture = dashboardOption(input);
    const series = (picture.option.series ?? []) as { type: string; data: unknown[] }[];
    expect(series.map((s) => [s.type, s.data.length])).toEqual([
      ['pie', 3],
      ['bar', 3],
    ]);
    const svg = svgOf(picture);
    // The number tile: 9 + 6 + 0.5, large.
    expect(Number(svg.match(/font-size:(\d+)px[^>]*>15\.5</)?.[1])).toBeGreaterThanOrEqual(24);
    expect(svg).toContain('total over 6 h');
    expect(svg).toContain('web: 9'); // the pie's legend
    for (const text of ['>web<', '>api<', '>db<', '>Runbook<', '>Call **ops**<', '>where level:error<']) expect(svg).toContain(text);
    expect(svg).not.toContain('no data preview');
  });

  it('marks a number, table, pie or bar tile without data "no data preview: why" and shows its query', () => {
    const reason = { reason: 'hosted: no chart series API' };
    const svg = svgOf(dashboardOption({ address: 'Dashboard/all', name: 'all', after: board(), data: [reason, reason, reason, reason] }));
    expect(svg.match(/no data preview: hosted/g)).toHaveLength(4);
    expect(svg.match(/>count</g)?.length).toBeGreaterThanOrEqual(4);
  });
});
