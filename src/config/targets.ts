/**
 * Which target a command talks to, and with what (DESIGN §3). Precedence: flags > environment
 * (`OBSYNC_*`, `*_FILE` twins for secrets) > obsync.yaml > defaults. No target at all means the
 * embedded sandbox.
 */
import { ConfigError } from '../core/errors.js';
import { HTTP_URL, urlMessage, urlProblem } from './url-setting.js';
import { Secret } from '../core/secret.js';
import { DEFAULT_PATHS, VARIANT_RATE_LIMITS, type Pacing, type Target } from '../core/target.js';
import { serviceCredentialsSet } from '../manifests/credentials.js';
import type { ObsyncConfig } from './schema.js';
import type { TargetConfig } from './target-schema.js';
import { unreadableReason } from '../manifests/files.js';

export type Env = Readonly<Record<string, string | undefined>>;

export interface EmbeddedTarget {
  name: string;
  api: 'hosted' | 'self-hosted';
  /** Relative to the config directory (or the working directory); absent: under the state directory. */
  dataDir?: string;
  concurrency: number;
}

export type ResolvedTarget = { kind: 'remote'; target: Target } | { kind: 'embedded'; embedded: EmbeddedTarget };

export interface ResolveInput {
  /** Its `targets` resolved for (at least) the one named. */
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
/** The name of the target OBSYNC_BASE_URL defines when obsync.yaml declares none. */
export const ENV_TARGET_NAME = 'default';

/**
 * Which declared targets a command uses (DESIGN §3): every `--target` given, else
 * OBSYNC_TARGET, else `defaults.target`, else every declared target. `sandbox` (the embedded
 * simulator) may be named without being declared. Empty: no target declared (the environment's
 * target, or the embedded sandbox). Throws for a name that is not declared.
 */
export function chooseTargets(
  declared: readonly string[],
  flags: readonly string[],
  env: Env,
  defaultTarget: string | undefined,
): string[] {
  const asked =
    flags.length > 0 ? [...new Set(flags)] : env.OBSYNC_TARGET ? [env.OBSYNC_TARGET] : defaultTarget ? [defaultTarget] : [...declared];
  const unknown = asked.filter((name) => !declared.includes(name) && name !== EMBEDDED_NAME);
  if (unknown.length > 0) {
    const hint = declared.length > 0 ? `obsync.yaml declares: ${declared.join(', ')}` : 'declare it under targets: in obsync.yaml';
    throw new ConfigError(`unknown target${unknown.length > 1 ? 's' : ''} ${unknown.map((n) => `'${n}'`).join(', ')}`, { hint });
  }
  return asked;
}

export interface ResolveManyInput {
  /** The config, its `targets` resolved for (at least) the chosen names. */
  config: ObsyncConfig | undefined;
  /** From `chooseTargets`. */
  chosen: readonly string[];
  env: Env;
  readFile: (path: string) => string;
  /**
   * Whether an undeclared embedded sandbox may stand in (no target at all, or `--target sandbox`
   * without declaring it): not for `obsync run`, which reconciles only what the config names.
   */
  implicitSandbox?: boolean;
  /** obsync.yaml as the messages name it (its path, or where none was found). */
  configName?: string;
}

/** The chosen targets, ready to connect: settings and credentials resolved for these only. */
export function resolveTargets(input: ResolveManyInput): ResolvedTarget[] {
  const { config, env } = input;
  const concurrency = config?.defaults?.concurrency ?? DEFAULT_CONCURRENCY;
  if (input.chosen.length === 0) {
    if (env.OBSYNC_BASE_URL) return [{ kind: 'remote', target: fromEnvOnly(input, concurrency) }];
    refuseImplicitSandbox(input, true);
    return [{ kind: 'embedded', embedded: { name: EMBEDDED_NAME, api: 'hosted', concurrency } }];
  }
  const configs = input.chosen.map((name) => config?.targets?.find((t) => t.name === name) ?? name);
  const remote = configs.filter(
    (c): c is Exclude<TargetConfig, { variant: 'sandbox' }> => typeof c !== 'string' && c.variant !== 'sandbox',
  );
  if (remote.length > 1) refuseSharedOverrides(remote, input);
  const resolved = configs.map((c): ResolvedTarget => {
    if (typeof c === 'string') {
      refuseImplicitSandbox(input, false);
      return { kind: 'embedded', embedded: { name: c, api: 'hosted', concurrency } };
    }
    if (c.variant === 'sandbox')
      return {
        kind: 'embedded',
        embedded: {
          name: c.name,
          api: c.api ?? 'hosted',
          ...(c.data === undefined ? {} : { dataDir: c.data }),
          concurrency: c.concurrency ?? concurrency,
        },
      };
    return { kind: 'remote', target: fromConfig(c, input, concurrency) };
  });
  refuseSharedSandboxData(resolved);
  return resolved;
}

/** One target, for the commands that talk to exactly one (keys, query): several chosen is an error. */
export function resolveTarget(input: ResolveInput): ResolvedTarget {
  const declared = input.config?.targets?.map((t) => t.name) ?? [];
  const chosen = chooseTargets(declared, input.name === undefined ? [] : [input.name], input.env, input.config?.defaults?.target);
  if (chosen.length > 1)
    throw new ConfigError(
      `obsync.yaml declares ${chosen.length} targets (${chosen.join(', ')}); choose one with --target or defaults.target`,
    );
  const [only] = resolveTargets({ config: input.config, chosen, env: input.env, readFile: input.readFile });
  if (!only) throw new ConfigError('no target');
  return only;
}

/**
 * OBSYNC_BASE_URL and the other single-target overrides would give several targets one value:
 * two targets on one server, each with its own inventory, would fight over the same objects.
 * Refused when it changes any of them (a config that names the same variable everywhere is fine).
 */
function refuseSharedOverrides(
  targets: readonly Exclude<TargetConfig, { variant: 'sandbox' }>[],
  { env, readFile }: ResolveManyInput,
): void {
  const hosted = targets.filter((t) => t.variant === 'hosted');
  const selfHosted = targets.filter((t) => t.variant === 'self-hosted');
  const fromFile = (name: string) => {
    const file = env[`${name}_FILE`];
    return file ? readCredentialFile(readFile, name, file) : env[name];
  };
  const overrides: {
    variable: string;
    value: string | undefined;
    applies: readonly TargetConfig[];
    configured: (t: TargetConfig) => string | undefined;
  }[] = [
    {
      variable: 'OBSYNC_BASE_URL',
      value: env.OBSYNC_BASE_URL,
      applies: targets,
      configured: (t) => (t.variant === 'sandbox' ? undefined : t.baseUrl),
    },
    {
      variable: 'OBSYNC_ORG_ID',
      value: env.OBSYNC_ORG_ID,
      applies: hosted,
      configured: (t) => (t.variant === 'hosted' ? t.organizationId : undefined),
    },
    {
      variable: 'OBSYNC_SERVICE_ID',
      value: env.OBSYNC_SERVICE_ID,
      applies: hosted,
      configured: (t) => (t.variant === 'hosted' ? t.serviceId : undefined),
    },
    {
      variable: 'OBSYNC_KEY_ID',
      value: fromFile('OBSYNC_KEY_ID'),
      applies: hosted,
      configured: (t) => (t.variant === 'hosted' ? t.credentials?.keyId : undefined),
    },
    {
      variable: 'OBSYNC_KEY_SECRET',
      value: fromFile('OBSYNC_KEY_SECRET'),
      applies: hosted,
      configured: (t) => (t.variant === 'hosted' ? t.credentials?.keySecret : undefined),
    },
    {
      variable: 'OBSYNC_API_KEY',
      value: fromFile('OBSYNC_API_KEY'),
      applies: selfHosted,
      configured: (t) => (t.variant === 'self-hosted' ? t.credentials?.apiKey : undefined),
    },
  ];
  for (const o of overrides) {
    if (o.value === undefined || o.applies.length < 2 || o.applies.every((t) => o.configured(t) === o.value)) continue;
    const names = o.applies.map((t) => `'${t.name}'`).join(', ');
    throw new ConfigError(`${o.variable} (or ${o.variable}_FILE) would override the setting of several targets at once (${names})`, {
      hint:
        `give each target its own value in obsync.yaml (e.g. "\${env:STAGING_${o.variable.replace(/^OBSYNC_/, '')}}") and unset ` +
        `${o.variable}, or choose one target with --target`,
    });
  }
}

/**
 * Never a silent simulator (DESIGN §3): no fallback to the embedded sandbox while a credential
 * variable says a real service is meant (`fallback`: no target at all), and none for `obsync run`
 * unless obsync.yaml names a `variant: sandbox` target.
 */
function refuseImplicitSandbox(input: ResolveManyInput, fallback: boolean): void {
  const config = input.configName ?? 'obsync.yaml';
  const credentials = fallback ? serviceCredentialsSet(input.env) : [];
  if (credentials.length > 0)
    throw new ConfigError(
      `${credentials.join(', ')} ${credentials.length > 1 ? 'are' : 'is'} set, but no target is configured: obsync does not fall ` +
        `back to the embedded sandbox while a credential is set`,
      {
        hint:
          `set OBSYNC_BASE_URL to the service's base URL (OBSYNC_VARIANT, OBSYNC_ORG_ID, OBSYNC_SERVICE_ID as needed), or ` +
          `declare the target in ${config}; to try the embedded sandbox, unset ${credentials.join(', ')}`,
      },
    );
  if (input.implicitSandbox === false)
    throw new ConfigError(
      'obsync run has no target: it reconciles only a service that is configured, never the embedded sandbox by default',
      {
        hint:
          `set OBSYNC_BASE_URL (with OBSYNC_API_KEY, or OBSYNC_KEY_ID and OBSYNC_KEY_SECRET), or declare targets in ${config}; ` +
          `to run against the simulator, declare a target with variant: sandbox there`,
      },
    );
}

/** Two embedded sandboxes on one data directory would overwrite each other's data (each has its own by default). */
function refuseSharedSandboxData(resolved: readonly ResolvedTarget[]): void {
  const byDir = new Map<string, string>();
  for (const r of resolved) {
    if (r.kind !== 'embedded' || r.embedded.dataDir === undefined) continue;
    const other = byDir.get(r.embedded.dataDir);
    if (other !== undefined)
      throw new ConfigError(
        `targets '${other}' and '${r.embedded.name}' are embedded sandboxes with the same data directory ${r.embedded.dataDir}`,
        { hint: 'give each its own data: in obsync.yaml' },
      );
    byDir.set(r.embedded.dataDir, r.embedded.name);
  }
}

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

function fromConfig(
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
function fromEnvOnly(input: { env: Env; readFile: (p: string) => string }, concurrency: number): Target {
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
