/**
 * Cursor paging of `POST /search`, as hyperdx does it after b52a6fa8:
 * - the cursor (v2/utils/searchCursor.ts; its newest test @ d827590d, the route @ 0ffe81b0) is
 *   base64url JSON of a version, a window index, an offset in that window, the walk's resolved
 *   time range (carried, not fingerprinted: a defaulted endTime moves between pages) and a
 *   16-hex fingerprint of the query (source, where, its language, select, orderBy);
 * - the windows (common-utils core/searchWindows.ts @ dfd1c91f, v2/utils/search.ts
 *   `resolveSearchWindows` @ 0ffe81b0): 15m, 6h, 6h, 12h, then 24h from the newest end (or the
 *   oldest start for an ascending order), half-open except at the range's own bounds, and one
 *   window when the order does not lead with the timestamp or the timestamp is rounded.
 * The newest searchCursor.ts itself is not in the index; its behaviour is read from that test and
 * the route. The keys `s`/`e` of the carried range are the sandbox's (the cursor is opaque).
 */
import { createHash } from 'node:crypto';

export const CURSOR_START = 'start';
const CURSOR_VERSION = 1;
const FINGERPRINT_LENGTH = 16;
/** A cursor's offset is held to the request's own offset cap. */
const MAX_CURSOR_OFFSET = 10_000;
const WINDOW_SECONDS = [15 * 60, 6 * 3600, 6 * 3600, 12 * 3600, 24 * 3600];

export interface SearchCursorState {
  windowIndex: number;
  offset: number;
  startTime: string;
  endTime: string;
}

export interface CursorFingerprintInput {
  sourceId: string;
  where: string;
  whereLanguage: string;
  select: string;
  orderBy: string;
}

export type CursorError = 'INVALID_CURSOR' | 'CURSOR_QUERY_MISMATCH';

export interface TimeWindow {
  startTime: Date;
  endTime: Date;
  windowIndex: number;
  direction: 'ASC' | 'DESC';
}

export function fingerprintQuery(input: CursorFingerprintInput): string {
  const canonical = JSON.stringify([input.sourceId, input.where, input.whereLanguage, input.select, input.orderBy]);
  return createHash('sha256').update(canonical).digest('hex').slice(0, FINGERPRINT_LENGTH);
}

export function encodeSearchCursor(state: SearchCursorState, fingerprint: string): string {
  const body = { v: CURSOR_VERSION, w: state.windowIndex, o: state.offset, f: fingerprint, s: state.startTime, e: state.endTime };
  return Buffer.from(JSON.stringify(body)).toString('base64url');
}

const isCount = (n: unknown, max = Number.MAX_SAFE_INTEGER): n is number =>
  Number.isInteger(n) && (n as number) >= 0 && (n as number) <= max;

export function decodeSearchCursor(cursor: string, fingerprint: string): SearchCursorState | { error: CursorError } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    return { error: 'INVALID_CURSOR' };
  }
  if (parsed === null || typeof parsed !== 'object') return { error: 'INVALID_CURSOR' };
  const { v, w, o, f, s, e } = parsed as Record<string, unknown>;
  const wellFormed = v === CURSOR_VERSION && isCount(w) && isCount(o, MAX_CURSOR_OFFSET) && typeof f === 'string';
  if (!wellFormed || typeof s !== 'string' || typeof e !== 'string') return { error: 'INVALID_CURSOR' };
  if (f !== fingerprint) return { error: 'CURSOR_QUERY_MISMATCH' };
  return { windowIndex: w, offset: o, startTime: s, endTime: e };
}

/** The route's 400 message for each cursor error (v2/search.ts @ 0ffe81b0). */
export function cursorErrorMessage(error: CursorError): string {
  return error === 'CURSOR_QUERY_MISMATCH' ? 'Cursor does not match this query. Start a new search.' : 'Cursor is malformed.';
}

/** Top-level comma split: commas inside parentheses or brackets belong to the expression. */
export function splitTopLevel(list: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let current = '';
  for (const ch of list) {
    if (ch === '(' || ch === '[') depth += 1;
    if (ch === ')' || ch === ']') depth -= 1;
    if (ch === ',' && depth === 0) {
      out.push(current.trim());
      current = '';
    } else current += ch;
  }
  out.push(current.trim());
  return out.filter((c) => c !== '');
}

const withoutDirection = (item: string) => item.replace(/\s+(ASC|DESC)\s*$/i, '').trim();

/** common-utils `isFirstOrderByAscending`: the first item does not end in DESC. */
export function isFirstOrderByAscending(orderBy: string): boolean {
  const first = splitTopLevel(orderBy)[0];
  return first !== undefined && !first.trim().toUpperCase().endsWith('DESC');
}

function timestampLeadsOrder(orderBy: string, timestampExpression: string): boolean {
  const first = splitTopLevel(orderBy)[0];
  if (first === undefined) return false;
  const expression = withoutDirection(first);
  return splitTopLevel(timestampExpression).some((t) => expression.includes(t));
}

function progressiveWindows(start: Date, end: Date, direction: 'ASC' | 'DESC'): TimeWindow[] {
  if (start.getTime() === end.getTime()) return [{ startTime: start, endTime: end, windowIndex: 0, direction }];
  const windows: TimeWindow[] = [];
  let edge = direction === 'DESC' ? end.getTime() : start.getTime();
  for (let windowIndex = 0; direction === 'DESC' ? edge > start.getTime() : edge < end.getTime(); windowIndex += 1) {
    const size = (WINDOW_SECONDS[windowIndex] ?? WINDOW_SECONDS[WINDOW_SECONDS.length - 1] ?? 0) * 1000;
    const next = direction === 'DESC' ? Math.max(edge - size, start.getTime()) : Math.min(edge + size, end.getTime());
    const [from, to] = direction === 'DESC' ? [next, edge] : [edge, next];
    windows.push({ startTime: new Date(from), endTime: new Date(to), windowIndex, direction });
    edge = next;
  }
  return windows;
}

export function resolveSearchWindows(timestampExpression: string, orderBy: string, start: Date, end: Date): TimeWindow[] {
  const direction = isFirstOrderByAscending(orderBy) ? 'ASC' : 'DESC';
  const roundsTimestamp = /\btoStartOf|\btoDate\s*\(/i.test(timestampExpression);
  if (roundsTimestamp || !timestampLeadsOrder(orderBy, timestampExpression)) {
    return [{ startTime: start, endTime: end, windowIndex: 0, direction }];
  }
  return progressiveWindows(start, end, direction);
}

/** Adjacent windows share an instant; each is half-open, the one holding the range's own bound keeps it. */
export function windowInclusivity(window: TimeWindow, windowCount: number): { startInclusive: boolean; endInclusive: boolean } {
  const isLast = window.windowIndex === windowCount - 1;
  return window.direction === 'DESC' ? { startInclusive: isLast, endInclusive: true } : { startInclusive: true, endInclusive: isLast };
}

/** What comes after a page: the same window further on when the page was full, else the next window, else the end. */
export function nextCursorState(
  state: SearchCursorState,
  windowCount: number,
  rowsServed: number,
  maxResults: number,
): SearchCursorState | null {
  if (rowsServed >= maxResults) return { ...state, offset: state.offset + rowsServed };
  if (state.windowIndex + 1 < windowCount) return { ...state, windowIndex: state.windowIndex + 1, offset: 0 };
  return null;
}
