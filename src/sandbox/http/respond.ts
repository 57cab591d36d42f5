/** Responses in each variant's shapes (selfhosted-api §1.0/§4, hosted-api §1/§5), built before being written. */
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { DomainError, DomainResult } from '../domain/contract.js';

export type Variant = 'hosted' | 'self-hosted';

export interface Reply {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * Observed code prefixes (hosted-api §1). 401 and 403 have none: clickhousectl's client tests
 * answer `"error": "Invalid credentials"` and `"Forbidden: insufficient permissions"`.
 */
const HOSTED_PREFIX: Record<number, string> = {
  400: 'BAD_REQUEST',
  404: 'NOT_FOUND',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  424: 'FAILED_DEPENDENCY',
  500: 'INTERNAL_SERVER_ERROR',
  501: 'NOT_IMPLEMENTED',
  503: 'SERVICE_UNAVAILABLE',
};

export function json(status: number, body: unknown, headers: Record<string, string> = {}): Reply {
  return { status, headers: { 'content-type': 'application/json; charset=utf-8', ...headers }, body: JSON.stringify(body) };
}

export function text(status: number, body: string, type = 'text/plain; charset=utf-8', headers: Record<string, string> = {}): Reply {
  return { status, headers: { 'content-type': type, ...headers }, body };
}

/** The hosted 429 (hosted-api §5: `{"status":429,"error":"Rate limit exceeded"}`, no code prefix). */
export function hosted429(resetSeconds: number): Reply {
  const s = String(resetSeconds);
  return json(429, { status: 429, error: 'Rate limit exceeded', requestId: randomUUID() }, { 'retry-after': s, 'x-ratelimit-reset': s });
}

export function hostedError(status: number, message: string, headers: Record<string, string> = {}): Reply {
  const prefix = HOSTED_PREFIX[status];
  const error = prefix === undefined || message.startsWith(`${prefix}: `) ? message : `${prefix}: ${message}`;
  return json(status, { status, error, requestId: randomUUID() }, headers);
}

export function selfHostedError(error: DomainError): Reply {
  return error.selfHostedBody.type === 'text'
    ? text(error.status, error.selfHostedBody.text)
    : json(error.status, error.selfHostedBody.body);
}

/** Express's page for an unserved route. */
export function cannot(method: string, path: string): Reply {
  return text(
    404,
    `<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta ` +
      `charset="utf-8">\n<title>Error</title>\n</head>\n<body>\n<pre>Cannot ${method} ` +
      `${path}</pre>\n</body>\n</html>\n`,
    'text/html; charset=utf-8',
  );
}

/** A domain result in the variant's envelope. `empty`: a delete (self-hosted `{}`, hosted no `result`). */
export function resultReply(variant: Variant, result: DomainResult<unknown>, opts: { empty?: boolean; raw?: boolean } = {}): Reply {
  if (!result.ok) return variant === 'hosted' ? hostedError(result.error.status, result.error.message) : selfHostedError(result.error);
  if (variant === 'hosted')
    return json(
      200,
      opts.empty ? { status: 200, requestId: randomUUID() } : { status: 200, requestId: randomUUID(), result: result.value },
    );
  if (opts.empty) return json(200, {});
  if (opts.raw) return json(200, result.value);
  if (result.meta) return json(200, { data: result.value, meta: result.meta }, { 'x-total-count': String(result.meta.total) });
  return json(200, { data: result.value });
}

export function write(res: ServerResponse, reply: Reply): void {
  // Express sends no Content-Length with a 204 or a 304 (they have no body).
  const bodiless = reply.status === 204 || reply.status === 304;
  res
    .writeHead(reply.status, bodiless ? reply.headers : { ...reply.headers, 'content-length': String(Buffer.byteLength(reply.body)) })
    .end(bodiless ? undefined : reply.body);
}
