/**
 * A target's write-back settings as the daemon uses them: its `drift:` and `writeBack:` laid over
 * those of `defaults` (field by field; `author` and `forge` too), completed with the defaults,
 * and the forge token held as a `Secret` (so the one scrubber masks it everywhere). The token
 * comes from `writeBack.forge.token` (usually `${env:…}`), else OBSYNC_FORGE_TOKEN or the file
 * OBSYNC_FORGE_TOKEN_FILE names. `writeBackProblems` gives obsync.yaml's errors with their positions.
 */
import { isAbsolute, join, resolve } from 'node:path';
import type { Document, LineCounter } from 'yaml';
import type { Diagnostic } from '../core/diagnostics.js';
import { formatPath } from '../core/diagnostics.js';
import { durationMs } from '../core/duration.js';
import { ConfigError } from '../core/errors.js';
import { Secret } from '../core/secret.js';
import { positionAt } from '../manifests/positions.js';
import { readCredentialFile } from './remote-target.js';
import type { Env } from './target-resolution.js';
import { type DriftMode, type ForgeType, type WriteBackConfig } from './write-back-schema.js';

export const FORGE_TOKEN_VARIABLE = 'OBSYNC_FORGE_TOKEN';

const DEFAULT_API_URL: Record<Exclude<ForgeType, 'none'>, string> = {
  github: 'https://api.github.com',
  gitlab: 'https://gitlab.com/api/v4',
};

export interface Forge {
  type: ForgeType;
  /** Set for github and gitlab. */
  apiUrl: string;
  /** OWNER/NAME (GitLab: the project path); set for github and gitlab. */
  project: string;
  token: Secret | undefined;
}

export interface WriteBackSettings {
  target: string;
  repository: string;
  /** The base branch. */
  branch: string;
  /** The directory of the repository that holds `localRoot` ('' for its root). */
  path: string;
  author: { name: string; email: string };
  forge: Forge;
  /** obsync's own branch for this target's proposals. */
  proposalBranch: string;
  /** obsync's own clone (under the state directory: a read-only manifests volume is never written). */
  cloneDir: string;
  /** The local directory `path` stands for: the directory of obsync.yaml. */
  localRoot: string;
  /** A proposal open longer falls back to revert (undefined: never). */
  proposalMaxAgeMs?: number | undefined;
  /** The selector of objects made on the service that are proposed as new manifests (undefined: none). */
  include?: string | undefined;
}

interface Layer {
  drift?: DriftMode | undefined;
  writeBack?: WriteBackConfig | undefined;
}

/** The one branch a target's proposals live on. Target names are lowercase letters, digits and "-": always a valid ref. */
export function proposalBranch(target: string): string {
  return `obsync/propose/${target}`;
}

/** `drift:` of a target, else of defaults; undefined: as the daemon's --mode says (revert in apply mode, report in plan mode). */
export function effectiveDrift(target: Layer, defaults: Layer | undefined): DriftMode | undefined {
  return target.drift ?? defaults?.drift;
}

/** The target's writeBack over the defaults', field by field. */
export function mergedWriteBack(target: Layer, defaults: Layer | undefined): WriteBackConfig {
  const base = defaults?.writeBack ?? {};
  const own = target.writeBack ?? {};
  const author = { ...base.author, ...own.author };
  const forge = { ...base.forge, ...own.forge };
  return {
    ...base,
    ...own,
    ...(Object.keys(author).length > 0 ? { author } : {}),
    ...(Object.keys(forge).length > 0 ? { forge } : {}),
  };
}

export interface ResolveWriteBackInput {
  target: Layer & { name: string };
  defaults: Layer | undefined;
  env: Env;
  readFile: (path: string) => string;
  /** The state directory (absolute). */
  stateDir: string;
  /** The directory of obsync.yaml (absolute). */
  baseDir: string;
}

/** The settings of a target whose drift is `propose`; a ConfigError says what is missing. */
export function resolveWriteBack(input: ResolveWriteBackInput): WriteBackSettings {
  const name = input.target.name;
  const wb = mergedWriteBack(input.target, input.defaults);
  if (wb.repository === undefined)
    throw new ConfigError(`target '${name}' has drift: propose but no writeBack.repository`, {
      hint: 'set writeBack.repository (on the target or under defaults) to the URL of the Git repository of the manifests',
    });
  const type = wb.forge?.type ?? 'none';
  const project = wb.forge?.project;
  if (type !== 'none' && project === undefined)
    throw new ConfigError(`target '${name}': writeBack.forge.type ${type} needs writeBack.forge.project (OWNER/NAME)`);
  const token = forgeToken(wb.forge?.token, input);
  if (type !== 'none' && token === undefined)
    throw new ConfigError(`target '${name}': writeBack.forge.type ${type} needs a token`, {
      hint: `set writeBack.forge.token to "\${env:NAME}", or ${FORGE_TOKEN_VARIABLE} (or ${FORGE_TOKEN_VARIABLE}_FILE)`,
    });
  return {
    target: name,
    repository: wb.repository,
    branch: wb.branch ?? 'main',
    path: (wb.path ?? '').replace(/^\.\/?$/, '').replace(/\/+$/, ''),
    author: { name: wb.author?.name ?? 'obsync', email: wb.author?.email ?? 'obsync@localhost' },
    forge: {
      type,
      apiUrl: (wb.forge?.apiUrl ?? (type === 'none' ? '' : DEFAULT_API_URL[type])).replace(/\/+$/, ''),
      project: project ?? '',
      token,
    },
    proposalBranch: proposalBranch(name),
    cloneDir: join(input.stateDir, 'write-back', name),
    localRoot: isAbsolute(input.baseDir) ? input.baseDir : resolve(input.baseDir),
    proposalMaxAgeMs: wb.proposalMaxAge === undefined ? undefined : (durationMs(wb.proposalMaxAge, 'mhd') ?? undefined),
    include: wb.include,
  };
}

function forgeToken(configured: string | undefined, input: ResolveWriteBackInput): Secret | undefined {
  if (configured !== undefined) return new Secret(configured);
  const file = input.env.OBSYNC_FORGE_TOKEN_FILE;
  if (file) return new Secret(readCredentialFile(input.readFile, FORGE_TOKEN_VARIABLE, file));
  const value = input.env.OBSYNC_FORGE_TOKEN;
  return value ? new Secret(value) : undefined;
}

/**
 * obsync.yaml's write-back errors, each at its line: a target (or defaults) whose drift is
 * `propose` with no repository, and a github or gitlab forge without its project.
 */
export function writeBackProblems(value: unknown, base: { file: string; doc: Document; lineCounter: LineCounter }): Diagnostic[] {
  const root = record(value);
  const defaults = record(root.defaults) as Layer;
  const targets = Array.isArray(root.targets) ? root.targets : [];
  const out: Diagnostic[] = [];
  const problem = (path: readonly PropertyKey[], code: string, message: string, severity: 'error' | 'warning' = 'error') =>
    out.push({
      severity,
      code,
      message,
      file: base.file,
      ...positionAt(base.doc, base.lineCounter, path),
      path: formatPath(path),
    });
  targets.forEach((item: unknown, index) => {
    const target = record(item) as Layer & { name?: unknown };
    if (effectiveDrift(target, defaults) !== 'propose') return;
    const name = typeof target.name === 'string' ? target.name : `targets[${index}]`;
    const wb = mergedWriteBack(target, defaults);
    const at = target.drift !== undefined ? ['targets', index, 'drift'] : ['defaults', 'drift'];
    if (wb.repository === undefined)
      problem(
        at,
        'write-back-repository',
        `target '${name}' has drift: propose but no writeBack.repository (set it on the target or under defaults)`,
      );
    const type = wb.forge?.type ?? 'none';
    if (type !== 'none' && wb.forge?.project === undefined)
      problem(
        target.writeBack?.forge?.type !== undefined ? ['targets', index, 'writeBack', 'forge', 'type'] : at,
        'write-back-project',
        `target '${name}': writeBack.forge.type ${type} needs writeBack.forge.project (OWNER/NAME)`,
      );
  });
  return out;
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}
