/**
 * What the standard OpenTelemetry environment variables ask for (the SDK environment-variable
 * specification): parsed from a plain record the CLI passes in — this module never reads
 * process.env. Telemetry is on only when an OTLP endpoint is given (the general one or a signal's
 * own) and OTEL_SDK_DISABLED is not true; a bad value is a ConfigError naming the variable.
 */
import * as z from 'zod';
import { ConfigError } from '../core/errors.js';
import { setOwn } from '../core/json.js';

export const SIGNALS = ['traces', 'metrics', 'logs'] as const;
export type Signal = (typeof SIGNALS)[number];
export type OtlpProtocol = 'http/protobuf' | 'http/json';

export interface SignalConfig {
  /** Where this signal is posted: the general endpoint + `/v1/<signal>`, or the signal's own endpoint as given. */
  url: string;
  protocol: OtlpProtocol;
  headers: Record<string, string>;
  timeoutMillis: number;
  compression: 'gzip' | 'none';
}

export interface TelemetryConfig {
  serviceName: string;
  resourceAttributes: Record<string, string>;
  /** A signal is absent when OTEL_<SIGNAL>_EXPORTER is `none`. */
  signals: Partial<Record<Signal, SignalConfig>>;
  metricIntervalMillis: number;
}

export type TelemetryEnv = Readonly<Record<string, string | undefined>>;

const DEFAULT_SERVICE_NAME = 'obsync';
const UPPER: Record<Signal, string> = { traces: 'TRACES', metrics: 'METRICS', logs: 'LOGS' };

const httpUrl = z.url({ protocol: /^https?$/, error: 'expected an http:// or https:// URL' });
const protocol = z.enum(['http/protobuf', 'http/json'], {
  error: 'expected http/protobuf or http/json (grpc is not supported: use the OTLP/HTTP port, 4318)',
});
const millis = z.coerce.number({ error: 'expected a number of milliseconds' }).int().positive();
const compression = z.enum(['gzip', 'none'], { error: 'expected gzip or none' });
const exporterChoice = z.enum(['otlp', 'none'], { error: 'expected otlp or none' });
const disabled = z.stringbool({ error: 'expected true or false' });

/** `key1=value1,key2=value2`, values URL-encoded (the W3C Baggage format the specification uses). */
function keyValueList(name: string, raw: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const item of raw.split(',')) {
    if (item.trim() === '') continue;
    const at = item.indexOf('=');
    const key = at < 0 ? '' : item.slice(0, at).trim();
    if (key === '')
      throw new ConfigError(`${name}: each entry must be key=value; one has no key`, { hint: 'e.g. authorization=Bearer%20TOKEN' });
    try {
      setOwn(out, decodeURIComponent(key), decodeURIComponent(item.slice(at + 1).trim()));
    } catch {
      throw new ConfigError(`${name}: an entry is not valid percent-encoding (key ${JSON.stringify(key)})`);
    }
  }
  return out;
}

function parsed<T>(schema: z.ZodType<T>, name: string, raw: string | undefined): T | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  const result = schema.safeParse(raw.trim());
  if (result.success) return result.data;
  // The value itself is left out: a header or URL may carry a credential.
  throw new ConfigError(`${name}: ${result.error.issues[0]?.message ?? 'invalid value'}`, {
    hint: 'see docs/telemetry.md for the accepted values',
  });
}

function signalConfig(env: TelemetryEnv, signal: Signal, general: string | undefined): SignalConfig | undefined {
  const own = `OTEL_EXPORTER_OTLP_${UPPER[signal]}_`;
  if (parsed(exporterChoice, `OTEL_${UPPER[signal]}_EXPORTER`, env[`OTEL_${UPPER[signal]}_EXPORTER`]) === 'none') return undefined;
  const ownUrl = parsed(httpUrl, `${own}ENDPOINT`, env[`${own}ENDPOINT`]);
  const url = ownUrl ?? (general === undefined ? undefined : `${general.replace(/\/+$/, '')}/v1/${signal}`);
  if (url === undefined) return undefined;
  const headersName = env[`${own}HEADERS`] === undefined ? 'OTEL_EXPORTER_OTLP_HEADERS' : `${own}HEADERS`;
  return {
    url,
    protocol:
      parsed(protocol, `${own}PROTOCOL`, env[`${own}PROTOCOL`]) ??
      parsed(protocol, 'OTEL_EXPORTER_OTLP_PROTOCOL', env.OTEL_EXPORTER_OTLP_PROTOCOL) ??
      'http/protobuf',
    headers: keyValueList(headersName, env[headersName] ?? ''),
    timeoutMillis:
      parsed(millis, `${own}TIMEOUT`, env[`${own}TIMEOUT`]) ??
      parsed(millis, 'OTEL_EXPORTER_OTLP_TIMEOUT', env.OTEL_EXPORTER_OTLP_TIMEOUT) ??
      10_000,
    compression:
      parsed(compression, `${own}COMPRESSION`, env[`${own}COMPRESSION`]) ??
      parsed(compression, 'OTEL_EXPORTER_OTLP_COMPRESSION', env.OTEL_EXPORTER_OTLP_COMPRESSION) ??
      'none',
  };
}

/** The telemetry the environment asks for, or null when it asks for none. Throws ConfigError on a bad value. */
export function telemetryConfig(env: TelemetryEnv): TelemetryConfig | null {
  if (parsed(disabled, 'OTEL_SDK_DISABLED', env.OTEL_SDK_DISABLED) === true) return null;
  const general = parsed(httpUrl, 'OTEL_EXPORTER_OTLP_ENDPOINT', env.OTEL_EXPORTER_OTLP_ENDPOINT);
  const signals: Partial<Record<Signal, SignalConfig>> = {};
  for (const signal of SIGNALS) {
    const config = signalConfig(env, signal, general);
    if (config) setOwn(signals, signal, config);
  }
  if (Object.keys(signals).length === 0) return null;
  const resourceAttributes = keyValueList('OTEL_RESOURCE_ATTRIBUTES', env.OTEL_RESOURCE_ATTRIBUTES ?? '');
  const serviceName = env.OTEL_SERVICE_NAME?.trim() || resourceAttributes['service.name'] || DEFAULT_SERVICE_NAME;
  return {
    serviceName,
    resourceAttributes,
    signals,
    metricIntervalMillis: parsed(millis, 'OTEL_METRIC_EXPORT_INTERVAL', env.OTEL_METRIC_EXPORT_INTERVAL) ?? 60_000,
  };
}

/** The values of a configuration that are credentials: header values and URL user-info, for the scrubber. */
export function configSecrets(config: TelemetryConfig): string[] {
  const out: string[] = [];
  for (const signal of Object.values(config.signals)) {
    out.push(...Object.values(signal.headers));
    const url = new URL(signal.url);
    if (url.password) out.push(decodeURIComponent(url.password));
    if (url.username) out.push(decodeURIComponent(url.username));
  }
  return out;
}
