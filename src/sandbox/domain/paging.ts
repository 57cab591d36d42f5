/**
 * `limit`/`offset` query parsing of the paginated lists (alerts, webhooks, saved searches):
 * integers only, `limit` 1–1000 (default 1000), `offset` ≥ 0 (default 0).
 */
import type { DomainResult, PageMeta, PageQuery } from './contract.js';
import { badRequest, ok } from './result.js';

const MAX_LIMIT = 1000;

interface Window {
  limit: number;
  offset: number;
}

function single(value: string | string[] | undefined): string | undefined | null {
  if (Array.isArray(value)) return null;
  return value;
}

function parseInteger(name: string, raw: string | string[] | undefined, min: number, max: number): number | string {
  const value = single(raw);
  if (value === null) return `${name}: Expected number, received array`;
  if (value === undefined) return name === 'limit' ? MAX_LIMIT : 0;
  if (value.trim() === '' || !/^-?\d+(\.\d+)?$/.test(value.trim())) return `${name}: Expected number, received nan`;
  const n = Number(value);
  if (!Number.isInteger(n)) return `${name}: Expected integer, received float`;
  if (n < min) return `${name}: Number must be greater than or equal to ${min}`;
  if (n > max) return `${name}: Number must be less than or equal to ${max}`;
  return n;
}

export function parsePage(query: PageQuery): DomainResult<Window> {
  const limit = parseInteger('limit', query.limit, 1, MAX_LIMIT);
  const offset = parseInteger('offset', query.offset, 0, Number.MAX_SAFE_INTEGER);
  const problems = [limit, offset].filter((v): v is string => typeof v === 'string');
  if (problems.length > 0) return badRequest(`Query validation failed: ${problems.join('; ')}`);
  return ok({ limit: limit as number, offset: offset as number });
}

export function paginate<T, U>(rows: readonly T[], query: PageQuery, render: (row: T) => U): DomainResult<U[]> {
  const page = parsePage(query);
  if (!page.ok) return page;
  const { limit, offset } = page.value;
  const meta: PageMeta = { total: rows.length, limit, offset };
  return ok(rows.slice(offset, offset + limit).map(render), meta);
}
