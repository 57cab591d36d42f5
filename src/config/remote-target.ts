/** A remote service's Target, from its obsync.yaml entry or the environment alone (`OBSYNC_*`, `*_FILE` twins for secrets). */
import { ConfigError } from '../core/errors.js';
import { HTTP_URL, urlMessage, urlProblem } from './url-setting.js';
import { Secret } from '../core/secret.js';
import { DEFAULT_PATHS, VARIANT_RATE_LIMITS, type Pacing, type Target } from '../core/target.js';
import type { TargetConfig } from './target-schema.js';
import { unreadableReason } from '../manifests/files.js';
import { type Env, ENV_TARGET_NAME } from './target-resolution.js';

const DEFAULT_TIMEOUT_S = 30;

const DEFAULT_RETRIES = 3;

export function readCredentialFile(readFile: (p: string) => string, key: string, file: string): string {
  try {
    return readFile(file).trim();
  } catch (err) {
    throw new ConfigError(`${key}_FILE points to ${file}, which cannot be read: ${unreadableReason(err)}`, {
      hint: 'point it at a regular file holding the value (a mounted secret), of at most 1 MiB',
      cause: err,
    });
  }
}

function secretFrom(env: Env, key: string, readFile: (p: string) => string, fallback: string | undefined): Secret | undefined {
  const file = env[`${key}_FILE`];
  if (file) return new Secret(readCredentialFile(readFile, key, file));
  const value = env[key] ?? fallback;
  return value ? new Secret(value) : undefined;
}

function pacingOf(t: TargetConfig, variant: 'hosted' | 'self-hosted'): Pacing {
  return t.rateLimit ? { limit: t.rateLimit.requests, windowMs: t.rateLimit.perSeconds * 1000 } : VARIANT_RATE_LIMITS[variant];
}

/** obsync.yaml's baseUrl was checked where it is written (file:line); OBSYNC_BASE_URL, which overrides it, here. */
function checkUrl(url: string, target: string, from: 'OBSYNC_BASE_URL' | 'baseUrl'): string {
  const problem = urlProblem(url, HTTP_URL);
  if (problem !== undefined) throw new ConfigError(`target '${target}': ${urlMessage(from, HTTP_URL, 'https://api.example.com', problem)}`);
  return url;
}

function missing(target: string, what: string, env: string): ConfigError {
  return new ConfigError(`target '${target}' has no ${what}`, { hint: `set ${env} (or ${env}_FILE), or credentials in obsync.yaml` });
}

export function fromConfig(
  t: Exclude<TargetConfig, { variant: 'sandbox' }>,
  { env, readFile }: { env: Env; readFile: (p: string) => string },
  concurrency: number,
): Target {
  const common = {
    name: t.name,
    baseUrl: checkUrl(env.OBSYNC_BASE_URL ?? t.baseUrl, t.name, env.OBSYNC_BASE_URL === undefined ? 'baseUrl' : 'OBSYNC_BASE_URL'),
    concurrency: t.concurrency ?? concurrency,
    timeoutMs: (t.timeoutSeconds ?? DEFAULT_TIMEOUT_S) * 1000,
    retries: t.retries ?? DEFAULT_RETRIES,
    ...(t.maxWaitSeconds !== undefined ? { maxWaitMs: t.maxWaitSeconds * 1000 } : {}),
    ...(t.deadlineSeconds !== undefined ? { deadlineMs: t.deadlineSeconds * 1000 } : {}),
    ...(t.maxResponseMiB !== undefined ? { maxResponseBytes: Math.floor(t.maxResponseMiB * 1024 * 1024) } : {}),
    embedded: false,
  };
  if (t.variant === 'self-hosted') {
    const apiKey = secretFrom(env, 'OBSYNC_API_KEY', readFile, t.credentials?.apiKey);
    if (!apiKey) throw missing(t.name, 'API key', 'OBSYNC_API_KEY');
    return { ...common, variant: 'self-hosted', apiKey, pacing: pacingOf(t, 'self-hosted') };
  }
  const keyId = env.OBSYNC_KEY_ID ?? t.credentials?.keyId;
  const keySecret = secretFrom(env, 'OBSYNC_KEY_SECRET', readFile, t.credentials?.keySecret);
  const keyIdFile = env.OBSYNC_KEY_ID_FILE ? readCredentialFile(readFile, 'OBSYNC_KEY_ID', env.OBSYNC_KEY_ID_FILE) : undefined;
  const id = keyIdFile ?? keyId;
  if (!id) throw missing(t.name, 'key id', 'OBSYNC_KEY_ID');
  if (!keySecret) throw missing(t.name, 'key secret', 'OBSYNC_KEY_SECRET');
  return {
    ...common,
    variant: 'hosted',
    organizationId: env.OBSYNC_ORG_ID ?? t.organizationId,
    serviceId: env.OBSYNC_SERVICE_ID ?? t.serviceId,
    keyId: id,
    keySecret,
    paths: { observability: t.paths?.observability ?? DEFAULT_PATHS.observability, pipes: t.paths?.pipes ?? DEFAULT_PATHS.pipes },
    pacing: pacingOf(t, 'hosted'),
  };
}

/** OBSYNC_BASE_URL with no config target: the variant follows from the credentials given. */
export function fromEnvOnly(input: { env: Env; readFile: (p: string) => string }, concurrency: number): Target {
  const { env } = input;
  const hosted =
    env.OBSYNC_VARIANT === 'hosted' ||
    (env.OBSYNC_VARIANT === undefined && (env.OBSYNC_KEY_ID !== undefined || env.OBSYNC_KEY_ID_FILE !== undefined));
  const base = { name: ENV_TARGET_NAME, baseUrl: env.OBSYNC_BASE_URL ?? '' };
  if (hosted) {
    if (!env.OBSYNC_ORG_ID || !env.OBSYNC_SERVICE_ID)
      throw new ConfigError('a hosted target from the environment needs OBSYNC_ORG_ID and OBSYNC_SERVICE_ID');
    return fromConfig(
      { ...base, variant: 'hosted', organizationId: env.OBSYNC_ORG_ID, serviceId: env.OBSYNC_SERVICE_ID },
      input,
      concurrency,
    );
  }
  return fromConfig({ ...base, variant: 'self-hosted' }, input, concurrency);
}
