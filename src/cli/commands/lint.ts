/**
 * `obsync lint [PATHS…] [--output text|json|github|sarif]` (issue 43): the policy rules over the
 * manifests alone, offline — the built-in rules (`policy:` in obsync.yaml), the custom rules of
 * Policy manifests, and the waivers. Every declared target's tree is checked as validate reads
 * it. Exit 1 when an error finding remains (or a manifest is invalid), else 0.
 */
import { Option } from 'commander';
import { formatDiagnostic, hasErrors, type Diagnostic } from '../../core/diagnostics.js';
import { LoadedFiles } from '../../manifests/loaded-files.js';
import { sortDiagnostics } from '../../core/diagnostics.js';
import { loadTargetTree, mergeTargetDiagnostics } from '../../manifests/targets.js';
import { checkPolicy } from '../../policy/check.js';
import { blocking, sortFindings, type Finding } from '../../policy/model.js';
import { findingLine, policySection, policySummary } from '../../render/policy.js';
import { sarifLog } from '../../render/sarif.js';
import { ExitRequest, type CliIO } from '../io.js';
import { mergeFindings, policyPaths, policyRules, projectFinding } from '../policy-rules.js';
import { projectPaths } from '../project-paths.js';
import type { CommandRegistrar } from '../registrar.js';
import { VERSION } from '../version.js';
import { githubAnnotation, validation, type ValidateFlags } from './validate.js';

type Output = 'text' | 'json' | 'github' | 'sarif';

/** validate's flags, with SARIF among the formats. */
type LintFlags = Omit<ValidateFlags, 'output'> & { output: Output };

export const register: CommandRegistrar = (program, io) => {
  program
    .command('lint')
    .description('check the policy rules offline: built-in rules, Policy manifests (CEL), waivers (text, json, github, sarif)')
    .argument('[paths...]', "manifest files or folders (default: obsync.yaml's manifests, else .)")
    .addOption(new Option('--output <format>', 'report format').choices(['text', 'json', 'github', 'sarif']).default('text'))
    .option('--allow-missing-env', 'report unset ${env:...} and unreadable ${file:...} as warnings')
    .option('--allow-file-outside', '${file:} may read files outside the directory of obsync.yaml (default: confined to it)')
    .option('--config <file>', 'obsync.yaml to read default paths and policy: settings from (default: ./obsync.yaml when present)')
    .action((paths: string[], flags: LintFlags) => {
      if (!runLint(io, paths, flags)) throw new ExitRequest(1);
    });
};

/** Whether the manifests pass: valid, and no error finding left unwaived. */
export function runLint(io: CliIO, args: string[], flags: LintFlags): boolean {
  const checked = validation(io, args, { ...flags, output: 'text' });
  const loaded = new LoadedFiles();
  const missing = flags.allowMissingEnv === true;
  const loads = checked.trees.map(({ tree, files }) => ({
    tree,
    load: loadTargetTree(tree, { env: io.env, allowMissingEnv: missing, standIns: missing, files, loaded, sensitive: checked.sensitive }),
  }));
  const settings = checked.config?.policy;
  const found = policyRules(
    policyPaths(io.cwd, checked.configPath, checked.config),
    loads.flatMap((l) => l.load.policies),
    io.env,
  );
  const perTarget = loads.map(({ tree, load }) =>
    checkPolicy({ resources: load.resources, rules: found.rules, settings, target: { name: tree.target, variant: tree.api ?? '' } }),
  );
  const paths = projectPaths(io.cwd);
  const findings = sortFindings(mergeFindings(perTarget).map((f) => projectFinding(paths, f)));
  const diagnostics = sortDiagnostics([
    ...checked.diagnostics,
    ...mergeTargetDiagnostics(loads.map((l) => l.load)),
    ...found.diagnostics,
  ]).map(paths.diagnostic);
  const passed = !hasErrors(diagnostics) && blocking(findings).length === 0;
  write(io, flags.output, { passed, findings, diagnostics, rules: found.rules.map((r) => ({ ...r, file: paths.file(r.file) })) });
  return passed;
}

interface LintReport {
  passed: boolean;
  findings: Finding[];
  diagnostics: Diagnostic[];
  rules: Parameters<typeof sarifLog>[1];
}

function write(io: CliIO, output: Output, report: LintReport): void {
  const { findings, diagnostics } = report;
  if (output === 'json') {
    const section = policySection(findings);
    io.stdout.write(`${JSON.stringify({ formatVersion: 1, ...section, passed: report.passed, diagnostics }, null, 2)}\n`);
  } else if (output === 'sarif') {
    const all = [...diagnostics.map(diagnosticFinding), ...findings];
    io.stdout.write(`${JSON.stringify(sarifLog(all, report.rules, VERSION), null, 2)}\n`);
  } else if (output === 'github') {
    for (const d of diagnostics) io.stdout.write(`${githubAnnotation(d)}\n`);
    for (const f of findings) io.stdout.write(`${githubAnnotation(findingDiagnostic(f))}\n`);
  } else {
    for (const d of diagnostics) io.stdout.write(`${formatDiagnostic(d)}\n`);
    for (const f of findings) io.stdout.write(`${findingLine(f)}\n`);
    const invalid = diagnostics.filter((d) => d.severity === 'error').length;
    io.stdout.write(
      `${policySummary({ ...policySection(findings), passed: report.passed })}${invalid > 0 ? `; ${invalid} manifest error(s)` : ''}\n`,
    );
  }
}

/** A manifest problem among the SARIF results, under the rule `invalid-manifest`. */
function diagnosticFinding(d: Diagnostic): Finding {
  return {
    rule: 'invalid-manifest',
    severity: d.severity,
    message: d.path ? `${d.message} (at ${d.path}) [${d.code}]` : `${d.message} [${d.code}]`,
    ...(d.address ? { address: d.address } : {}),
    ...(d.file ? { file: d.file } : {}),
    ...(d.line ? { line: d.line } : {}),
    ...(d.col ? { col: d.col } : {}),
  };
}

/** A finding as a workflow annotation: a waived one is a notice-free warning naming its reason. */
export function findingDiagnostic(f: Finding): Diagnostic {
  const waived = f.waived !== undefined;
  return {
    severity: waived ? 'warning' : f.severity,
    code: f.rule,
    message: `${waived ? 'waived: ' : ''}${f.message} [${f.rule}]${waived ? ` (waived: ${f.waived})` : ''}`,
    ...(f.file ? { file: f.file } : {}),
    ...(f.line ? { line: f.line } : {}),
    ...(f.col ? { col: f.col } : {}),
  };
}
