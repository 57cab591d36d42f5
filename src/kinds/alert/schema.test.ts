import { describe, expect, it } from 'vitest';
import { alertSpecSchema } from './schema.js';

const base = {
  dashboard: 'checkout',
  tile: 'p99',
  interval: '5m',
  threshold: 500,
  thresholdType: 'above',
  channel: { type: 'webhook', webhook: 'ops-slack' },
};
const messages = (input: unknown) => {
  const r = alertSpecSchema.safeParse(input);
  return r.success ? [] : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
};

describe('alert spec schema', () => {
  it('accepts tile and saved-search alerts', () => {
    expect(messages(base)).toEqual([]);
    const { dashboard: _d, tile: _t, ...rest } = base;
    expect(
      messages({
        ...rest,
        savedSearch: 'Errors',
        groupBy: 'ServiceName',
        channels: [{ type: 'webhook', webhook: { id: 'w1' } }],
        channel: undefined,
      }),
    ).toEqual([]);
  });

  it('leaves interval 30s to the service (hosted, behind a feature flag), with whole-minute offsets below it: none but 0', () => {
    expect(messages({ ...base, interval: '30s' })).toEqual([]);
    expect(messages({ ...base, interval: '30s', scheduleOffsetMinutes: 0 })).toEqual([]);
    expect(messages({ ...base, interval: '30s', scheduleOffsetMinutes: 1 })).toEqual([
      'scheduleOffsetMinutes: scheduleOffsetMinutes must be less than the interval (0.5 minutes for 30s)',
    ]);
    expect(messages({ ...base, interval: '2m' })[0]).toMatch(/^interval: /);
  });

  it('needs exactly one target form and one channel form', () => {
    expect(messages({ ...base, savedSearch: 'Errors' })[0]).toContain('not both');
    expect(messages({ ...base, tile: undefined })[0]).toContain('a tile alert needs tile');
    expect(messages({ ...base, dashboard: { id: 'd1' } })).toEqual([
      'tile: a dashboard given by {id} is not managed here, so it has no tile keys: give the tile as {id: ...} too',
    ]);
    expect(messages({ ...base, dashboard: { id: 'd1' }, tile: { id: 't1' } })).toEqual([]);
    expect(messages({ ...base, channels: [base.channel] })[0]).toContain('Provide either "channel" or "channels"');
    expect(messages({ ...base, channel: undefined, channels: [base.channel, base.channel] })[0]).toBe(
      'channels.1: Duplicate notification channels are not allowed',
    );
  });

  it('applies the threshold and schedule rules', () => {
    expect(messages({ ...base, thresholdType: 'between' })).toEqual([
      'thresholdMax: thresholdMax is required for between/not_between threshold types',
    ]);
    expect(messages({ ...base, thresholdType: 'between', thresholdMax: 100 })[0]).toContain('greater than or equal');
    expect(messages({ ...base, thresholdMax: 900 })[0]).toContain('only used with between/not_between');
    expect(messages({ ...base, scheduleOffsetMinutes: 5 })[0]).toContain('less than the interval');
    expect(messages({ ...base, scheduleStartAt: '2026-01-01T00:00:00+02:00' })[0]).toContain('ending in Z');
    expect(messages({ ...base, interval: '2m' })[0]).toContain('interval: Invalid option');
  });
});

describe('inline alerts (source: inline, chart in tile terms)', () => {
  const { dashboard: _d, tile: _t, ...common } = base;
  const chart = { source: 'Logs', displayType: 'line', select: [{ aggFn: 'count' }] };

  it('accepts a builder chart with a chart-level where, and a Raw SQL chart', () => {
    expect(messages({ ...common, source: 'inline', chart, where: 'ServiceName:api' })).toEqual([]);
    const sql = { configType: 'sql', connection: 'Default', displayType: 'number', sqlTemplate: 'SELECT 1' };
    expect(messages({ ...common, source: 'inline', chart: sql })).toEqual([]);
  });

  it("refuses what the server refuses, and a chart without source: inline, at the field's path", () => {
    expect(messages({ ...common, source: 'inline' })).toEqual([
      'chart: Chart config is required: an inline alert needs chart (a line, stacked_bar or number tile config)',
    ]);
    expect(messages({ ...common, source: 'inline', chart: { ...chart, displayType: 'table' } })).toEqual([
      'chart.displayType: Inline chart alerts are only supported for Line, Stacked Bar, or Number display types',
    ]);
    expect(messages({ ...common, chart })).toEqual(['chart: chart is the chart of an inline alert: add source: inline']);
    expect(messages({ ...base, source: 'inline', chart })).toEqual([
      'source: an inline alert watches its own chart: no dashboard, tile or savedSearch',
    ]);
    const sql = { configType: 'sql', connection: 'Default', displayType: 'line', sqlTemplate: 'SELECT 1' };
    expect(messages({ ...common, source: 'inline', chart: sql, where: 'x' })).toEqual([
      'where: a Raw SQL chart has no chart-level where: filter in its SQL',
    ]);
  });
});
