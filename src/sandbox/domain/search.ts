/**
 * `POST /search` (hyperdx v2/search.ts at b52a6fa8): the real server's validation, time range,
 * source and connection look-ups and error envelopes (`{message}` throughout), then synthetic
 * rows: one per minute of the range (at most 500), newest first, keyed by the selected columns
 * (or the source's default select), values derived from a hash of the request so the same
 * request answers the same rows. The `where` filter is not evaluated.
 */
import { createHash } from 'node:crypto';
import * as z from 'zod';
import type { DomainResult, JsonRecord, StoredTelemetry } from './contract.js';
import { searchStored } from '../otlp/query.js';
import { failJson, isObjectIdLike, ok, parseRequest } from './result.js';
import { findById, type Store } from './store.js';
import { text } from './json.js';

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
});

function timeRange(startTime: string | undefined, endTime: string | undefined, now: Date): { start: number; end: number } | string {
  const end = endTime ? new Date(endTime).getTime() : now.getTime();
  const start = startTime ? new Date(startTime).getTime() : end - FIFTEEN_MINUTES;
  if (Number.isNaN(end) || Number.isNaN(start)) return 'Invalid startTime or endTime: must be valid ISO 8601 strings';
  if (start >= end) return 'endTime must be greater than startTime';
  return { start, end };
}

/** Top-level comma split (commas inside parentheses or brackets belong to the expression). */
function columns(select: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let current = '';
  for (const ch of select) {
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

const clickhouseTime = (ms: number) => new Date(ms).toISOString().replace('T', ' ').replace('Z', '000000');

export function search(store: Store, body: unknown, telemetry?: StoredTelemetry): DomainResult<JsonRecord> {
  const parsed = parseRequest(searchBody, body);
  if (!parsed.ok) return parsed;
  const req = parsed.value;
  const range = timeRange(req.startTime, req.endTime, store.now());
  if (typeof range === 'string') return failJson(400, range);
  const source = findById(store.state.sources, req.sourceId);
  if (!source) return failJson(404, `Source not found: ${req.sourceId}`);
  if (!findById(store.state.connections, text(source.connection))) return failJson(404, `Connection not found for source: ${req.sourceId}`);
  const timestamp = text(source.timestampValueExpression) || 'Timestamp';
  const selected = columns(req.select || text(source.defaultTableSelectExpression) || timestamp);
  const table = text((source.from as JsonRecord | undefined)?.tableName);
  if (telemetry && (table === 'otel_traces' || table === 'otel_logs')) return storedRows(telemetry.rows(table), req, range, selected);
  const hash = createHash('sha256')
    .update(JSON.stringify({ ...req, offset: 0, maxResults: 0 }))
    .digest('hex');
  const total = Math.min(MAX_ROWS, Math.ceil((range.end - range.start) / 60_000));
  const rows: JsonRecord[] = [];
  for (let i = req.offset; i < total && rows.length < req.maxResults; i += 1) {
    const at = range.end - 1 - i * 60_000;
    rows.push(
      Object.fromEntries(
        selected.map((col, c) => [col, col === timestamp ? clickhouseTime(at) : `${col}-${hash.slice((i + c) % 56, ((i + c) % 56) + 8)}`]),
      ),
    );
  }
  return ok({ data: rows, rows: rows.length });
}

/** With the OTLP receiver on, a source on otel_traces or otel_logs answers what the receiver stored (../otlp/query.ts). */
function storedRows(
  rows: Record<string, unknown>[],
  req: { where: string; whereLanguage: string; maxResults: number; offset: number },
  range: { start: number; end: number },
  selected: string[],
): DomainResult<JsonRecord> {
  let data: JsonRecord[];
  try {
    data = searchStored(rows, {
      ...range,
      where: req.whereLanguage === 'lucene' ? req.where : '',
      columns: selected,
      maxResults: req.maxResults,
      offset: req.offset,
    }) as JsonRecord[];
  } catch (err) {
    return failJson(400, err instanceof Error ? err.message : String(err));
  }
  return ok({ data, rows: data.length });
}
