import fc from 'fast-check';
import { splitSqlList } from '../core/sql-list.js';
import { describe, expect, it } from 'vitest';
import { hostileText, RAW_UNSAFE, RUNNER_COMMAND } from '../../test/support/hostile-text.js';
import { safeOutput } from '../core/printable.js';
import { CELL_MAX, incompleteNote, rowCells, rowColumns, searchBudget, selectWithTimestamp, windowCount } from './search-rows.js';
import { formatTable } from './table.js';

const MIN = 60_000;
const HOUR = 60 * MIN;

describe('search budgets', () => {
  it("counts the service's windows: 15 m, 6 h, 6 h, 12 h, then a day each", () => {
    expect([1, 15 * MIN, 15 * MIN + 1, 3 * HOUR, 24 * HOUR + 15 * MIN, 24 * HOUR + 16 * MIN, 7 * 24 * HOUR].map(windowCount)).toEqual([
      1, 1, 2, 2, 4, 5, 10,
    ]);
  });

  it('asks pages of at most 1000 rows and budgets the full pages --limit fills plus one short page a window', () => {
    expect(searchBudget(100, HOUR)).toEqual({ pageSize: 100, maxRequests: 1 + 2 });
    expect(searchBudget(10_000, 3 * HOUR)).toEqual({ pageSize: 1000, maxRequests: 10 + 2 });
  });
});

describe('an incomplete walk', () => {
  it('is told on stderr only when the budget ended it short of --limit rows', () => {
    expect(incompleteNote({ complete: false, requests: 3 }, 40, 100)).toBe(
      'obsync: the search stopped after 3 requests with 40 of up to 100 rows: the service may hold more in this range; ' +
        'narrow it (--since, --from/--to) to read them',
    );
    expect(incompleteNote({ complete: false, requests: 3 }, 100, 100)).toBeNull();
    expect(incompleteNote({ complete: true, requests: 3 }, 40, 100)).toBeNull();
  });
});

describe('select lists', () => {
  it('splits at top-level commas only and puts the timestamp first, once', () => {
    expect(splitSqlList("Timestamp, toString(a, 'x,y'), m['k,1'] , Body")).toEqual(['Timestamp', "toString(a, 'x,y')", "m['k,1']", 'Body']);
    expect(splitSqlList('')).toEqual([]);
    expect(selectWithTimestamp('TimestampTime', ['Body', 'TimestampTime', 'ServiceName'])).toBe('TimestampTime, Body, ServiceName');
  });
});

describe('rows as table cells', () => {
  it('shows the timestamp first as ISO 8601, other values as text, and cuts long cells without splitting a character', () => {
    const rows = [{ Body: 'b', TimestampTime: '2026-11-29 12:03:00.250000000', n: 3, m: { k: 'v' } }];
    const columns = rowColumns(rows, 'TimestampTime');
    expect(columns).toEqual(['TimestampTime', 'Body', 'n', 'm']);
    expect(rowCells(rows[0] ?? {}, columns, 'TimestampTime')).toEqual(['2026-11-29T12:03:00.250Z', 'b', '3', '{"k":"v"}']);
    const long = rowCells({ Body: '😀'.repeat(100) }, ['Body'], 'T')[0] ?? '';
    expect(Array.from(long)).toHaveLength(CELL_MAX);
    expect(long.endsWith('😀…')).toBe(true);
  });

  it('prints any service text inert in the table (controls, bidi, line breaks, workflow commands)', () => {
    fc.assert(
      fc.property(fc.array(fc.record({ Body: hostileText, Timestamp: hostileText }), { minLength: 1, maxLength: 3 }), (rows) => {
        const columns = rowColumns(rows, 'Timestamp');
        const out = safeOutput(
          formatTable(
            columns,
            rows.map((r) => rowCells(r, columns, 'Timestamp')),
          ),
        );
        expect(out).not.toMatch(RAW_UNSAFE);
        expect(out).not.toMatch(RUNNER_COMMAND);
        // One line a row: a line break in a value never starts a line of its own.
        expect(out.split('\n')).toHaveLength(rows.length + 2);
      }),
    );
  });
});
