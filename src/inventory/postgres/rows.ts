/**
 * Rows of the PostgreSQL state parsed at the edge (issue 53), like any data from outside: anyone
 * with access to the database can write any row, and a clock can jump. Each table's row has a
 * schema here; a row that does not fit is left out and named (table, key, why) to whoever reads,
 * never taken half-read: one bad row stops nothing but itself.
 */
import * as z from 'zod';
import { entryAddress, type SkippedRow } from '../../core/inventory.js';
import { targetName } from '../../config/schema.js';
import { inventoryEntrySchema } from '../schema.js';

/** A timestamp as node-postgres gives it: a Date JavaScript can hold ('infinity' arrives as a number, year 300000 as an Invalid Date). */
const time = z.date();
/** Milliseconds between a timestamp and the database's now, as the SQL of `msFromNow` gives them ('Infinity' for infinite ones). */
const ms = z
  .string()
  .regex(/^-?(\d+|Infinity)$/, 'not a number of milliseconds')
  .transform(Number);

/** SQL: milliseconds from the database's now to `column` (negative: past), as text; infinite timestamps give ±Infinity, never an error. */
export function msFromNow(column: string): string {
  return `round((extract(epoch FROM ${column}) - extract(epoch FROM now())) * 1000)::text`;
}

const text = (max: number) => z.string().max(max);
const pid = z.number().int();

export const replicaRow = z.object({
  id: text(500),
  host: text(500),
  pid,
  version: text(200),
  lease_ms: z.number().int(),
  targets: z.array(targetName).max(10_000),
  leads: z.array(targetName).max(10_000),
  disagreements: z.array(text(2_000)).max(1_000),
  listen: text(500).nullable(),
  started_at: time,
  heartbeat_at: time,
  expires_at: time,
  heartbeat_in_ms: ms,
  expires_in_ms: ms,
});

export const leaseRow = z.object({
  target: text(200),
  host: text(500),
  pid,
  command: text(200),
  expires_at: time,
  expires_in_ms: ms,
});

export const holderRow = leaseRow.extend({
  token: z.string().regex(/^\d+$/),
  holder: text(500),
  pidns: text(200).nullable(),
  acquired_at: time,
});

export const entryRow = z
  .object({ address: z.string(), entry: inventoryEntrySchema, since: time })
  .refine((r) => entryAddress(r.entry) === r.address, { message: 'its address does not match its entry', path: ['address'] });

export const backupRow = z.object({
  address: z.string().regex(/^[A-Za-z]+\/[^/]+$/, 'not Kind/name'),
  object_id: z.string(),
  backed_up_at: time,
  body: z.json().nullable(),
});

/** Rows that must all be readable, or the state is not usable (the fingerprint key, lease tokens): parsed, and the caller fails whole. */
export const tokenRow = z.object({ token: z.string().regex(/^\d+$/) });
export const targetRow = z.object({ target: z.string() });
export const renewedRow = tokenRow.extend({ target: z.string() });
export const keyRow = z.object({ fingerprint_key: z.instanceof(Buffer) });
export const versionRow = z.object({ v: z.number().int().nullable() });
/** An object two entries of one target own (the migration to one owner, ./migrations.ts). */
export const doubleOwnerRow = z.object({ target: z.string(), kind: z.string(), id: z.string(), addresses: z.array(z.string()) });

/** The rows that fit `schema`, and every other one as a skipped row of `table` keyed by `keyColumn`. */
export function readRows<S extends z.ZodType>(
  table: string,
  rows: readonly unknown[],
  schema: S,
  keyColumn: string,
  hint?: (key: string) => string,
): { rows: z.output<S>[]; skipped: SkippedRow[] } {
  const out: z.output<S>[] = [];
  const skipped: SkippedRow[] = [];
  for (const row of rows) {
    const parsed = schema.safeParse(row);
    if (parsed.success) {
      out.push(parsed.data);
      continue;
    }
    const key = keyOf(row, keyColumn);
    skipped.push({ table, key, reason: issueText(parsed.error.issues[0]), ...(hint ? { hint: hint(key) } : {}) });
  }
  return { rows: out, skipped };
}

/** The key column of a row that may be anything. */
export function keyOf(row: unknown, column: string): string {
  if (typeof row !== 'object' || row === null || !Object.hasOwn(row, column)) return '(no key)';
  const value: unknown = Object.getOwnPropertyDescriptor(row, column)?.value;
  return typeof value === 'string' ? value : String(value);
}

export function issueText(issue: { path: PropertyKey[]; message: string } | undefined): string {
  if (!issue) return 'not readable';
  return issue.path.length > 0 ? `${issue.path.map(String).join('.')}: ${issue.message}` : issue.message;
}

/** A string as an SQL literal, for the statements hints suggest. */
export function sqlText(value: string): string {
  return `'${value.replace(/'/g, "''")}'`;
}
