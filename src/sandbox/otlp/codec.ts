/**
 * OTLP/HTTP bodies, decoded and answered with the official OpenTelemetry protocol definitions
 * (./proto/, copied from open-telemetry/opentelemetry-proto with their licence) loaded by
 * protobufjs. Both encodings come out as the same plain object (protobufjs's `toObject`: lowerCamelCase
 * fields, 64-bit integers as strings, enums as numbers, bytes as base64): for OTLP/JSON, whose
 * trace and span ids are hex (the OTLP specification), the ids are turned into base64 first.
 */
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import protobuf from 'protobufjs';

export const SIGNAL_TYPES = {
  traces: 'opentelemetry.proto.collector.trace.v1.ExportTraceService',
  metrics: 'opentelemetry.proto.collector.metrics.v1.ExportMetricsService',
  logs: 'opentelemetry.proto.collector.logs.v1.ExportLogsService',
} as const;
export type OtlpSignal = keyof typeof SIGNAL_TYPES;
export type Encoding = 'protobuf' | 'json';

const PROTO_ROOT = fileURLToPath(new URL('./proto/', import.meta.url));
const SERVICE_FILES = [
  'opentelemetry/proto/collector/trace/v1/trace_service.proto',
  'opentelemetry/proto/collector/metrics/v1/metrics_service.proto',
  'opentelemetry/proto/collector/logs/v1/logs_service.proto',
];

let loaded: protobuf.Root | undefined;

/** The protocol definitions, parsed once on first use. */
function root(): protobuf.Root {
  if (loaded) return loaded;
  const r = new protobuf.Root();
  r.resolvePath = (_origin, target) => join(PROTO_ROOT, target);
  r.loadSync(SERVICE_FILES, { keepCase: false });
  // google.rpc.Status (what an OTLP/HTTP server answers a refused request with), as its .proto declares it; details left out.
  r.define('google.rpc').add(
    new protobuf.Type('Status').add(new protobuf.Field('code', 1, 'int32')).add(new protobuf.Field('message', 2, 'string')),
  );
  r.resolveAll();
  loaded = r;
  return r;
}

const CONVERSION: protobuf.IConversionOptions = { longs: String, enums: Number, bytes: String, defaults: false, arrays: true };
const ID_FIELDS = new Set(['traceId', 'spanId', 'parentSpanId']);
const HEX = /^(?:[0-9a-fA-F]{2})*$/;

/** OTLP/JSON's hex ids as the base64 protobufjs reads bytes in; anything else is left for fromObject to judge. */
function hexIdsToBase64(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(hexIdsToBase64);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [
      k,
      ID_FIELDS.has(k) && typeof v === 'string' && HEX.test(v) ? Buffer.from(v, 'hex').toString('base64') : hexIdsToBase64(v),
    ]),
  );
}

export class MalformedRequest extends Error {
  override readonly name = 'MalformedRequest';
}

/** The Export*ServiceRequest in `body`, as a plain object; throws MalformedRequest when it does not decode. */
export function decodeRequest(signal: OtlpSignal, encoding: Encoding, body: Buffer): Record<string, unknown> {
  const type = root().lookupType(`${SIGNAL_TYPES[signal]}Request`);
  try {
    if (encoding === 'protobuf') return type.toObject(type.decode(body), CONVERSION);
    const json: unknown = JSON.parse(body.toString('utf8'));
    if (typeof json !== 'object' || json === null || Array.isArray(json)) throw new Error('the body is not a JSON object');
    const converted = hexIdsToBase64(json) as Record<string, unknown>;
    // fromObject, not verify: OTLP/JSON writes 64-bit integers as decimal strings, which verify refuses;
    // fromObject throws on a wrong shape.
    return type.toObject(type.fromObject(converted), CONVERSION);
  } catch (err) {
    throw new MalformedRequest(err instanceof Error ? err.message : String(err));
  }
}

/** An empty Export*ServiceResponse (everything accepted), in the request's encoding. */
export function encodeResponse(signal: OtlpSignal, encoding: Encoding): Buffer {
  if (encoding === 'json') return Buffer.from('{}');
  const type = root().lookupType(`${SIGNAL_TYPES[signal]}Response`);
  return Buffer.from(type.encode(type.create({})).finish());
}

/** A google.rpc.Status in the request's encoding (code 3: INVALID_ARGUMENT). */
export function encodeStatus(encoding: Encoding, message: string, code = 3): Buffer {
  if (encoding === 'json') return Buffer.from(JSON.stringify({ code, message }));
  const type = root().lookupType('google.rpc.Status');
  return Buffer.from(type.encode(type.create({ code, message })).finish());
}

/** base64 bytes (as toObject writes them) as the hex ClickHouse stores ids in; '' for none. */
export const hexId = (value: unknown): string => (typeof value === 'string' ? Buffer.from(value, 'base64').toString('hex') : '');
