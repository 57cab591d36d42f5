/** Glue from the CLI to config, manifests, targets, the remote client and the embedded sandbox. */
import type { Mark } from '../kinds/mark.js';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { formatDiagnostic, hasErrors, type Diagnostic } from '../core/diagnostics.js';
import { ConfigError } from '../core/errors.js';
import type { WriteFence } from '../core/fence.js';
import type { ServicePort } from '../core/ports.js';
import type { Variant } from '../core/ports.js';
import { VARIANT_RATE_LIMITS, printableBaseUrl, type Target, type TargetIdentity } from '../core/target.js';
import { loadConfig, type LoadConfigOptions } from '../config/load.js';
import type { DeclaredTarget } from '../config/declared-targets.js';
import type { DeclaredService } from '../config/services.js';
import type { ObsyncConfig } from '../config/schema.js';
import { chooseTargets, resolveTargets } from '../config/targets.js';
import type { EmbeddedTarget, ResolvedTarget } from '../config/target-resolution.js';
import type { Logger } from '../log/logger.js';
import type { Telemetry } from '../telemetry/api.js';
import type { SensitiveValue } from '../manifests/carried.js';
import { credentialValues } from '../manifests/credentials.js';
import { readRegularFile } from '../manifests/files.js';
import { createServicePort, type PortOptions } from '../remote/index.js';
import type { WaitReport } from '../remote/transport-types.js';
import { startSandbox } from '../sandbox/index.js';
import { sandboxTarget } from '../sandbox/target.js';
import { proxyFromEnv } from './network.js';
import { projectPaths } from './project-paths.js';

export interface ReadConfigOptions {
  allowFileOutside?: boolean | undefined;
  /** Targets whose settings and credentials are resolved (default: every declared target). */
  select?: LoadConfigOptions['select'];
  allTrees?: boolean;
  /** Several targets: one whose own settings cannot be resolved fails alone (see `failed`). */
  isolateTargets?: boolean;
  /** The project: the problems name obsync.yaml relative to it, as every output does (./project-paths.ts). */
  cwd?: string;
}

export interface ReadConfig {
  config: ObsyncConfig;
  declared: DeclaredTarget[];
  /** The service each declared target writes to, as far as can be told (one service, one owner). */
  services: ReadonlyMap<string, DeclaredService>;
  /** Credentials and sensitive values obsync.yaml and the environment put in play (no manifest field may carry one). */
  sensitive: SensitiveValue[];
  /** Targets left out because their own settings have errors (with `isolateTargets`). */
  failed: { target: string; error: ConfigError }[];
}

/** obsync.yaml, or a ConfigError listing every problem with its position. */
export function readConfig(path: string, env: Readonly<Record<string, string | undefined>>, opts: ReadConfigOptions = {}): ReadConfig {
  const loaded = loadConfig(path, env, {
    allowFileOutside: opts.allowFileOutside === true,
    ...(opts.select ? { select: opts.select } : {}),
    ...(opts.allTrees ? { allTrees: true } : {}),
    ...(opts.isolateTargets ? { isolateTargets: true } : {}),
  });
  const shown = opts.cwd === undefined ? undefined : projectPaths(opts.cwd);
  const listed = (ds: readonly Diagnostic[]) => ds.map((d) => `  ${formatDiagnostic(shown ? shown.diagnostic(d) : d)}`).join('\n');
  const file = shown ? shown.file(path) : path;
  if (hasErrors(loaded.diagnostics) || !loaded.config) {
    throw new ConfigError(`${file} is invalid:\n${listed(loaded.diagnostics)}`);
  }
  const failed = (loaded.failedTargets ?? []).map((f) => ({
    target: f.name,
    error: new ConfigError(`its settings in ${file} cannot be resolved:\n${listed(f.diagnostics)}`, {
      hint: 'set the variables it names (or plan the other targets with --target)',
    }),
  }));
  return { config: loaded.config, declared: loaded.declared, services: loaded.services ?? new Map(), failed, sensitive: loaded.sensitive };
}

/** obsync.yaml (if any) with the targets the command uses resolved, and only those. */
export interface Project {
  configPath: string | undefined;
  config: ObsyncConfig | undefined;
  declared: readonly DeclaredTarget[];
  /** The service each declared target writes to, as far as can be told (one service, one owner). */
  services: ReadonlyMap<string, DeclaredService>;
  /** The directory of obsync.yaml, else the working directory. */
  baseDir: string;
  targets: ResolvedTarget[];
  /** Credentials and sensitive values in play (obsync.yaml's and the environment's), for the manifests' credential rule. */
  sensitive: SensitiveValue[];
  /** Selected targets that could not be resolved, each with why (with `isolateTargets`). */
  unavailable: { target: string; error: ConfigError }[];
}

export function openProject(input: {
  configPath: string | undefined;
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
  targets: readonly string[];
  allowFileOutside?: boolean | undefined;
  isolateTargets?: boolean | undefined;
  /** false: no undeclared embedded sandbox (obsync run). */
  implicitSandbox?: boolean | undefined;
}): Project {
  const { configPath, env } = input;
  let chosen: string[] = [];
  const select = (declared: readonly string[], defaultTarget: string | undefined) =>
    (chosen = chooseTargets(declared, input.targets, env, defaultTarget));
  const read = configPath
    ? readConfig(configPath, env, {
        allowFileOutside: input.allowFileOutside,
        select,
        isolateTargets: input.isolateTargets === true,
        cwd: input.cwd,
      })
    : undefined;
  if (!read) select([], undefined);
  const config = read?.config;
  const unavailable = read?.failed ?? [];
  const usable = chosen.filter((name) => !unavailable.some((u) => u.target === name));
  const targets = resolveTargets({
    config,
    chosen: usable,
    env,
    readFile: (p) => readRegularFile(p),
    ...(input.implicitSandbox === undefined ? {} : { implicitSandbox: input.implicitSandbox }),
    configName: configPath ?? `obsync.yaml (none found in ${input.cwd})`,
  });
  return {
    configPath,
    config,
    declared: read?.declared ?? [],
    services: read?.services ?? new Map(),
    baseDir: configPath ? dirname(configPath) : input.cwd,
    targets,
    sensitive: read?.sensitive ?? credentialValues(env),
    unavailable,
  };
}

export function targetName(resolved: ResolvedTarget): string {
  return resolved.kind === 'remote' ? resolved.target.name : resolved.embedded.name;
}

/** The API a resolved target speaks (an embedded sandbox: the one it simulates). */
export function targetApi(resolved: ResolvedTarget): Variant {
  return resolved.kind === 'remote' ? resolved.target.variant : resolved.embedded.api;
}

export interface Connection {
  port: ServicePort;
  /** Which service the port writes to (recorded in plans). */
  identity: TargetIdentity;
  close(): Promise<void>;
}

export interface ConnectInput {
  resolved: ResolvedTarget;
  /** The target is declared in obsync.yaml (an embedded sandbox says which target it serves). */
  declared: boolean;
  env: Readonly<Record<string, string | undefined>>;
  baseDir: string;
  /** The file state directory: an embedded sandbox without `data:` keeps its data below it. */
  stateDir: string;
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
  /** The gate of every write to the target: the run's writer lease, or UNFENCED outside a run. */
  fence: WriteFence;
  /** The target's "managed in Git" mark (obsync.yaml `mark`): added to what is sent, out of what is read. */
  mark?: Mark | undefined;
  /** obsync's telemetry: a span per request to the target. */
  telemetry?: Telemetry | undefined;
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
    ...(input.mark ? { mark: input.mark } : {}),
    ...(input.progress ? { progress: input.progress } : {}),
    ...(input.telemetry?.enabled ? { telemetry: input.telemetry } : {}),
    fence: input.fence,
  };
}

export async function connectTarget(input: ConnectInput): Promise<Connection> {
  const { resolved } = input;
  if (resolved.kind === 'remote') {
    const target: Target = input.timeoutMs === undefined ? resolved.target : { ...resolved.target, timeoutMs: input.timeoutMs };
    const port = createServicePort(target, portOptions(target, input));
    return { port, identity: identityOf(target, printableBaseUrl(target.baseUrl)), close: () => port.close() };
  }
  return connectEmbedded(resolved.embedded, input);
}

function identityOf(target: Target, baseUrl: string): TargetIdentity {
  const where = target.variant === 'hosted' ? { organizationId: target.organizationId, serviceId: target.serviceId } : {};
  return { name: target.name, variant: target.variant, baseUrl, ...where };
}

/** `data:` relative to obsync.yaml when given; else `<state dir>/embedded/<target>` (never the working directory). */
export function sandboxDataDir(embedded: EmbeddedTarget, at: { baseDir: string; stateDir: string }): string {
  if (embedded.dataDir === undefined) return join(at.stateDir, 'embedded', embedded.name);
  return isAbsolute(embedded.dataDir) ? embedded.dataDir : resolve(at.baseDir, embedded.dataDir);
}

/** The embedded sandbox: the simulator on a random loopback port, reached through the real client. */
async function connectEmbedded(embedded: EmbeddedTarget, input: ConnectInput): Promise<Connection> {
  const dataDir = sandboxDataDir(embedded, input);
  let sandbox: Awaited<ReturnType<typeof startSandbox>>;
  try {
    sandbox = await startSandbox({ host: '127.0.0.1', port: 0, dataDir, seed: 'demo', rateLimit: 'off' });
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (code === 'EACCES' || code === 'EROFS' || code === 'EPERM' || code === 'ENOTDIR')
      throw new ConfigError(`the embedded sandbox '${embedded.name}' cannot keep its data in ${dataDir} (${String(code)})`, {
        hint: 'set OBSYNC_STATE_DIR (or state.path in obsync.yaml) to a writable directory, or give the target its own data: directory',
        cause: err,
      });
    throw err;
  }
  input.announce(
    input.declared
      ? `obsync: target '${embedded.name}' is the embedded sandbox (${embedded.api} API, data in ${dataDir})`
      : `obsync: no target configured — using the embedded sandbox (${embedded.api} API, data in ${dataDir})`,
  );
  const target = sandboxTarget(embedded.api, sandbox, {
    name: embedded.name,
    concurrency: embedded.concurrency,
    timeoutMs: input.timeoutMs ?? 30_000,
    retries: 3,
    pacing: { ...VARIANT_RATE_LIMITS[embedded.api], limit: 0 },
    embedded: true,
  });
  const port = createServicePort(target, portOptions(target, input));
  return {
    port,
    // Its port changes with every start; its data directory is what makes it the same sandbox.
    identity: identityOf(target, `embedded sandbox (data in ${dataDir})`),
    async close() {
      await port.close();
      await sandbox.close();
    },
  };
}
