/** Glue from the CLI to config, manifests, targets, the remote client and the embedded sandbox. */
import { readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import type { Diagnostic } from '../core/diagnostics.js';
import { formatDiagnostic, hasErrors } from '../core/diagnostics.js';
import { ConfigError } from '../core/errors.js';
import type { ServicePort } from '../core/ports.js';
import type { DesiredResource } from '../core/resource.js';
import { Secret } from '../core/secret.js';
import { VARIANT_RATE_LIMITS, DEFAULT_PATHS, type Target } from '../core/target.js';
import { loadConfig } from '../config/load.js';
import type { ObsyncConfig } from '../config/schema.js';
import { resolveTarget, type EmbeddedTarget } from '../config/targets.js';
import type { Logger } from '../log/logger.js';
import type { FileScope } from '../manifests/files.js';
import { loadManifests } from '../manifests/load.js';
import { createServicePort, type PortOptions } from '../remote/index.js';
import type { WaitReport } from '../remote/transport.js';
import { startSandbox } from '../sandbox/index.js';
import { proxyFromEnv } from './network.js';

export function readConfig(path: string, env: Readonly<Record<string, string | undefined>>, allowFileOutside = false): ObsyncConfig {
  const loaded = loadConfig(path, env, { allowFileOutside });
  if (hasErrors(loaded.diagnostics) || !loaded.config) {
    throw new ConfigError(`${path} is invalid:\n${loaded.diagnostics.map((d) => `  ${formatDiagnostic(d)}`).join('\n')}`);
  }
  return loaded.config;
}

export function loadDesiredState(paths: readonly string[], env: Readonly<Record<string, string | undefined>>, allowMissingEnv: boolean, files: FileScope): { desired: DesiredResource[]; diagnostics: Diagnostic[] } {
  const { resources, diagnostics } = loadManifests(paths, { env, allowMissingEnv, files });
  return { desired: resources, diagnostics };
}

export interface Connection {
  port: ServicePort;
  close(): Promise<void>;
}

export interface ConnectInput {
  config: ObsyncConfig | undefined;
  name: string | undefined;
  env: Readonly<Record<string, string | undefined>>;
  baseDir: string;
  logger: Logger;
  announce: (line: string) => void;
  /** Every HTTP response (status 0: none) to the target, e.g. for the daemon's request counter. */
  onResponse?: ((target: string, method: string, status: number) => void) | undefined;
  /** --timeout: the deadline of each request, over the target's own setting. */
  timeoutMs?: number | undefined;
  /** Every wait over 2 s: a progress line (CLI) or an info log (daemon). */
  onWait?: ((target: string, wait: WaitReport) => void) | undefined;
  /** Retries and slow requests: a terminal's progress line. */
  progress?: PortOptions['progress'];
}

function portOptions(target: Target, input: ConnectInput): PortOptions {
  const { onResponse, onWait } = input;
  // The embedded sandbox is in-process on loopback: never through a proxy.
  const proxy = target.embedded ? undefined : proxyFromEnv(input.env);
  return {
    logger: input.logger,
    ...(onResponse ? { onResponse: (method: string, status: number) => onResponse(target.name, method, status) } : {}),
    ...(onWait ? { onWait: (wait: WaitReport) => onWait(target.name, wait) } : {}),
    ...(proxy ? { proxy } : {}),
    ...(input.progress ? { progress: input.progress } : {}),
  };
}

export async function connectTarget(input: ConnectInput): Promise<Connection> {
  const resolved = resolveTarget({ config: input.config, name: input.name, env: input.env, readFile: (p) => readFileSync(p, 'utf8') });
  if (resolved.kind === 'remote') {
    const target: Target = input.timeoutMs === undefined ? resolved.target : { ...resolved.target, timeoutMs: input.timeoutMs };
    const port = createServicePort(target, portOptions(target, input));
    return { port, close: () => port.close() };
  }
  return connectEmbedded(resolved.embedded, input);
}

/** The embedded sandbox: the simulator on a random loopback port, reached through the real client. */
async function connectEmbedded(embedded: EmbeddedTarget, input: ConnectInput): Promise<Connection> {
  const dataDir = isAbsolute(embedded.dataDir) ? embedded.dataDir : resolve(input.baseDir, embedded.dataDir);
  const sandbox = await startSandbox({ host: '127.0.0.1', port: 0, dataDir, seed: 'demo', rateLimit: 'off' });
  input.announce(`obsync: no target configured — using the embedded sandbox (${embedded.api} API, data in ${dataDir})`);
  const common = { name: embedded.name, baseUrl: sandbox.url, concurrency: embedded.concurrency, timeoutMs: input.timeoutMs ?? 30_000, retries: 3, embedded: true };
  const c = sandbox.credentials;
  const target: Target =
    embedded.api === 'hosted'
      ? {
          ...common,
          variant: 'hosted',
          organizationId: c.organizationId,
          serviceId: c.serviceId,
          keyId: c.keyId,
          keySecret: new Secret(c.keySecret),
          paths: { ...DEFAULT_PATHS },
          pacing: { ...VARIANT_RATE_LIMITS.hosted, limit: 0 },
        }
      : { ...common, variant: 'self-hosted', apiKey: new Secret(c.apiKey), pacing: { ...VARIANT_RATE_LIMITS['self-hosted'], limit: 0 } };
  const port = createServicePort(target, portOptions(target, input));
  return {
    port,
    async close() {
      await port.close();
      await sandbox.close();
    },
  };
}
