/**
 * Reads and validates `obsync.yaml` like the manifests: positions on every error, did-you-mean
 * for unknown keys, `${env:...}` / `${file:...}` interpolation (relative to the config file, and
 * confined to its directory tree unless `allowFileOutside` says otherwise; never the state
 * directory). Credentials are sensitive fields, and no other field may carry their resolved
 * values (manifests/carried.ts): the credentials in play are handed on to the manifests' check.
 */
import { dirname, resolve } from 'node:path';
import * as z from 'zod';
import { formatPath, hasErrors, sortDiagnostics, type Diagnostic } from '../core/diagnostics.js';
import { refuseCarried, SensitiveValues, type SensitiveValue } from '../manifests/carried.js';
import { credentialValues } from '../manifests/credentials.js';
import { fieldLookup, isSensitivePath } from '../manifests/fields.js';
import { readRegularFile, type FileScope } from '../manifests/files.js';
import { interpolateDocument, type InterpolationContext } from '../manifests/interpolate.js';
import { issuesToDiagnostics } from '../manifests/issues.js';
import { documentValue, parseYamlFile } from '../manifests/parse.js';
import { positionAt } from '../manifests/positions.js';
import { stateDirectory } from './file-scope.js';
import { declaredService, type DeclaredService } from './services.js';
import { EMBEDDED_NAME } from './target-resolution.js';
import { configSchema, type ObsyncConfig } from './schema.js';
import { targetConfig, targetTreeSchema, type TargetConfig } from './target-schema.js';
import { writeBackProblems } from './write-back.js';
import { withoutPaths, stillTemplate, literalString, literalAllowOutside } from './as-written.js';
import { EXTRA_SENSITIVE, CONFIG_SENSITIVE_PATHS, unresolvedCredentials, configSensitiveValues } from './config-credentials.js';
import {
  type DeclaredTarget,
  targetItems,
  declaredOf,
  duplicateNames,
  unknownNotificationTargets,
  stringVars,
} from './declared-targets.js';
import { IDENTITY, TREE, type Level, isolatedFailures, pathOf, targetField } from './target-levels.js';

export interface LoadedConfig {
  /** Undefined when the file has errors. Its `targets` are the resolved ones only (see `select`). */
  config: ObsyncConfig | undefined;
  diagnostics: Diagnostic[];
  /** The directory of the config file: manifest and state paths are relative to it. */
  dir: string;
  /** Every target the file declares, in file order, resolved or not. */
  declared: DeclaredTarget[];
  /** The service each declared target writes to, as far as obsync.yaml and the environment tell (./services.ts). */
  services?: ReadonlyMap<string, DeclaredService>;
  /**
   * The credentials and sensitive values in play, resolved: the environment's credential
   * variables and every resolved value of a sensitive field here (target credentials, the state
   * URL and its password). No non-sensitive field may carry one, here or in the manifests.
   */
  sensitive: SensitiveValue[];
  /**
   * With `isolateTargets`: selected targets whose own settings could not be resolved (a variable
   * not set, a file not readable), with their errors; the config holds the others.
   */
  failedTargets?: { name: string; diagnostics: Diagnostic[] }[];
}

export interface LoadConfigOptions {
  /** Reads the config and its `${file:}` targets (tests: in-memory files, paths taken as they are). */
  readFile?: (path: string) => string;
  /** --allow-file-outside: `${file:}` may read anywhere. */
  allowFileOutside?: boolean;
  /**
   * The targets whose settings and credentials are resolved (interpolated and fully checked),
   * given the declared names and `defaults.target`; may throw for a name not declared. The
   * others are checked only as far as their references allow: an unset variable there is no
   * error. Default: every declared target.
   */
  select?: (declared: readonly string[], defaultTarget: string | undefined) => readonly string[];
  /** Also resolve every other target's manifests and vars (validate checks every target's tree). */
  allTrees?: boolean;
  /** Leave `state` as written (validate opens no state): its `${...}` references are not resolved, only literal values are judged. */
  deferState?: boolean;
  /** validate --allow-missing-env: an unset variable is a warning, not an error. */
  allowMissingEnv?: boolean;
  /**
   * plan and apply on several targets: a selected target whose own settings have errors fails
   * alone (in `failedTargets`) while the file and the other targets are fine, as an unreachable
   * one does; its errors are left out of `diagnostics`.
   */
  isolateTargets?: boolean;
}

/** The top level, targets checked one by one (each resolved or not). */
const topLevelSchema = configSchema.extend({ targets: z.array(z.unknown()).optional() });

export function loadConfig(path: string, env: Readonly<Record<string, string | undefined>>, opts: LoadConfigOptions = {}): LoadedConfig {
  const dir = dirname(path);
  const read = opts.readFile ?? ((p: string) => readRegularFile(p));
  const fail = (diagnostics: Diagnostic[]): LoadedConfig => ({
    config: undefined,
    diagnostics,
    dir,
    declared: [],
    sensitive: credentialValues(env),
  });
  let text: string;
  try {
    text = read(path);
  } catch (e) {
    return fail([
      { severity: 'error', code: 'io', message: `cannot read config ${path}: ${e instanceof Error ? e.message : String(e)}`, file: path },
    ]);
  }
  const parsed = parseYamlFile(path, text);
  if (parsed.diagnostics.length > 0) return fail(parsed.diagnostics);
  const [doc, ...extra] = parsed.docs;
  if (!doc)
    return fail([
      {
        severity: 'error',
        code: 'empty-config',
        message: `${path} is empty: it needs apiVersion: obsync/v1 and kind: Config`,
        file: path,
        line: 1,
        col: 1,
      },
    ]);
  if (extra.length > 0)
    return fail([
      {
        severity: 'error',
        code: 'multiple-documents',
        message: `${path} holds ${parsed.docs.length} documents; obsync.yaml is a single document`,
        file: path,
        line: 1,
        col: 1,
      },
    ]);
  // Before interpolation: the credentials of targets left unresolved are read from it for the credential rule only.
  const pristine = doc.clone();
  const files: FileScope = {
    roots: [dir],
    allowOutside: opts.allowFileOutside === true || literalAllowOutside(doc, dir),
    denied: [stateDirectory({ env, cwd: resolve(), statePath: literalString(doc, ['state', 'path']), baseDir: dir })],
    ...(opts.readFile ? { realpath: (p: string) => resolve(p) } : {}),
  };
  const ctx: InterpolationContext = {
    file: path,
    env,
    allowMissingEnv: opts.allowMissingEnv === true,
    files,
    readRef: read,
    field: fieldLookup(configSchema, [], EXTRA_SENSITIVE),
  };
  const issueBase = { file: path, doc, lineCounter: parsed.lineCounter };

  // First everything but the targets' settings, then the settings of the targets in use.
  const deferred = (p: readonly PropertyKey[]) => opts.deferState === true && p[0] === 'state';
  const diagnostics = interpolateDocument(doc, parsed.lineCounter, {
    ...ctx,
    only: (p) => (targetField(p) === undefined && !deferred(p)) || IDENTITY.has(targetField(p)?.field ?? ''),
  });
  const first = documentValue(path, doc, parsed.lineCounter);
  if (first.diagnostic) return fail([...diagnostics, first.diagnostic]);
  let top = topLevelSchema.safeParse(first.value);
  // Problems only where a reference is left as written (deferred state) or was not set (--allow-missing-env, a warning):
  // the rest of obsync.yaml is judged without those values, so the manifests it names are still checked.
  const missing = new Set(diagnostics.map((d) => d.path));
  const unjudged = (path: readonly PropertyKey[]) => (deferred(path) && stillTemplate(first.value, path)) || missing.has(formatPath(path));
  const unjudgedIssues = top.success ? [] : top.error.issues;
  const judgedWithout = unjudgedIssues.length > 0 && unjudgedIssues.every((issue) => unjudged(issue.path));
  if (judgedWithout)
    top = topLevelSchema.safeParse(
      withoutPaths(
        first.value,
        unjudgedIssues.map((i) => i.path),
      ),
    );
  const items = targetItems(first.value);
  const declared = items.map(declaredOf);
  const services = new Map(items.map((item, i) => [declared[i]?.name ?? '', declaredService(item, env)] as const));
  diagnostics.push(...duplicateNames(declared, issueBase));
  const defaultTarget = top.success ? top.data.defaults?.target : undefined;
  if (defaultTarget !== undefined && defaultTarget !== EMBEDDED_NAME && !declared.some((d) => d.name === defaultTarget)) {
    const pos = positionAt(doc, parsed.lineCounter, ['defaults', 'target']);
    const known = declared.length > 0 ? `: obsync.yaml declares ${declared.map((d) => d.name).join(', ')}` : ': declare it under targets';
    diagnostics.push({
      severity: 'error',
      code: 'unknown-target',
      message: `defaults.target '${defaultTarget}' is not a declared target${known}`,
      file: path,
      ...pos,
      path: 'defaults.target',
    });
  }
  diagnostics.push(...unknownNotificationTargets(first.value, declared, issueBase));
  const selected = new Set(
    (opts.select ?? ((names) => names))(
      declared.map((d) => d.name),
      defaultTarget,
    ),
  );
  const levels = declared.map((d): Level => (selected.has(d.name) ? 'full' : opts.allTrees === true ? 'tree' : 'declared'));
  levels.forEach((level, index) => {
    if (level === 'declared') return;
    const only = (p: readonly PropertyKey[]) => {
      const at = targetField(p);
      return at !== undefined && at.index === index && !IDENTITY.has(at.field) && (level === 'full' || TREE.has(at.field));
    };
    diagnostics.push(...interpolateDocument(doc, parsed.lineCounter, { ...ctx, only }));
  });
  const { value, diagnostic } = documentValue(path, doc, parsed.lineCounter);
  if (diagnostic) return fail([...diagnostics, diagnostic]);
  const sensitive = [
    ...credentialValues(env),
    ...configSensitiveValues(value),
    ...unresolvedCredentials(pristine, parsed.lineCounter, ctx),
  ];
  diagnostics.push(
    ...refuseCarried(new SensitiveValues(sensitive), [
      {
        file: path,
        locate: (p) => positionAt(doc, parsed.lineCounter, p),
        value,
        sensitive: (p) => isSensitivePath(p, CONFIG_SENSITIVE_PATHS),
      },
    ]),
  );

  // A value that failed to interpolate is empty: its schema complaint would only repeat the cause.
  const unresolved = new Set(diagnostics.map((d) => d.path));
  const keep = (d: Diagnostic) => !unresolved.has(d.path);
  if (!top.success) {
    // Judged without the unjudged values and still wrong (a required field left out): every issue counts, nothing passes silently.
    const found = issuesToDiagnostics(top.error.issues, {
      ...issueBase,
      schema: topLevelSchema,
      value: first.value,
      basePath: [],
      sensitive: CONFIG_SENSITIVE_PATHS,
    });
    diagnostics.push(...(judgedWithout ? found.map((d) => ({ ...d, severity: 'error' as const })) : found.filter(keep)));
  }
  const failedTargets = opts.isolateTargets === true ? isolatedFailures(diagnostics, declared, levels) : new Map<number, Diagnostic[]>();
  const isolated = new Set([...failedTargets.values()].flat());
  if (isolated.size > 0) diagnostics.splice(0, diagnostics.length, ...diagnostics.filter((d) => !isolated.has(d)));
  const resolved: TargetConfig[] = [];
  targetItems(value).forEach((item, index) => {
    const level = levels[index] ?? 'declared';
    const checked = targetConfig.safeParse(item);
    if (failedTargets.has(index)) return;
    if (checked.success) {
      if (level === 'full') resolved.push(checked.data);
    } else {
      // A target not in use may keep its references unresolved: only what is written literally is judged.
      const issues = level === 'full' ? checked.error.issues : checked.error.issues.filter((issue) => !stillTemplate(item, issue.path));
      diagnostics.push(
        ...issuesToDiagnostics(issues, { ...issueBase, schema: targetConfig, value: item, basePath: ['targets', index] }).filter(keep),
      );
    }
    const entry = declared[index];
    const treeFailed = diagnostics.some((d) => TREE.has(targetField(pathOf(d))?.field ?? '') && targetField(pathOf(d))?.index === index);
    if (entry && level !== 'declared' && !treeFailed) {
      const tree = targetTreeSchema.safeParse(item);
      if (tree.success) entry.tree = { manifests: tree.data.manifests ?? [], vars: stringVars(tree.data.vars) };
    }
  });
  // After the schema's own issues: a diagnostic at a path hides the schema's issue there (see `keep`).
  diagnostics.push(...writeBackProblems(first.value, issueBase));
  const config = top.success && !hasErrors(diagnostics) ? { ...top.data, ...(top.data.targets ? { targets: resolved } : {}) } : undefined;
  return {
    config: config as ObsyncConfig | undefined,
    diagnostics: sortDiagnostics(diagnostics),
    dir,
    declared,
    services,
    sensitive,
    ...(failedTargets.size > 0
      ? {
          failedTargets: [...failedTargets].map(([index, ds]) => ({ name: declared[index]?.name ?? '', diagnostics: sortDiagnostics(ds) })),
        }
      : {}),
  };
}
