/**
 * `obsync validate [PATH...]`: offline checks of the manifests (schema, references between
 * documents, interpolation). Default paths: obsync.yaml's `manifests`, else the current folder.
 * Exit 0 when valid (warnings allowed), 1 when any error.
 */
import { existsSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { Option } from 'commander';
import { loadConfig } from '../../config/load.js';
import { formatDiagnostic, hasErrors, type Diagnostic } from '../../core/diagnostics.js';
import type { DesiredResource } from '../../core/resource.js';
import { loadManifests, sortDiagnostics } from '../../manifests/load.js';
import { ExitRequest, type CliIO } from '../io.js';
import type { CommandRegistrar } from '../program.js';

type Output = 'text' | 'json' | 'github';

interface ValidateFlags {
  output: Output;
  allowMissingEnv?: boolean;
  config?: string;
}

export const register: CommandRegistrar = (program, io) => {
  program
    .command('validate')
    .description('check manifests offline: schema, references between documents, ${env:}/${file:} interpolation')
    .argument('[paths...]', "manifest files or folders (default: obsync.yaml's manifests, else .)")
    .addOption(new Option('--output <format>', 'report format').choices(['text', 'json', 'github']).default('text'))
    .option('--allow-missing-env', 'report unset ${env:...} and unreadable ${file:...} as warnings')
    .option('--config <file>', 'obsync.yaml to read default paths from (default: ./obsync.yaml when present)')
    .action((paths: string[], flags: ValidateFlags) => {
      const valid = runValidate(io, paths, flags);
      if (!valid) throw new ExitRequest(1);
    });
};

/** Manifest paths to read, absolute, plus problems of the config file itself. */
function resolvePaths(io: CliIO, paths: string[], flags: ValidateFlags): { paths: string[]; diagnostics: Diagnostic[] } {
  if (paths.length > 0) return { paths: paths.map((p) => resolve(io.cwd, p)), diagnostics: [] };
  const configPath = resolve(io.cwd, flags.config ?? 'obsync.yaml');
  if (flags.config === undefined && !existsSync(configPath)) return { paths: [io.cwd], diagnostics: [] };
  const loaded = loadConfig(configPath, io.env);
  const manifests = loaded.config?.manifests;
  if (!manifests) return { paths: loaded.config ? [loaded.dir] : [], diagnostics: loaded.diagnostics };
  return { paths: manifests.map((m) => (isAbsolute(m) ? m : join(loaded.dir, m))), diagnostics: loaded.diagnostics };
}

export function runValidate(io: CliIO, args: string[], flags: ValidateFlags): boolean {
  const { paths, diagnostics: configDiagnostics } = resolvePaths(io, args, flags);
  const result = loadManifests(paths, { env: io.env, allowMissingEnv: flags.allowMissingEnv === true });
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
  const message = d.path ? `${d.message} (at ${d.path})` : d.message;
  return `::${d.severity}${props ? ` ${props}` : ''}::${esc(message)}`;
}
