/**
 * The sandbox's OTLP/HTTP receiver, answering as the OpenTelemetry Collector's otlp receiver does
 * (ClickStack's collector, port 4318): POST /v1/traces, /v1/metrics, /v1/logs with
 * `application/x-protobuf` or `application/json`, gzip or deflate Content-Encoding; 200 with an
 * empty Export*ServiceResponse in the request's encoding; 400 with a google.rpc.Status when the body
 * does not decode; 415 for another content type, 405 for another method, 404 for another path,
 * 413 past the size limit. What arrives is stored as ClickStack's tables (./rows.ts, ./store.ts).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { gunzip, inflate, type InputType } from 'node:zlib';
import { promisify } from 'node:util';
import { decodeRequest, encodeResponse, encodeStatus, MalformedRequest, type Encoding, type OtlpSignal } from './codec.js';
import { logRows, metricRows, spanRows, type Row } from './rows.js';
import type { OtelTable, OtlpStore } from './store.js';
import { readBoundedBody } from '../http/body.js';

const MAX_BODY = 16 * 1024 * 1024;
/** A compressed body may not expand past this (a small gzip bomb must not fill the sandbox's memory). */
const MAX_DECODED = 64 * 1024 * 1024;

const ROUTES: Record<string, { signal: OtlpSignal; table: OtelTable; rows: (request: Record<string, unknown>) => Row[] }> = {
  '/v1/traces': { signal: 'traces', table: 'otel_traces', rows: spanRows },
  '/v1/metrics': { signal: 'metrics', table: 'otel_metrics', rows: metricRows },
  '/v1/logs': { signal: 'logs', table: 'otel_logs', rows: logRows },
};

const CONTENT_TYPES: Record<string, Encoding> = { 'application/x-protobuf': 'protobuf', 'application/json': 'json' };
const MEDIA_TYPE = { protobuf: 'application/x-protobuf', json: 'application/json' } as const;

const gunzipAsync = promisify(gunzip) as (buf: InputType, options: { maxOutputLength: number }) => Promise<Buffer>;
const inflateAsync = promisify(inflate) as (buf: InputType, options: { maxOutputLength: number }) => Promise<Buffer>;

function plain(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'text/plain', ...headers });
  res.end(message);
}

/** The body without its Content-Encoding; a string: why it cannot be read. */
async function decoded(body: Buffer, encoding: string): Promise<Buffer | string> {
  try {
    if (encoding === '' || encoding === 'identity') return body;
    if (encoding === 'gzip') return await gunzipAsync(body, { maxOutputLength: MAX_DECODED });
    if (encoding === 'deflate') return await inflateAsync(body, { maxOutputLength: MAX_DECODED });
  } catch (err) {
    return `cannot decompress the body (${encoding}): ${err instanceof Error ? err.message : String(err)}`;
  }
  return `unsupported Content-Encoding ${JSON.stringify(encoding)}, supported: gzip, deflate`;
}

export async function handleOtlp(req: IncomingMessage, res: ServerResponse, store: OtlpStore): Promise<void> {
  const route = ROUTES[new URL(req.url ?? '/', 'http://sandbox').pathname];
  if (!route) return plain(res, 404, '404 page not found');
  if (req.method !== 'POST') return plain(res, 405, '405 method not allowed, supported: [POST]', { allow: 'POST' });
  const mediaType = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  const encoding = CONTENT_TYPES[mediaType];
  if (!encoding) return plain(res, 415, '415 unsupported media type, supported: [application/json, application/x-protobuf]');
  const raw = await readBoundedBody(req, MAX_BODY);
  const reply = (status: number, body: Buffer) => {
    res.writeHead(status, { 'content-type': MEDIA_TYPE[encoding] });
    res.end(body);
  };
  if (raw === null) return reply(413, encodeStatus(encoding, `the body is larger than ${MAX_BODY} bytes`, 8));
  const body = await decoded(raw, (req.headers['content-encoding'] ?? '').trim().toLowerCase());
  if (typeof body === 'string') return reply(400, encodeStatus(encoding, body));
  let request: Record<string, unknown>;
  try {
    request = decodeRequest(route.signal, encoding, body);
  } catch (err) {
    if (!(err instanceof MalformedRequest)) throw err;
    return reply(400, encodeStatus(encoding, `failed to unmarshal request body: ${err.message}`));
  }
  store.add(route.table, route.rows(request));
  reply(200, encodeResponse(route.signal, encoding));
}

/** The receiver's server (not yet listening). */
export function createOtlpServer(store: OtlpStore): Server {
  return createServer((req, res) => {
    handleOtlp(req, res, store).catch(() => {
      if (!res.headersSent && !req.socket.destroyed) plain(res, 500, '500 internal error');
    });
  });
}
