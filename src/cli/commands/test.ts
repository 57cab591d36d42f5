/**
 * `obsync test [PATHS…] [--output text|json|github]` (issue 47): the AlertTest documents
 * evaluated with obsync's own checker (the backtests' code), offline — no target, no credential,
 * no request — so that fork pull requests, which get no secrets, run them. Tests are read from
 * PATHS (default: obsync.yaml's manifests, else .); the alerts they name from the same files and
 * the project's manifests. Exit 0 when every test passes, 1 otherwise (a failed expectation, a
 * test that cannot run, an invalid document).
 */
import { resolve } from 'node:path';
import { Option } from 'commander';
import { evaluateAlertTest, type AlertTestResult, type AlertUnderTest } from '../../alert-tests/evaluate.js';
import type { AlertTestDocument } from '../../alert-tests/schema.js';
import { formatDiagnostic, type Diagnostic } from '../../core/diagnostics.js';
import { printable } from '../../core/printable.js';
import type { DesiredResource } from '../../core/resource.js';
import { loadManifests } from '../../manifests/load.js';
import { LoadedFiles } from '../../manifests/loaded-files.js';
import { sortDiagnostics } from '../../core/diagnostics.js';
import { loadTargetTree, mergeTargetDiagnostics } from '../../manifests/targets.js';
import { ExitRequest, type CliIO } from '../io.js';
import { projectPaths } from '../project-paths.js';
import type { CommandRegistrar } from '../registrar.js';
import { githubAnnotation, validation } from './validate.js';

type Output = 'text' | 'json' | 'github';

interface TestFlags {
  output: Output;
  config?: string;
}

export const register: CommandRegistrar = (program, io) => {
  program
    .command('test')
    .description('run the AlertTest files offline with the checker the backtests use: no target, no credential (text, json, github)')
    .argument('[paths...]', "files or folders holding AlertTest documents (default: obsync.yaml's manifests, else .)")
    .addOption(new Option('--output <format>', 'report format').choices(['text', 'json', 'github']).default('text'))
    .option('--config <file>', 'obsync.yaml to read default paths from (default: ./obsync.yaml when present)')
    .action((paths: string[], flags: TestFlags) => {
      if (!runAlertTests(io, paths, flags)) throw new ExitRequest(1);
    });
};

/** Whether every test passed (and every test document was valid). */
export function runAlertTests(io: CliIO, args: string[], flags: TestFlags): boolean {
  const { tests, alerts, diagnostics } = readTests(io, args, flags);
  const results = tests.flatMap((test) => {
    const found = alerts.get(test.spec.alert) ?? [undefined];
    return found.map((alert) => evaluateAlertTest(test, alert));
  });
  const errors = diagnostics.filter((d) => d.severity === 'error');
  // Paths given that hold no test are a mistake (a typo); a project without tests passes.
  const passed = errors.length === 0 && results.every((r) => r.passed) && (results.length > 0 || args.length === 0);
  const paths = projectPaths(io.cwd);
  const shown = results.map((r) => ({ ...r, file: paths.file(r.file) }));
  const shownErrors = errors.map(paths.diagnostic);
  if (flags.output === 'json') io.stdout.write(`${JSON.stringify({ passed, tests: shown, diagnostics: shownErrors }, null, 2)}\n`);
  else if (flags.output === 'github') {
    for (const d of [...shownErrors, ...shown.filter((r) => !r.passed).map(failureDiagnostic)]) io.stdout.write(`${githubAnnotation(d)}\n`);
    io.stdout.write(`${summary(shown)}\n`);
  } else writeText(io, shown, shownErrors);
  return passed;
}

/** The AlertTest documents of PATHS, and each alert's condition by name (one per distinct condition among the targets). */
function readTests(io: CliIO, args: string[], flags: TestFlags) {
  const project = validation(io, [], { output: 'text', allowMissingEnv: true, ...(flags.config ? { config: flags.config } : {}) });
  const loaded = new LoadedFiles();
  const opts = { env: io.env, allowMissingEnv: true, standIns: true, loaded, sensitive: project.sensitive };
  const trees = project.trees.map(({ tree, files }) => loadTargetTree(tree, { ...opts, files }));
  const given =
    args.length > 0
      ? loadManifests(
          args.map((p) => resolve(io.cwd, p)),
          opts,
        )
      : undefined;
  const tests: AlertTestDocument[] = given ? given.alertTests : uniqueTests(trees.flatMap((t) => t.alertTests));
  const alerts = new Map<string, AlertUnderTest[]>();
  const seen = new Set<string>();
  for (const r of [...(given?.resources ?? []), ...trees.flatMap((t) => t.resources)]) {
    const alert = r.kind === 'Alert' ? underTest(r) : undefined;
    const key = alert && `${r.name}\u0000${JSON.stringify(alert)}`;
    if (!alert || !key || seen.has(key)) continue;
    seen.add(key);
    alerts.set(r.name, [...(alerts.get(r.name) ?? []), alert]);
  }
  const diagnostics = [...project.diagnostics, ...(given ? given.diagnostics : sortDiagnostics(mergeTargetDiagnostics(trees)))];
  return { tests, alerts, diagnostics: diagnostics.filter((d) => d.code !== 'no-manifests' || tests.length === 0) };
}

/** A test file shared by several targets' trees is one test. */
function uniqueTests(tests: AlertTestDocument[]): AlertTestDocument[] {
  const byPlace = new Map(tests.map((t) => [`${t.file}\u0000${t.line}`, t]));
  return [...byPlace.values()];
}

function underTest(r: DesiredResource): AlertUnderTest | undefined {
  const spec = r.spec as Partial<AlertUnderTest> | undefined;
  if (typeof spec?.thresholdType !== 'string' || typeof spec.threshold !== 'number' || typeof spec.interval !== 'string') return undefined;
  return {
    thresholdType: spec.thresholdType,
    threshold: spec.threshold,
    thresholdMax: spec.thresholdMax,
    interval: spec.interval,
    numConsecutiveWindows: spec.numConsecutiveWindows,
  };
}

function writeText(io: CliIO, results: AlertTestResult[], errors: Diagnostic[]): void {
  for (const d of errors) io.stdout.write(`${formatDiagnostic(d)}\n`);
  for (const r of results) {
    io.stdout.write(`${r.passed ? 'PASS' : 'FAIL'} AlertTest/${r.name} (Alert/${printable(r.alert)})  ${r.file}:${r.line}\n`);
    for (const line of r.passed ? [] : failureLines(r)) io.stdout.write(`    ${line}\n`);
  }
  io.stdout.write(`${summary(results)}${errors.length > 0 ? `; ${errors.length} invalid document(s)` : ''}\n`);
}

/** `- notifications: 3` / `+ notifications: 12` per expectation that differs; a test that could not run, why. */
function failureLines(r: AlertTestResult): string[] {
  if (r.error !== undefined) return [printable(r.error)];
  const out = ['--- expected', '+++ actual (obsync checker)'];
  for (const [key, want] of Object.entries(r.expected)) {
    const got = r.actual?.[key as keyof typeof r.actual];
    if (got === want) out.push(`  ${key}: ${want}`);
    else out.push(`- ${key}: ${want}`, `+ ${key}: ${got ?? '(none)'}`);
  }
  return out;
}

function failureDiagnostic(r: AlertTestResult): Diagnostic {
  const differs = Object.entries(r.expected)
    .filter(([key, want]) => r.actual?.[key as keyof typeof r.actual] !== want)
    .map(([key, want]) => `${key} expected ${want}, actual ${r.actual?.[key as keyof typeof r.actual] ?? '(none)'}`);
  const message = r.error ?? differs.join('; ');
  return {
    severity: 'error',
    code: 'alert-test',
    message: `AlertTest/${r.name} (Alert/${r.alert}): ${message}`,
    file: r.file,
    line: r.line,
  };
}

function summary(results: readonly AlertTestResult[]): string {
  if (results.length === 0) return 'no AlertTest found';
  const failed = results.filter((r) => !r.passed).length;
  return `${results.length} test(s): ${results.length - failed} passed, ${failed} failed`;
}
