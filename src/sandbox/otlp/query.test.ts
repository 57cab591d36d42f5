import { describe, expect, it } from 'vitest';
import { columnValue, searchStored, whereFilter } from './query.js';

const rows = [
  {
    Timestamp: '2026-11-22 10:00:00.000000001',
    SpanName: 'obsync.run',
    StatusCode: 'Error',
    Duration: 5_000,
    SpanAttributes: { 'obsync.target': 'prod' },
  },
  {
    Timestamp: '2026-11-22 10:01:00.000000000',
    SpanName: 'obsync.plan',
    StatusCode: 'Unset',
    Duration: 900,
    SpanAttributes: { 'obsync.target': 'prod' },
  },
  { Timestamp: '2026-11-22 10:02:00.000000000', SpanName: 'GET /api/v2/dashboards', StatusCode: 'Ok', Duration: 20, SpanAttributes: {} },
];
const names = (where: string) => rows.filter(whereFilter(where)).map((r) => r.SpanName);

describe('the stored rows under a Lucene where', () => {
  it('evaluates exact terms, map keys, prefixes, ranges, bare words and boolean operators', () => {
    expect(names('')).toHaveLength(3);
    expect(names('SpanName:obsync.run')).toEqual(['obsync.run']);
    expect(names('SpanAttributes.obsync.target:prod AND NOT StatusCode:Error')).toEqual(['obsync.plan']);
    expect(names('SpanName:obsync.*')).toEqual(['obsync.run', 'obsync.plan']);
    expect(names('Duration:>=900')).toEqual(['obsync.run', 'obsync.plan']);
    expect(names('dashboards')).toEqual(['GET /api/v2/dashboards']);
    expect(names('StatusCode:Ok OR StatusCode:Error')).toEqual(['obsync.run', 'GET /api/v2/dashboards']);
    expect(names('SpanName:"obsync.*"')).toEqual([]);
  });

  it('reads map columns in both spellings, and selects newest first within the range', () => {
    expect(columnValue(rows[0] ?? {}, "SpanAttributes['obsync.target']")).toBe('prod');
    const found = searchStored(rows, {
      start: Date.parse('2026-11-22T10:00:00Z'),
      end: Date.parse('2026-11-22T10:02:00Z'),
      where: '',
      columns: ['SpanName', 'Missing'],
      maxResults: 10,
      offset: 0,
    });
    expect(found).toEqual([
      { SpanName: 'obsync.plan', Missing: null },
      { SpanName: 'obsync.run', Missing: null },
    ]);
  });
});
