/**
 * obsync's own telemetry (issue 45, docs/telemetry.md). `startTelemetry(env, …)` reads the standard
 * OTEL_* variables from the record it is given (the CLI passes process.env): with none set it
 * returns NO_TELEMETRY and loads nothing else; configured, it imports the SDK set-up (./sdk.ts)
 * dynamically. A credential in the configuration (header values, URL user-info) is registered with
 * the scrubber before anything can print it.
 */
import { registerSecret } from '../core/scrub.js';
import { NO_TELEMETRY, type Telemetry } from './api.js';
import { configSecrets, telemetryConfig, type TelemetryEnv } from './config.js';
import type { PromRegistry } from './prom-producer.js';

export type { Attributes, AttributeValue, LineDestination, SpanHandle, Telemetry } from './api.js';
export { NO_TELEMETRY } from './api.js';
export { ATTR, SPAN } from './names.js';
export type { TelemetryEnv } from './config.js';

export interface TelemetryOptions {
  /** obsync's version: the resource's service.version and the tracer's. */
  version: string;
  /** The daemon's prom-client registry (DaemonMetrics.registry), also exported over OTLP; absent: no metrics. */
  promRegistry?: PromRegistry;
}

/** Throws ConfigError (naming the variable, never its value) when a variable is malformed. */
export async function startTelemetry(env: TelemetryEnv, options: TelemetryOptions): Promise<Telemetry> {
  const config = telemetryConfig(env);
  if (config === null) return NO_TELEMETRY;
  for (const secret of configSecrets(config)) registerSecret(secret);
  const { startSdk } = await import('./sdk.js');
  return startSdk(config, options);
}
