/**
 * The rows the OTLP receiver stored, read by the sandbox's search (`POST /api/v2/search`) for a
 * source whose table is otel_traces or otel_logs (otel_metrics for a metric source): time range,
 * a Lucene `where` evaluated as HyperDX's SQL translation does for the common forms, the selected
 * columns, newest first. Lucene: `Column:value` (exact), `Map.key:value` (a map column's key),
 * `value*` (prefix, `*` anywhere), `Column:>n` / `<n` / `>=n` / `<=n`, a bare word (any column
 * contains it, case-insensitive), AND / OR / NOT, parentheses.
 */
import { parse } from '@hyperdx/lucene';
import type { Row } from './rows.js';

interface Term {
  field: string;
  term: string;
  quoted?: boolean;
}
interface Node {
  left?: Node | Term;
  right?: Node | Term;
  operator?: string;
  start?: string;
}

const isTerm = (n: Node | Term): n is Term => 'term' in n && 'field' in n;

/** A column, or a map column's key (`SpanAttributes.obsync.target`, `SpanAttributes['obsync.target']`). */
export function columnValue(row: Row, column: string): unknown {
  const bracket = /^(\w+)\[\s*'([^']*)'\s*\]$/.exec(column.trim());
  if (bracket) return mapLookup(row[bracket[1] ?? ''], bracket[2] ?? '');
  if (Object.hasOwn(row, column)) return row[column];
  const dot = column.indexOf('.');
  if (dot > 0) return mapLookup(row[column.slice(0, dot)], column.slice(dot + 1));
  return undefined;
}

function mapLookup(map: unknown, key: string): unknown {
  if (typeof map !== 'object' || map === null || Array.isArray(map)) return undefined;
  return Object.hasOwn(map, key) ? (map as Record<string, unknown>)[key] : undefined;
}

const text = (v: unknown): string => (typeof v === 'string' ? v : (JSON.stringify(v) ?? ''));

function glob(pattern: string): RegExp {
  const body = pattern
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${body}$`, 's');
}

function termMatches(row: Row, t: Term): boolean {
  if (t.field === '<implicit>') {
    const needle = t.term.toLowerCase();
    return Object.values(row).some((v) => text(v).toLowerCase().includes(needle));
  }
  const value = columnValue(row, t.field);
  if (value === undefined) return false;
  const range = /^(>=|<=|>|<)(-?\d+(?:\.\d+)?)$/.exec(t.quoted ? '' : t.term);
  if (range) {
    const [n, bound] = [Number(value), Number(range[2])];
    return range[1] === '>' ? n > bound : range[1] === '<' ? n < bound : range[1] === '>=' ? n >= bound : n <= bound;
  }
  if (!t.quoted && /[*?]/.test(t.term)) return glob(t.term).test(text(value));
  return text(value) === t.term;
}

function matches(row: Row, node: Node | Term | undefined): boolean {
  if (node === undefined) return true;
  if (isTerm(node)) return termMatches(row, node);
  const left = node.start === 'NOT' ? !matches(row, node.left) : matches(row, node.left);
  if (node.right === undefined) return left;
  const op = node.operator ?? '<implicit>';
  if (op === 'OR') return left || matches(row, node.right);
  if (op === 'OR NOT') return left || !matches(row, node.right);
  if (op === 'AND NOT') return left && !matches(row, node.right);
  return left && matches(row, node.right);
}

/** Whether the row matches the Lucene `where` ('' matches all); throws the parser's error for one that does not parse. */
export function whereFilter(where: string): (row: Row) => boolean {
  if (where.trim() === '') return () => true;
  const ast = parse(where.trim()) as Node;
  return (row) => matches(row, ast);
}

/** `2026-11-22 10:00:00.123456789` (DateTime64(9) as stored) in epoch milliseconds. */
export const rowTime = (row: Row, column = 'Timestamp'): number =>
  Date.parse(
    `${text(row[column] ?? row.TimeUnix)
      .slice(0, 23)
      .replace(' ', 'T')}Z`,
  );

export interface StoredSearch {
  start: number;
  end: number;
  where: string;
  columns: readonly string[];
  maxResults: number;
  offset: number;
  /** A cursor walk's window bounds (search-cursor.ts); by default the range is [start, end). */
  startInclusive?: boolean;
  endInclusive?: boolean;
  /** Oldest first (an ascending timestamp order); by default newest first. */
  ascending?: boolean;
}

/** The search's rows: in the range, matching, newest first, each with the selected columns (null where a row has none). */
export function searchStored(rows: readonly Row[], q: StoredSearch): Record<string, unknown>[] {
  const keep = whereFilter(q.where);
  const [fromStart, toEnd] = [q.startInclusive ?? true, q.endInclusive ?? false];
  const order = q.ascending ? 1 : -1;
  return rows
    .filter((r) => {
      const t = rowTime(r);
      return (fromStart ? t >= q.start : t > q.start) && (toEnd ? t <= q.end : t < q.end) && keep(r);
    })
    .sort((a, b) => order * text(a.Timestamp ?? a.TimeUnix).localeCompare(text(b.Timestamp ?? b.TimeUnix)))
    .slice(q.offset, q.offset + q.maxResults)
    .map((r) => Object.fromEntries(q.columns.map((c) => [c, columnValue(r, c) ?? null])));
}

/** One series of a chart request, as the sandbox's series route parsed it. */
export interface StoredSeries {
  aggFn: string;
  where: string;
  whereLanguage?: string | undefined;
  field?: string | undefined;
  level?: number | undefined;
}

/** Rows of one series: those its `where` keeps (a SQL `where` is not evaluated here: every row). */
export function seriesRows(rows: readonly Row[], s: StoredSeries): Row[] {
  const keep = (s.whereLanguage ?? 'lucene') === 'lucene' ? whereFilter(s.where) : () => true;
  return rows.filter(keep);
}

/** The distinct values of the groupBy columns among the rows, in first-seen order. */
export function storedGroups(rows: readonly Row[], groupBy: readonly string[]): string[][] {
  if (groupBy.length === 0) return [[]];
  const seen = new Map<string, string[]>();
  for (const r of rows) {
    const group = groupBy.map((c) => text(columnValue(r, c) ?? ''));
    seen.set(JSON.stringify(group), group);
  }
  return [...seen.values()];
}

/** A bucket's value as ClickHouse answers it (counts as strings); null when no row falls in the bucket and group. */
export function storedBucketValue(
  rows: readonly Row[],
  s: StoredSeries,
  groupBy: readonly string[],
  group: readonly string[],
  from: number,
  stepMs: number,
): string | number | null {
  const inBucket = rows.filter((r) => {
    const t = rowTime(r);
    return t >= from && t < from + stepMs && groupBy.every((c, i) => text(columnValue(r, c) ?? '') === group[i]);
  });
  if (inBucket.length === 0) return null;
  if (s.aggFn === 'count') return String(inBucket.length);
  const values = inBucket.map((r) => columnValue(r, s.field ?? ''));
  if (s.aggFn === 'count_distinct') return String(new Set(values.map(text)).size);
  const numbers = values
    .map(Number)
    .filter(Number.isFinite)
    .sort((a, b) => a - b);
  if (numbers.length === 0) return null;
  const sum = numbers.reduce((a, b) => a + b, 0);
  switch (s.aggFn) {
    case 'sum':
      return sum;
    case 'min':
      return numbers[0] ?? null;
    case 'max':
      return numbers[numbers.length - 1] ?? null;
    case 'quantile':
      return numbers[Math.min(numbers.length - 1, Math.floor((s.level ?? 0.5) * numbers.length))] ?? null;
    default:
      return sum / numbers.length;
  }
}
