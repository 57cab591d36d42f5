/**
 * `obsync validate [PATH...]`: offline checks of the manifests (schema, references between
 * documents, interpolation). Default paths: obsync.yaml's `manifests`, else the current folder.
 * Exit 0 when valid (warnings allowed), 1 when any error.
 */
import { existsSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { Option } from 'commander';
import { manifestFileScope } from '../../config/file-scope.js';
import { loadConfig } from '../../config/load.js';
import { formatDiagnostic, hasErrors, type Diagnostic } from '../../core/diagnostics.js';
import { printableLines } from '../../core/printable.js';
import type { FileScope } from '../../manifests/files.js';
import type { DesiredResource } from '../../core/resource.js';
import { loadManifests, sortDiagnostics } from '../../manifests/load.js';
import { ExitRequest, type CliIO } from '../io.js';
import type { CommandRegistrar } from '../program.js';

type Output = 'text' | 'json' | 'github';

interface ValidateFlags {
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

/** Manifest paths to read, absolute, where their `${file:}` may read, plus problems of the config file itself. */
function resolvePaths(io: CliIO, paths: string[], flags: ValidateFlags): { paths: string[]; files: FileScope; diagnostics: Diagnostic[] } {
  const allowFlag = flags.allowFileOutside === true;
  if (paths.length > 0) {
    const given = paths.map((p) => resolve(io.cwd, p));
    return { paths: given, files: scopeForPaths(io, given, flags), diagnostics: [] };
  }
  const configPath = resolve(io.cwd, flags.config ?? 'obsync.yaml');
  if (flags.config === undefined && !existsSync(configPath)) return { paths: [io.cwd], files: manifestFileScope({ configPath: undefined, config: undefined, cwd: io.cwd, paths: [io.cwd], allowFlag }), diagnostics: [] };
  const loaded = loadConfig(configPath, io.env, { allowFileOutside: allowFlag });
  const manifests = loaded.config?.manifests;
  const found = manifests ? manifests.map((m) => (isAbsolute(m) ? m : join(loaded.dir, m))) : loaded.config ? [loaded.dir] : [];
  return { paths: found, files: manifestFileScope({ configPath, config: loaded.config, cwd: io.cwd, paths: found, allowFlag }), diagnostics: loaded.diagnostics };
}

/** Paths given: the confinement of the obsync.yaml plan/apply would use (--config, the single folder's, or the working directory's). */
function scopeForPaths(io: CliIO, given: string[], flags: ValidateFlags): FileScope {
  const allowFlag = flags.allowFileOutside === true;
  const candidates = flags.config ? [resolve(io.cwd, flags.config)] : [...(given.length === 1 ? [join(given[0] ?? '', 'obsync.yaml')] : []), join(io.cwd, 'obsync.yaml')];
  const configPath = candidates.find((c) => existsSync(c));
  const config = configPath ? loadConfig(configPath, io.env, { allowFileOutside: allowFlag }).config : undefined;
  return manifestFileScope({ configPath, config, cwd: io.cwd, paths: given, allowFlag });
}

export function runValidate(io: CliIO, args: string[], flags: ValidateFlags): boolean {
  const { paths, files, diagnostics: configDiagnostics } = resolvePaths(io, args, flags);
  const result = loadManifests(paths, { env: io.env, allowMissingEnv: flags.allowMissingEnv === true, files });
  const shown = (f: string | undefined) => (f === undefined ? undefined : relative(io.cwd, f) || f);
  const diagnostics = sortDiagnostics([...configDiagnostics, ...result.diagnostics]).map((d) => ({ ...d, file: shown(d.file) }));
  const valid = !hasErrors(diagnostics);
  if (flags.output === 'json') io.stdout.write(`${JSON.stringify(jsonReport(valid, result.resources, diagnostics, shown), null, 2)}\n`);
  else if (flags.output === 'github') for (const d of diagnostics) io.stdout.write(`${githubAnnotation(d)}\n`);
  else writeText(io, valid, result.resources.length, diagnostics);
  return valid;
}

function jsonReport(valid: boolean, resources: DesiredResource[], diagnostics: Diagnostic[], shown: (f: string) => string | undefined) {
  return {
    valid,
    resources: resources.map((r) => ({ address: r.address, file: shown(r.source.file), line: r.source.line })),
    diagnostics,
  };
}

function writeText(io: CliIO, valid: boolean, count: number, diagnostics: Diagnostic[]): void {
  for (const d of diagnostics) io.stdout.write(`${formatDiagnostic(d)}\n`);
  const errors = diagnostics.filter((d) => d.severity === 'error').length;
  const warnings = diagnostics.length - errors;
  const tail = warnings > 0 ? `, ${warnings} warning(s)` : '';
  io.stdout.write(valid ? `valid: ${count} resource(s)${tail}\n` : `invalid: ${errors} error(s)${tail}\n`);
}

/** GitHub Actions workflow command; data and properties escaped as the runner expects. */
export function githubAnnotation(d: Diagnostic): string {
  const esc = (s: string) => s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
  const prop = (s: string) => esc(s).replace(/:/g, '%3A').replace(/,/g, '%2C');
  const props = [d.file !== undefined ? `file=${prop(d.file)}` : '', d.line !== undefined ? `line=${d.line}` : '', d.col !== undefined ? `col=${d.col}` : ''].filter(Boolean).join(',');
  const message = printableLines(d.path ? `${d.message} (at ${d.path})` : d.message);
  return `::${d.severity}${props ? ` ${props}` : ''}::${esc(message)}`;
}
