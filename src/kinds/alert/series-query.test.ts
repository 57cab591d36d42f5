import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../core/wire.js';
import { splitSqlList } from '../../core/sql-list.js';
import { alertEvaluation, seriesRequests } from './series-query.js';

const SOURCE = '5eedc0de0000000000000004';
const alert = (more: JsonObject = {}): JsonObject => ({ interval: '5m', threshold: 500, thresholdType: 'above', ...more });
const line = (more: JsonObject = {}): JsonObject => ({
  displayType: 'line',
  sourceId: SOURCE,
  select: [
    { aggFn: 'count', where: '' },
    { aggFn: 'quantile', level: 0.99, valueExpression: 'Duration', where: 'SpanName:checkout', whereLanguage: 'lucene' },
  ],
  groupBy: 'ServiceName, toString(x, 1)',
  ...more,
});
const reason = (e: ReturnType<typeof alertEvaluation>) => (e.ok ? null : e.reason);

describe('the series a tile alert reads', () => {
  it('is the last select item, grouped as the tile is (the last series drives the alert)', () => {
    const e = alertEvaluation(alert({ numConsecutiveWindows: 2 }), { kind: 'tile', config: line() });
    expect(e).toEqual({
      ok: true,
      condition: { thresholdType: 'above', threshold: 500, thresholdMax: null, interval: '5m', numConsecutiveWindows: 2 },
      query: {
        ratio: false,
        groupBy: ['ServiceName', 'toString(x, 1)'],
        series: [
          {
            sourceId: SOURCE,
            aggFn: 'quantile',
            level: 0.99,
            field: 'Duration',
            where: 'SpanName:checkout',
            whereLanguage: 'lucene',
            groupBy: ['ServiceName', 'toString(x, 1)'],
          },
        ],
      },
    });
  });

  it('is both select items for a ratio tile', () => {
    const e = alertEvaluation(alert(), { kind: 'tile', config: line({ asRatio: true }) });
    expect(e.ok && e.query.ratio && e.query.series.length).toBe(2);
  });

  it('cannot be read for Raw SQL, formula, PromQL and non-alertable tiles, dotted fields, shifted schedules', () => {
    expect(reason(alertEvaluation(alert(), { kind: 'tile', config: { configType: 'sql', displayType: 'line' } }))).toMatch(/Raw SQL/);
    expect(reason(alertEvaluation(alert(), { kind: 'tile', config: line({ formulas: [{ expression: 'A / B' }] }) }))).toMatch(/formula/);
    expect(reason(alertEvaluation(alert(), { kind: 'tile', config: line({ displayType: 'table' }) }))).toMatch(
      /line, stacked_bar and number tiles only \(this tile is table\)/,
    );
    const dotted = line({ select: [{ aggFn: 'avg', valueExpression: 'Attributes.duration', where: '' }] });
    expect(reason(alertEvaluation(alert(), { kind: 'tile', config: dotted }))).toMatch(/contains a dot/);
    const promql = line({ select: [{ aggFn: 'avg', valueExpression: 'x', where: 'up', whereLanguage: 'promql' }] });
    expect(reason(alertEvaluation(alert(), { kind: 'tile', config: promql }))).toMatch(/PromQL/);
    expect(reason(alertEvaluation(alert({ scheduleOffsetMinutes: 2 }), { kind: 'tile', config: line() }))).toMatch(/scheduleOffsetMinutes/);
    expect(reason(alertEvaluation(alert({ interval: '2m' }), { kind: 'tile', config: line() }))).toMatch(/interval 2m/);
    expect(reason(alertEvaluation(alert({ thresholdType: 'between' }), { kind: 'tile', config: line() }))).toMatch(/INVALID_ALERT/);
  });
});

describe('the series an inline alert reads (its chart is a tile config with a chart-level where)', () => {
  const chart = (where: string, whereLanguage = 'lucene', itemWhere = 'SpanName:checkout'): JsonObject =>
    line({ select: [{ aggFn: 'count', where: itemWhere, whereLanguage: 'lucene' }], groupBy: '', where, whereLanguage });
  const series = (e: ReturnType<typeof alertEvaluation>) => (e.ok ? e.query.series.map((s) => [s.where, s.whereLanguage]) : e.reason);

  it('joins the chart where to the series where; either alone is the series where', () => {
    expect(series(alertEvaluation(alert(), { kind: 'tile', config: chart('ServiceName:cart') }))).toEqual([
      ['(ServiceName:cart) AND (SpanName:checkout)', 'lucene'],
    ]);
    expect(series(alertEvaluation(alert(), { kind: 'tile', config: chart('ServiceName = 1', 'sql', '') }))).toEqual([
      ['ServiceName = 1', 'sql'],
    ]);
    expect(series(alertEvaluation(alert(), { kind: 'tile', config: chart('') }))).toEqual([['SpanName:checkout', 'lucene']]);
  });

  it('cannot join a SQL chart where to a Lucene series where', () => {
    expect(reason(alertEvaluation(alert(), { kind: 'tile', config: chart('ServiceName = 1', 'sql') }))).toMatch(/differ in language/);
  });
});

describe('the series a saved-search alert reads', () => {
  it('counts the matching events, with its filters and the alert groupBy', () => {
    const e = alertEvaluation(alert({ groupBy: 'ServiceName' }), {
      kind: 'search',
      search: {
        sourceId: SOURCE,
        where: "level = 'error'",
        whereLanguage: 'sql',
        filters: [{ type: 'sql', condition: "ServiceName IN ('a')" }],
      },
    });
    expect(e.ok && e.query.series).toEqual([
      {
        sourceId: SOURCE,
        aggFn: 'count',
        where: "(level = 'error') AND (ServiceName IN ('a'))",
        whereLanguage: 'sql',
        groupBy: ['ServiceName'],
      },
    ]);
  });

  it('cannot mix a Lucene where with SQL filters in one series', () => {
    const e = alertEvaluation(alert(), {
      kind: 'search',
      search: { sourceId: SOURCE, where: 'level:error', filters: [{ type: 'sql_ast', operator: '=', left: 'a', right: "'b'" }] },
    });
    expect(reason(e)).toMatch(/mix lucene and sql/);
  });
});

describe('requests and groupBy', () => {
  it('split the windows into consecutive requests of at most N buckets', () => {
    const e = alertEvaluation(alert(), { kind: 'tile', config: line() });
    if (!e.ok) throw new Error(e.reason);
    const reqs = seriesRequests(e.query, '5m', { start: 0, count: 1201, stepMs: 300_000 }, 500);
    expect(reqs.map((r) => [r.startTime / 300_000, r.endTime / 300_000, r.granularity])).toEqual([
      [0, 500, '5m'],
      [500, 1000, '5m'],
      [1000, 1201, '5m'],
    ]);
  });

  it('splits groupBy on commas outside parentheses and quotes', () => {
    expect(splitSqlList(" a , concat(b, ','), 'x,y' ,")).toEqual(['a', "concat(b, ',')", "'x,y'"]);
  });
});
