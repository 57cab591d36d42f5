/**
 * `POST /search` (hyperdx v2/search.ts at b52a6fa8): the real server's validation, time range,
 * source and connection look-ups and error envelopes (`{message}` throughout), then synthetic
 * rows: one per minute of the range (at most 500), newest first (oldest first for an ascending
 * timestamp order), keyed by the selected columns (or the source's default select), values
 * derived from a hash of the request so the same request answers the same rows. The `where`
 * filter is not evaluated. Cursor paging (`cursor: "start"`, then each `nextCursor`) as the
 * route does it at 0ffe81b0: see search-cursor.ts.
 */
import { createHash } from 'node:crypto';
import * as z from 'zod';
import type { DomainResult, JsonRecord, StoredTelemetry } from './contract.js';
import { searchStored } from '../otlp/query.js';
import { failJson, isObjectIdLike, ok, parseRequest } from './result.js';
import { findById, type Store } from './store.js';
import { text } from './json.js';
import {
  CURSOR_START,
  cursorErrorMessage,
  decodeSearchCursor,
  encodeSearchCursor,
  fingerprintQuery,
  isFirstOrderByAscending,
  nextCursorState,
  resolveSearchWindows,
  type SearchCursorState,
  splitTopLevel,
  type TimeWindow,
  windowInclusivity,
} from './search-cursor.js';

const DISALLOWED_COLUMNS = /;|(?<!\w)SELECT\s/i;
const MAX_ROWS = 500;
const FIFTEEN_MINUTES = 15 * 60_000;

const searchBody = z.object({
  sourceId: z.string().min(1, { error: 'sourceId is required' }).refine(isObjectIdLike, { error: 'sourceId must be a valid ObjectId' }),
  startTime: z.string().optional(),
  endTime: z.string().optional(),
  where: z
    .string()
    .max(8 * 1024)
    .optional()
    .default(''),
  whereLanguage: z.enum(['lucene', 'sql']).optional().default('lucene'),
  select: z
    .string()
    .max(4 * 1024)
    .optional()
    .default('')
    .refine((v) => v === '' || !DISALLOWED_COLUMNS.test(v), {
      error: 'select must not contain semicolons or SELECT subqueries; use column references, map lookups, or scalar functions only',
    }),
  orderBy: z.string().max(1024).optional(),
  maxResults: z.number().int().min(1).max(2000).optional().default(100),
  offset: z.number().int().min(0).max(10_000).optional().default(0),
  cursor: z.string().max(1024).optional(),
});
type SearchRequest = z.infer<typeof searchBody>;

function timeRange(startTime: string | undefined, endTime: string | undefined, now: Date): { start: number; end: number } | string {
  const end = endTime ? new Date(endTime).getTime() : now.getTime();
  const start = startTime ? new Date(startTime).getTime() : end - FIFTEEN_MINUTES;
  if (Number.isNaN(end) || Number.isNaN(start)) return 'Invalid startTime or endTime: must be valid ISO 8601 strings';
  if (start >= end) return 'endTime must be greater than startTime';
  return { start, end };
}

const clickhouseTime = (ms: number) => new Date(ms).toISOString().replace('T', ' ').replace('Z', '000000');

/** The source's own order when the request gives none (v2/utils/search.ts `resolveSearchOrderBy`, without the table's sort key). */
function sourceOrderBy(source: JsonRecord): string {
  const explicit = text(source.orderByExpression).trim();
  if (explicit) return explicit;
  const displayed = text(source.displayedTimestampValueExpression).trim();
  const parts = [...new Set([...splitTopLevel(text(source.timestampValueExpression)), ...(displayed ? [displayed] : [])])];
  if (parts.length === 0) return 'Timestamp DESC';
  return parts.length > 1 ? `(${parts.join(', ')}) DESC` : `${parts[0]} DESC`;
}

/** Where this page reads: a window of a cursor walk, or (no cursor) the whole range as one window. */
interface Page {
  window: TimeWindow;
  windowCount: number;
  offset: number;
  walk?: SearchCursorState;
}

function resolvePage(req: SearchRequest, cursorState: SearchCursorState | undefined, source: JsonRecord, range: Range): Page | string {
  const orderBy = req.orderBy?.trim() || sourceOrderBy(source);
  const [start, end] = [new Date(range.start), new Date(range.end)];
  if (!cursorState) {
    const direction = isFirstOrderByAscending(orderBy) ? 'ASC' : 'DESC';
    return { window: { startTime: start, endTime: end, windowIndex: 0, direction }, windowCount: 1, offset: req.offset };
  }
  const windows = resolveSearchWindows(text(source.timestampValueExpression), orderBy, start, end);
  const window = windows[cursorState.windowIndex];
  if (!window) return 'Cursor refers to a page outside the current time range';
  return { window, windowCount: windows.length, offset: cursorState.offset, walk: cursorState };
}

type Range = { start: number; end: number };

export function search(store: Store, body: unknown, telemetry?: StoredTelemetry): DomainResult<JsonRecord> {
  const parsed = parseRequest(searchBody, body);
  if (!parsed.ok) return parsed;
  const req = parsed.value;
  const range = timeRange(req.startTime, req.endTime, store.now());
  if (typeof range === 'string') return failJson(400, range);
  const fingerprint = fingerprintQuery({ ...req, orderBy: req.orderBy ?? '' });
  let cursorState: SearchCursorState | undefined;
  if (req.cursor === CURSOR_START) {
    cursorState = { windowIndex: 0, offset: 0, startTime: new Date(range.start).toISOString(), endTime: new Date(range.end).toISOString() };
  } else if (req.cursor !== undefined) {
    const decoded = decodeSearchCursor(req.cursor, fingerprint);
    if ('error' in decoded) return failJson(400, cursorErrorMessage(decoded.error));
    cursorState = decoded;
  }
  const source = findById(store.state.sources, req.sourceId);
  if (!source) return failJson(404, `Source not found: ${req.sourceId}`);
  if (!findById(store.state.connections, text(source.connection))) return failJson(404, `Connection not found for source: ${req.sourceId}`);
  const page = resolvePage(req, cursorState, source, range);
  if (typeof page === 'string') return failJson(400, page);
  const timestamp = text(source.timestampValueExpression) || 'Timestamp';
  const selected = splitTopLevel(req.select || text(source.defaultTableSelectExpression) || timestamp);
  const table = text((source.from as JsonRecord | undefined)?.tableName);
  const data =
    telemetry && (table === 'otel_traces' || table === 'otel_logs')
      ? storedRows(telemetry.rows(table), req, page, selected)
      : syntheticRows(req, range, page, selected, timestamp);
  if (typeof data === 'string') return failJson(400, data);
  const next = page.walk ? nextCursorState(page.walk, page.windowCount, data.length, req.maxResults) : null;
  return ok({ data, rows: data.length, nextCursor: next ? encodeSearchCursor(next, fingerprint) : null });
}

function inWindow(page: Page): (at: number) => boolean {
  const { startInclusive, endInclusive } = page.walk
    ? windowInclusivity(page.window, page.windowCount)
    : { startInclusive: true, endInclusive: true };
  const [from, to] = [page.window.startTime.getTime(), page.window.endTime.getTime()];
  return (at) => (startInclusive ? at >= from : at > from) && (endInclusive ? at <= to : at < to);
}

/** One row a minute over the whole range (newest at end - 1 ms), those of the page's window, in its direction. */
function syntheticRows(req: SearchRequest, range: Range, page: Page, selected: string[], timestamp: string): JsonRecord[] {
  // The cursor is left out: a walk answers the same rows as offset paging over the same range.
  const hash = createHash('sha256')
    .update(JSON.stringify({ ...req, offset: 0, maxResults: 0, cursor: undefined }))
    .digest('hex');
  const total = Math.min(MAX_ROWS, Math.ceil((range.end - range.start) / 60_000));
  const keep = inWindow(page);
  const minutes = Array.from({ length: total }, (_, i) => i).filter((i) => keep(range.end - 1 - i * 60_000));
  if (page.window.direction === 'ASC') minutes.reverse();
  return minutes.slice(page.offset, page.offset + req.maxResults).map((i) => {
    const at = range.end - 1 - i * 60_000;
    return Object.fromEntries(
      selected.map((col, c) => [col, col === timestamp ? clickhouseTime(at) : `${col}-${hash.slice((i + c) % 56, ((i + c) % 56) + 8)}`]),
    );
  });
}

/** With the OTLP receiver on, a source on otel_traces or otel_logs answers what the receiver stored (../otlp/query.ts). */
function storedRows(rows: Record<string, unknown>[], req: SearchRequest, page: Page, selected: string[]): JsonRecord[] | string {
  const bounds = page.walk ? windowInclusivity(page.window, page.windowCount) : {};
  try {
    return searchStored(rows, {
      start: page.window.startTime.getTime(),
      end: page.window.endTime.getTime(),
      ...bounds,
      ascending: page.window.direction === 'ASC',
      where: req.whereLanguage === 'lucene' ? req.where : '',
      columns: selected,
      maxResults: req.maxResults,
      offset: page.offset,
    }) as JsonRecord[];
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}
