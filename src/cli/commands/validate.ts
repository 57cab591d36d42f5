/**
 * `obsync validate [PATH...]`: offline checks of the manifests (schema, references between
 * documents, interpolation). Default paths: obsync.yaml's `manifests`, else the current folder.
 * Exit 0 when valid (warnings allowed), 1 when any error.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Option } from 'commander';
import { manifestFileScope } from '../../config/file-scope.js';
import { loadConfig } from '../../config/load.js';
import type { ObsyncConfig } from '../../config/schema.js';
import { sharedServiceWarnings } from '../../config/services.js';
import { manifestPaths } from '../../config/trees.js';
import { formatDiagnostic, hasErrors, type Diagnostic } from '../../core/diagnostics.js';
import { printableBlock, workflowCommand } from '../../core/printable.js';
import type { SensitiveValue } from '../../manifests/carried.js';
import { credentialValues } from '../../manifests/credentials.js';
import type { FileScope } from '../../manifests/files.js';
import type { DesiredResource } from '../../core/resource.js';
import { LoadedFiles } from '../../manifests/loaded-files.js';
import { sortDiagnostics } from '../../core/diagnostics.js';
import { loadTargetTree, mergeTargetDiagnostics, type TargetLoad, type TargetTree } from '../../manifests/targets.js';
import { ExitRequest, type CliIO } from '../io.js';
import { projectPaths } from '../project-paths.js';
import type { CommandRegistrar } from '../registrar.js';

type Output = 'text' | 'json' | 'github';

export interface ValidateFlags {
  output: Output;
  allowMissingEnv?: boolean;
  allowFileOutside?: boolean;
  config?: string;
}

export const register: CommandRegistrar = (program, io) => {
  program
    .command('validate')
    .description('check manifests offline: schema, references between documents, ${env:}/${file:} interpolation')
    .argument('[paths...]', "manifest files or folders (default: obsync.yaml's manifests, else .)")
    .addOption(new Option('--output <format>', 'report format').choices(['text', 'json', 'github']).default('text'))
    .option('--allow-missing-env', 'report unset ${env:...} and unreadable ${file:...} as warnings')
    .option('--allow-file-outside', '${file:} may read files outside the directory of obsync.yaml (default: confined to it)')
    .option('--config <file>', 'obsync.yaml to read default paths from (default: ./obsync.yaml when present)')
    .action((paths: string[], flags: ValidateFlags) => {
      const valid = runValidate(io, paths, flags);
      if (!valid) throw new ExitRequest(1);
    });
};

/** What validate reads: one tree per declared target (one tree without targets), and problems of obsync.yaml itself. */
export interface Validation {
  trees: { tree: TargetTree; files: FileScope }[];
  /** obsync.yaml's path and its settings, when it was read and valid (lint reads `policy:`). */
  configPath?: string;
  config?: ObsyncConfig;
  diagnostics: Diagnostic[];
  /** Credentials and sensitive values obsync.yaml and the environment put in play. */
  sensitive: SensitiveValue[];
}

/**
 * Every declared target's tree: the top-level manifests plus its own (PATH arguments replace
 * both), interpolated with its vars and checked against the kinds its variant serves. No
 * target's settings or credentials are resolved: validate runs without secrets.
 */
export function validation(io: CliIO, args: string[], flags: ValidateFlags): Validation {
  const allowFlag = flags.allowFileOutside === true;
  const given = args.map((p) => resolve(io.cwd, p));
  const configPath = findConfigFor(io, given, flags);
  const loaded = configPath
    ? loadConfig(configPath, io.env, {
        allowFileOutside: allowFlag,
        select: () => [],
        allTrees: true,
        deferState: true,
        allowMissingEnv: flags.allowMissingEnv === true,
      })
    : undefined;
  const config = loaded?.config;
  // With PATH arguments (other than the project's own folder), obsync.yaml only says where ${file:} may read and what each target's
  // vars are.
  const projectOnly = given.length === 0 || (given.length === 1 && loaded !== undefined && given[0] === loaded.dir);
  const declared = loaded?.declared ?? [];
  const shared = configPath && loaded?.services ? sharedServiceWarnings(loaded.services, configPath) : [];
  const diagnostics = loaded && projectOnly ? [...loaded.diagnostics, ...shared] : [];
  const top = config?.manifests ?? (loaded && !config ? [] : undefined);
  const treeOf = (name: string, api: TargetTree['api'], own: readonly string[] | undefined, vars: TargetTree['vars']) => {
    const paths = manifestPaths({ cwd: io.cwd, given, configPath, top, own });
    return {
      tree: { target: name, api, paths, vars },
      files: manifestFileScope({ configPath, config, cwd: io.cwd, paths, allowFlag, env: io.env }),
    };
  };
  // obsync.yaml invalid: where the manifests are is not known, so there is no tree to read (not "no manifests found").
  const sensitive = loaded?.sensitive ?? credentialValues(io.env);
  const settings = { ...(configPath ? { configPath } : {}), ...(config ? { config } : {}) };
  if (loaded && !config && projectOnly) return { trees: [], diagnostics, sensitive, ...settings };
  if (declared.length === 0) return { trees: [treeOf('', undefined, undefined, undefined)], diagnostics, sensitive, ...settings };
  return { trees: declared.map((d) => treeOf(d.name, d.api, d.tree?.manifests, d.tree?.vars ?? {})), diagnostics, sensitive, ...settings };
}

/** --config; with PATH arguments, the obsync.yaml plan/apply would use (the single folder's, or the working directory's). */
function findConfigFor(io: CliIO, given: string[], flags: ValidateFlags): string | undefined {
  if (flags.config) return resolve(io.cwd, flags.config);
  const candidates = [...(given.length === 1 ? [join(given[0] ?? '', 'obsync.yaml')] : []), join(io.cwd, 'obsync.yaml')];
  return candidates.find((c) => existsSync(c));
}

export function runValidate(io: CliIO, args: string[], flags: ValidateFlags): boolean {
  const { trees, diagnostics: configDiagnostics, sensitive } = validation(io, args, flags);
  const loaded = new LoadedFiles();
  const loads = trees.map(({ tree, files }) =>
    loadTargetTree(tree, {
      env: io.env,
      allowMissingEnv: flags.allowMissingEnv === true,
      // Everything that does not depend on an unset value is still checked (validate writes nothing).
      standIns: flags.allowMissingEnv === true,
      files,
      loaded,
      sensitive,
    }),
  );
  const paths = projectPaths(io.cwd);
  const shown = (f: string) => paths.file(f);
  const diagnostics = sortDiagnostics([...configDiagnostics, ...mergeTargetDiagnostics(loads)]).map(paths.diagnostic);
  const valid = !hasErrors(diagnostics);
  const named = loads.filter((l) => l.target !== '');
  if (flags.output === 'json') io.stdout.write(`${JSON.stringify(jsonReport(valid, loads, diagnostics, shown), null, 2)}\n`);
  else if (flags.output === 'github') for (const d of diagnostics) io.stdout.write(`${githubAnnotation(d)}\n`);
  else
    writeText(
      io,
      valid,
      named.length > 1 ? named.map((l) => `${l.target} ${l.resources.length}`) : (loads[0]?.resources.length ?? 0),
      diagnostics,
    );
  return valid;
}

function jsonReport(valid: boolean, loads: readonly TargetLoad[], diagnostics: Diagnostic[], shown: (f: string) => string) {
  const view = (r: DesiredResource) => ({ address: r.address, file: shown(r.source.file), line: r.source.line });
  const every = new Map(
    loads.flatMap((l) => l.resources.map((r) => [`${r.address}\u0000${r.source.file}\u0000${r.source.line}`, view(r)] as const)),
  );
  const named = loads.filter((l) => l.target !== '');
  return {
    valid,
    resources: [...every.values()],
    ...(named.length > 0 ? { targets: named.map((l) => ({ name: l.target, resources: l.resources.map(view) })) } : {}),
    diagnostics,
  };
}

/** `count`: the resources of the one tree, or `name n` per target. */
function writeText(io: CliIO, valid: boolean, count: number | string[], diagnostics: Diagnostic[]): void {
  for (const d of diagnostics) io.stdout.write(`${formatDiagnostic(d)}\n`);
  const errors = diagnostics.filter((d) => d.severity === 'error').length;
  const warnings = diagnostics.length - errors;
  const unset = diagnostics.filter((d) => d.code === 'missing-reference' && d.severity === 'warning').length;
  const unchecked = unset > 0 ? `; not checked: ${unset} unset value(s) and what depends on them (see the warnings)` : '';
  const tail = `${warnings > 0 ? `, ${warnings} warning(s)` : ''}${unchecked}`;
  const resources = typeof count === 'number' ? `${count} resource(s)` : `resources per target: ${count.join(', ')}`;
  io.stdout.write(valid ? `valid: ${resources}${tail}\n` : `invalid: ${errors} error(s)${tail}\n`);
}

/** GitHub Actions workflow command; data and properties escaped as the runner expects. */
export function githubAnnotation(
  d: Omit<Diagnostic, 'severity' | 'code'> & { severity: Diagnostic['severity'] | 'notice'; code?: string },
): string {
  const esc = (s: string) => s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
  const prop = (s: string) => esc(s).replace(/:/g, '%3A').replace(/,/g, '%2C');
  const props = [
    d.file !== undefined ? `file=${prop(d.file)}` : '',
    d.line !== undefined ? `line=${d.line}` : '',
    d.col !== undefined ? `col=${d.col}` : '',
  ]
    .filter(Boolean)
    .join(',');
  const message = printableBlock(d.path ? `${d.message} (at ${d.path})` : d.message);
  return workflowCommand(`::${d.severity}${props ? ` ${props}` : ''}::${esc(message)}`);
}
