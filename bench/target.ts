/** The target a bench process uses to reach a bench sandbox (its URL and credentials), without pacing unless asked. */
import { Secret } from '../src/core/secret.js';
import { DEFAULT_PATHS, type Pacing, type Target } from '../src/core/target.js';
import type { Variant } from '../src/core/ports.js';
import type { Credentials } from '../src/sandbox/http/handlers.js';

export const NO_PACING: Pacing = { limit: 0, windowMs: 1 };

export function benchTarget(variant: Variant, sandbox: { url: string; credentials: Credentials }, pacing: Pacing): Target {
  const common = { name: 'bench', baseUrl: sandbox.url, concurrency: 8, timeoutMs: 120_000, retries: 3, pacing, embedded: false };
  if (variant === 'hosted') {
    const c = sandbox.credentials;
    return {
      ...common,
      variant,
      organizationId: c.organizationId,
      serviceId: c.serviceId,
      keyId: c.keyId,
      keySecret: new Secret(c.keySecret),
      paths: DEFAULT_PATHS,
    };
  }
  return { ...common, variant, apiKey: new Secret(sandbox.credentials.apiKey) };
}
