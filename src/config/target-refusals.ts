/** Combinations of targets refused before any request: overrides shared by several targets, an implicit sandbox, shared sandbox data. */
import { ConfigError } from '../core/errors.js';
import { serviceCredentialsSet } from '../manifests/credentials.js';
import type { TargetConfig } from './target-schema.js';
import { readCredentialFile } from './remote-target.js';
import type { ResolvedTarget, ResolveManyInput } from './target-resolution.js';

/**
 * OBSYNC_BASE_URL and the other single-target overrides would give several targets one value:
 * two targets on one server, each with its own inventory, would fight over the same objects.
 * Refused when it changes any of them (a config that names the same variable everywhere is fine).
 */
export function refuseSharedOverrides(
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
export function refuseImplicitSandbox(input: ResolveManyInput, fallback: boolean): void {
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
export function refuseSharedSandboxData(resolved: readonly ResolvedTarget[]): void {
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
