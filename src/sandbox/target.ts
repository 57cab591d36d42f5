/** The target that reaches a sandbox with the sandbox's own credentials: the embedded target, the bench's and the tests'. */
import { Secret } from '../core/secret.js';
import { DEFAULT_PATHS, type HostedTarget, type Pacing, type Target } from '../core/target.js';
import type { Variant } from '../core/ports.js';
import type { Credentials } from './http/handlers.js';

export interface SandboxTargetSettings {
  name: string;
  concurrency: number;
  timeoutMs: number;
  retries: number;
  pacing: Pacing;
  embedded: boolean;
  /** Hosted path segments (default: ClickHouse Cloud's). */
  paths?: HostedTarget['paths'];
}

export function sandboxTarget(
  variant: Variant,
  sandbox: { url: string; credentials: Credentials },
  settings: SandboxTargetSettings,
): Target {
  const { paths, ...rest } = settings;
  const c = sandbox.credentials;
  const common = { ...rest, baseUrl: sandbox.url };
  return variant === 'hosted'
    ? {
        ...common,
        variant,
        organizationId: c.organizationId,
        serviceId: c.serviceId,
        keyId: c.keyId,
        keySecret: new Secret(c.keySecret),
        paths: { ...(paths ?? DEFAULT_PATHS) },
      }
    : { ...common, variant, apiKey: new Secret(c.apiKey) };
}
