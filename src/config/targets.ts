/**
 * Which target a command talks to, and with what (DESIGN §3). Precedence: flags > environment
 * (`OBSYNC_*`, `*_FILE` twins for secrets) > obsync.yaml > defaults. No target at all means the
 * embedded sandbox.
 */
import { ConfigError } from '../core/errors.js';
import type { TargetConfig } from './target-schema.js';
import { fromConfig, fromEnvOnly } from './remote-target.js';
import { refuseSharedOverrides, refuseImplicitSandbox, refuseSharedSandboxData } from './target-refusals.js';
import { type Env, type ResolvedTarget, type ResolveInput, EMBEDDED_NAME, type ResolveManyInput } from './target-resolution.js';

const DEFAULT_CONCURRENCY = 4;

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
