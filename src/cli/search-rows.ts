/**
 * What `obsync search` asks and how it shows the answer (pure): the page size and request budget
 * of a walk, the select with the timestamp first, and rows as table cells. Cells are plain text;
 * the table and the output pass make them inert (formatTable, safeOutput).
 */
import type { Json, JsonObject } from '../core/wire.js';
import { timeOf } from './commands/query.js';

export const LIMIT_DEFAULT = 100;
export const LIMIT_MAX = 10_000;
/** Rows a request asks for: the service takes up to 2,000 (v2/search.ts `maxResults`); smaller pages answer sooner. */
const PAGE_MAX = 1000;
/** A cell is cut here in the table (`--output json` has every value whole). */
export const CELL_MAX = 60;

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
/** The service's time windows from the range's leading end (hyperdx common-utils searchWindows.ts), then a day each. */
const WINDOWS_MS = [15 * MINUTE, 6 * HOUR, 6 * HOUR, 12 * HOUR];
const DAY = 24 * HOUR;

/** How many windows the service splits a range into (a walk reads at most one short page in each). */
export function windowCount(rangeMs: number): number {
  let covered = 0;
  let count = 0;
  for (const w of WINDOWS_MS) {
    if (covered >= rangeMs) return count;
    covered += w;
    count += 1;
  }
  return count + Math.max(0, Math.ceil((rangeMs - covered) / DAY));
}

/**
 * The page size and request budget of a walk for `limit` rows over `rangeMs`: the full pages the
 * rows fill, and one short page a window. A walk this budget ends before its service said "done"
 * and before it held `limit` rows met windows the service has and obsync does not know of.
 */
export function searchBudget(limit: number, rangeMs: number): { pageSize: number; maxRequests: number } {
  const pageSize = Math.min(limit, PAGE_MAX);
  return { pageSize, maxRequests: Math.ceil(limit / pageSize) + Math.max(1, windowCount(rangeMs)) };
}

/**
 * What stderr says when the walk's budget ended it before the service said "done" and before it
 * held `limit` rows (the rows printed are the first ones, only fewer); null otherwise.
 */
export function incompleteNote(walk: { complete: boolean; requests: number }, printed: number, limit: number): string | null {
  if (walk.complete || printed >= limit) return null;
  return (
    `obsync: the search stopped after ${walk.requests} requests with ${printed} of up to ${limit} rows: ` +
    'the service may hold more in this range; narrow it (--since, --from/--to) to read them'
  );
}

/** The select sent: the timestamp column first, then the asked columns (or the source's default ones) without it. */
export function selectWithTimestamp(timestamp: string, columns: readonly string[]): string {
  return [timestamp, ...columns.filter((c) => c !== timestamp)].join(', ');
}

/** The table's columns: the timestamp first, then every other key of the rows in the order they came. */
export function rowColumns(rows: readonly JsonObject[], timestamp: string): string[] {
  const seen = new Set<string>();
  for (const row of rows) for (const key of Object.keys(row)) seen.add(key);
  return seen.has(timestamp) ? [timestamp, ...[...seen].filter((k) => k !== timestamp)] : [...seen];
}

/** One row as table cells: the timestamp as ISO 8601 (UTC), other values as text, each cut to CELL_MAX characters. */
export function rowCells(row: JsonObject, columns: readonly string[], timestamp: string): string[] {
  return columns.map((col) => {
    const value = Object.hasOwn(row, col) ? (row[col] ?? null) : null;
    return cut(col === timestamp ? (timeOf(value) ?? '') : cellText(value));
  });
}

function cellText(value: Json): string {
  return typeof value === 'string' ? value : value === null ? '' : JSON.stringify(value);
}

/** At most CELL_MAX characters (code points: a cut never splits a surrogate pair), `…` where cut. */
function cut(text: string): string {
  const chars = Array.from(text);
  return chars.length <= CELL_MAX ? text : `${chars.slice(0, CELL_MAX - 1).join('')}…`;
}
