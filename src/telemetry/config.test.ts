import { describe, expect, it } from 'vitest';
import { ConfigError } from '../core/errors.js';
import { configSecrets, telemetryConfig } from './config.js';

describe('telemetryConfig', () => {
  it('is off with no endpoint, or when OTEL_SDK_DISABLED is true', () => {
    expect(telemetryConfig({})).toBeNull();
    expect(telemetryConfig({ OTEL_SERVICE_NAME: 'x', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' })).toBeNull();
    expect(telemetryConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_SDK_DISABLED: 'true' })).toBeNull();
  });

  it('posts each signal to the endpoint + /v1/<signal>, a signal endpoint as given, and leaves out a signal set to none', () => {
    const config = telemetryConfig({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318/',
      OTEL_EXPORTER_OTLP_LOGS_ENDPOINT: 'http://127.0.0.1:9999/custom/logs',
      OTEL_EXPORTER_OTLP_LOGS_PROTOCOL: 'http/json',
      OTEL_METRICS_EXPORTER: 'none',
      OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer%20abc,x-team=ops',
      OTEL_RESOURCE_ATTRIBUTES: 'service.name=from-attrs,deployment.environment=prod',
    });
    expect(config?.signals.traces).toMatchObject({
      url: 'http://127.0.0.1:4318/v1/traces',
      protocol: 'http/protobuf',
      compression: 'none',
    });
    expect(config?.signals.logs).toMatchObject({ url: 'http://127.0.0.1:9999/custom/logs', protocol: 'http/json' });
    expect(config?.signals.metrics).toBeUndefined();
    expect(config?.signals.traces?.headers).toEqual({ authorization: 'Bearer abc', 'x-team': 'ops' });
    expect(config?.serviceName).toBe('from-attrs');
    expect(config && configSecrets(config)).toContain('Bearer abc');
  });

  it('refuses a bad value with a ConfigError naming the variable and never quoting its value', () => {
    const bad = (env: Record<string, string>, variable: string) => {
      let thrown: unknown;
      try {
        telemetryConfig(env);
      } catch (err) {
        thrown = err;
      }
      expect(thrown).toBeInstanceOf(ConfigError);
      expect((thrown as Error).message).toContain(variable);
      for (const value of Object.values(env)) if (value.length > 8) expect((thrown as Error).message).not.toContain(value);
    };
    bad({ OTEL_EXPORTER_OTLP_ENDPOINT: 'ftp://secret-host-token' }, 'OTEL_EXPORTER_OTLP_ENDPOINT');
    bad({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }, 'OTEL_EXPORTER_OTLP_PROTOCOL');
    bad(
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_EXPORTER_OTLP_HEADERS: '=secretvalue-xyz' },
      'OTEL_EXPORTER_OTLP_HEADERS',
    );
    bad({ OTEL_SDK_DISABLED: 'maybe' }, 'OTEL_SDK_DISABLED');
    bad({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_METRIC_EXPORT_INTERVAL: 'soon' }, 'OTEL_METRIC_EXPORT_INTERVAL');
  });
});
