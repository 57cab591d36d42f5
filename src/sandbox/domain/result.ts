/**
 * Building DomainResults: the self-hosted server's error shapes (JSON `{message}`, Express
 * plain-text `Not Found`) and zod failures formatted as `Body validation failed: path: msg; ...`.
 */
import type * as z from 'zod';
import type { DomainError, DomainResult, DomainStatus, PageMeta } from './contract.js';
import { ZOD3 } from './zod3-messages.js';

export function ok<T>(value: T, meta?: PageMeta): DomainResult<T> {
  return meta === undefined ? { ok: true, value } : { ok: true, value, meta };
}

export function failJson(status: DomainStatus, message: string): { ok: false; error: DomainError } {
  return { ok: false, error: { status, message, selfHostedBody: { type: 'json', body: { message } } } };
}

export const badRequest = (message: string) => failJson(400, message);
export const conflict = (message: string) => failJson(409, message);
export const notFoundJson = (message: string) => failJson(404, message);

/** Routers that answer with Express `sendStatus(404)` (dashboards, connections). */
export function notFoundText(message: string): { ok: false; error: DomainError } {
  return { ok: false, error: { status: 404, message, selfHostedBody: { type: 'text', text: 'Not Found' } } };
}

/** The charts router writes `{error}` instead of `{message}`. */
export function failErrorKey(status: DomainStatus, message: string): { ok: false; error: DomainError } {
  return { ok: false, error: { status, message, selfHostedBody: { type: 'json', body: { error: message } } } };
}

export type ValidationPart = 'Body' | 'Params' | 'Query';

export function formatIssues(issues: readonly z.core.$ZodIssue[]): string {
  return issues
    .map((issue) => {
      const path = issue.path.map(String).join('.');
      return path === '' ? issue.message : `${path}: ${issue.message}`;
    })
    .join('; ');
}

export function zodFailure(part: ValidationPart, error: z.ZodError): { ok: false; error: DomainError } {
  return badRequest(`${part} validation failed: ${formatIssues(error.issues)}`);
}

/**
 * Mongoose `ObjectId.isValid`: 24 hex characters (any case) or any 12-character string
 * (which then simply does not match anything).
 */
export function isObjectIdLike(id: string): boolean {
  return /^[0-9a-fA-F]{24}$/.test(id) || id.length === 12;
}

export function invalidIdParam(id: string): { ok: false; error: DomainError } | undefined {
  return isObjectIdLike(id) ? undefined : badRequest('Params validation failed: id: Invalid ObjectId');
}

/**
 * The server's validation middleware checks the body, then the path parameters, and reports
 * every failing part in one message (`Body validation failed: ...; Params validation failed: ...`).
 */
export function requestFailure(parts: {
  body?: { success: boolean; error?: z.ZodError };
  id?: string;
}): { ok: false; error: DomainError } | undefined {
  const messages: string[] = [];
  if (parts.body && !parts.body.success && parts.body.error)
    messages.push(`Body validation failed: ${formatIssues(parts.body.error.issues)}`);
  if (parts.id !== undefined && !isObjectIdLike(parts.id)) messages.push('Params validation failed: id: Invalid ObjectId');
  return messages.length > 0 ? badRequest(messages.join('; ')) : undefined;
}

/** A plain-text status page (`res.sendStatus`): `Not Found`, `Forbidden`. */
export function failText(status: DomainStatus, text: string): { ok: false; error: DomainError } {
  return { ok: false, error: { status, message: text, selfHostedBody: { type: 'text', text } } };
}

/** Validates a request body (and a path id) the way the middleware does; the parsed body on success. */
export function parseRequest<S extends z.ZodType>(
  schema: S,
  body: unknown,
  id?: string,
): { ok: true; value: z.output<S> } | { ok: false; error: DomainError } {
  const parsed = schema.safeParse(body, ZOD3);
  const bad = requestFailure({ body: parsed, ...(id === undefined ? {} : { id }) });
  if (bad) return bad;
  return parsed.success ? { ok: true, value: parsed.data } : zodFailure('Body', parsed.error);
}
