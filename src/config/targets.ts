/**
 * Which target a command talks to, and with what (DESIGN §3). Precedence: flags > environment
 * (`OBSYNC_*`, `*_FILE` twins for secrets) > obsync.yaml > defaults. No target at all means the
 * embedded sandbox.
 */
import { ConfigError } from '../core/errors.js';
import { Secret } from '../core/secret.js';
import { DEFAULT_PATHS, VARIANT_RATE_LIMITS, type Pacing, type Target } from '../core/target.js';
import type { ObsyncConfig, TargetConfig } from './schema.js';

export type Env = Readonly<Record<string, string | undefined>>;

export interface EmbeddedTarget {
  name: string;
  api: 'hosted' | 'self-hosted';
  /** Relative to the config directory (or the working directory). */
  dataDir: string;
  concurrency: number;
}

export type ResolvedTarget = { kind: 'remote'; target: Target } | { kind: 'embedded'; embedded: EmbeddedTarget };

export interface ResolveInput {
  config: ObsyncConfig | undefined;
  /** --target */
  name: string | undefined;
  env: Env;
  readFile: (path: string) => string;
}

const DEFAULT_CONCURRENCY = 4;
const DEFAULT_TIMEOUT_S = 30;
const DEFAULT_RETRIES = 3;
export const EMBEDDED_NAME = 'sandbox';

export function resolveTarget(input: ResolveInput): ResolvedTarget {
  const { config, env } = input;
  const targets = config?.targets ?? [];
  const name = input.name ?? env.OBSYNC_TARGET ?? config?.defaults?.target ?? (targets.length === 1 ? targets[0]?.name : undefined);
  const concurrency = config?.defaults?.concurrency ?? DEFAULT_CONCURRENCY;
  if (name === undefined) {
    if (env.OBSYNC_BASE_URL) return { kind: 'remote', target: fromEnvOnly(input, concurrency) };
    if (targets.length > 1) throw new ConfigError(`obsync.yaml declares ${targets.length} targets (${targets.map((t) => t.name).join(', ')}); choose one with --target or defaults.target`);
    return { kind: 'embedded', embedded: { name: EMBEDDED_NAME, api: 'hosted', dataDir: '.obsync/sandbox', concurrency } };
  }
  const found = targets.find((t) => t.name === name);
  if (!found) {
    if (name === EMBEDDED_NAME) return { kind: 'embedded', embedded: { name, api: 'hosted', dataDir: '.obsync/sandbox', concurrency } };
    const known = targets.map((t) => t.name);
    throw new ConfigError(`unknown target '${name}'`, { hint: known.length > 0 ? `obsync.yaml declares: ${known.join(', ')}` : 'declare it under targets: in obsync.yaml' });
  }
  if (found.variant === 'sandbox') {
    return { kind: 'embedded', embedded: { name: found.name, api: found.api ?? 'hosted', dataDir: found.data ?? '.obsync/sandbox', concurrency: found.concurrency ?? concurrency } };
  }
  return { kind: 'remote', target: fromConfig(found, input, concurrency) };
}

function secretFrom(env: Env, key: string, readFile: (p: string) => string, fallback: string | undefined): Secret | undefined {
  const file = env[`${key}_FILE`];
  if (file) {
    try {
      return new Secret(readFile(file).trim());
    } catch (err) {
      throw new ConfigError(`${key}_FILE points to ${file}, which cannot be read`, { cause: err });
    }
  }
  const value = env[key] ?? fallback;
  return value ? new Secret(value) : undefined;
}

function pacingOf(t: TargetConfig, variant: 'hosted' | 'self-hosted'): Pacing {
  return t.rateLimit ? { limit: t.rateLimit.requests, windowMs: t.rateLimit.perSeconds * 1000 } : VARIANT_RATE_LIMITS[variant];
}

function checkUrl(url: string, target: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ConfigError(`target '${target}': baseUrl '${url}' is not a URL`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new ConfigError(`target '${target}': baseUrl must be http(s), not ${parsed.protocol}`);
  return url;
}

function missing(target: string, what: string, env: string): ConfigError {
  return new ConfigError(`target '${target}' has no ${what}`, { hint: `set ${env} (or ${env}_FILE), or credentials in obsync.yaml` });
}

function fromConfig(t: Exclude<TargetConfig, { variant: 'sandbox' }>, { env, readFile }: ResolveInput, concurrency: number): Target {
  const common = {
    name: t.name,
    baseUrl: checkUrl(env.OBSYNC_BASE_URL ?? t.baseUrl, t.name),
    concurrency: t.concurrency ?? concurrency,
    timeoutMs: (t.timeoutSeconds ?? DEFAULT_TIMEOUT_S) * 1000,
    retries: t.retries ?? DEFAULT_RETRIES,
    ...(t.maxWaitSeconds !== undefined ? { maxWaitMs: t.maxWaitSeconds * 1000 } : {}),
    ...(t.deadlineSeconds !== undefined ? { deadlineMs: t.deadlineSeconds * 1000 } : {}),
    embedded: false,
  };
  if (t.variant === 'self-hosted') {
    const apiKey = secretFrom(env, 'OBSYNC_API_KEY', readFile, t.credentials?.apiKey);
    if (!apiKey) throw missing(t.name, 'API key', 'OBSYNC_API_KEY');
    return { ...common, variant: 'self-hosted', apiKey, pacing: pacingOf(t, 'self-hosted') };
  }
  const keyId = env.OBSYNC_KEY_ID ?? t.credentials?.keyId;
  const keySecret = secretFrom(env, 'OBSYNC_KEY_SECRET', readFile, t.credentials?.keySecret);
  const keyIdFile = env.OBSYNC_KEY_ID_FILE ? readFile(env.OBSYNC_KEY_ID_FILE).trim() : undefined;
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
function fromEnvOnly(input: ResolveInput, concurrency: number): Target {
  const { env } = input;
  const hosted = env.OBSYNC_VARIANT === 'hosted' || (env.OBSYNC_VARIANT === undefined && (env.OBSYNC_KEY_ID !== undefined || env.OBSYNC_KEY_ID_FILE !== undefined));
  const base = { name: 'default', baseUrl: env.OBSYNC_BASE_URL ?? '' };
  if (hosted) {
    if (!env.OBSYNC_ORG_ID || !env.OBSYNC_SERVICE_ID) throw new ConfigError('a hosted target from the environment needs OBSYNC_ORG_ID and OBSYNC_SERVICE_ID');
    return fromConfig({ ...base, variant: 'hosted', organizationId: env.OBSYNC_ORG_ID, serviceId: env.OBSYNC_SERVICE_ID }, input, concurrency);
  }
  return fromConfig({ ...base, variant: 'self-hosted' }, input, concurrency);
}
