/**
 * The environment for npm run by a test as a user would run it: this machine's own settings (its CA
 * bundle, proxy, cache), without what npm and vitest put into the test process (npm_*, NODE_ENV,
 * VITEST*). Packages come from the npm cache first: the worktree's `npm ci` filled it.
 */
import { execFileSync } from 'node:child_process';

export function npmChildEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v === undefined || /^npm_/i.test(k) || /^VITEST/.test(k) || k === 'NODE_ENV') continue;
    env[k] = v;
  }
  Object.assign(env, {
    npm_config_prefer_offline: 'true',
    npm_config_update_notifier: 'false',
    npm_config_fund: 'false',
    npm_config_audit: 'false',
  });
  if (extra.npm_config_prefix !== undefined) {
    // A prefix of its own moves the global npmrc (which may hold the machine's cafile): keep the machine's.
    env.npm_config_globalconfig = execFileSync('npm', ['config', 'get', 'globalconfig'], { env }).toString().trim();
  }
  return { ...env, ...extra };
}
