/** The target a bench process uses to reach a bench sandbox (its URL and credentials), without pacing unless asked. */
import type { Pacing, Target } from '../src/core/target.js';
import type { Variant } from '../src/core/ports.js';
import type { Credentials } from '../src/sandbox/http/handlers.js';
import { sandboxTarget } from '../src/sandbox/target.js';

export const NO_PACING: Pacing = { limit: 0, windowMs: 1 };

export function benchTarget(variant: Variant, sandbox: { url: string; credentials: Credentials }, pacing: Pacing): Target {
  return sandboxTarget(variant, sandbox, { name: 'bench', concurrency: 8, timeoutMs: 120_000, retries: 3, pacing, embedded: false });
}
