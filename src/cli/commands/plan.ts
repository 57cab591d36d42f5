/** `obsync plan`: what apply would do, on one or more targets, as text, JSON (saved plan) or a pull-request comment. */
import { Option, type Command } from 'commander';
import { hasChanges } from '../../core/plan.js';
import { isNarrowed } from '../../engine/selection.js';
import { writeScrubbedFile } from '../../log/files.js';
import type { PlanOrigin } from '../../render/run.js';
import { renderTargetsPlan, type TargetOutcome } from '../../render/targets.js';
import { colorEnabled, ExitRequest, type CliIO } from '../io.js';
import type { CommandRegistrar } from '../registrar.js';
import { VERSION } from '../version.js';
import { allowEmptyKindOption, commonRunOptions, parseRunOptions, refusedPrune, type RawRunOptions } from '../run-options.js';
import { checkSelectionAcross, eachTarget, reportTargetError, Slots, TARGET_CONCURRENCY } from '../targets.js';
import { githubAnnotation } from './validate.js';
import { findingDiagnostic } from './lint.js';
import { blocking } from '../../policy/model.js';
import { sarifText } from '../../render/sarif.js';
import { mergeFindings } from '../policy-rules.js';
import { projectPaths } from '../project-paths.js';
import { writePreviews } from '../previews.js';
import { previewLines, previewsMarkdown } from '../../render/preview/markdown.js';
import { resolve } from 'node:path';
import { openSessions } from '../session.js';
import type { Session } from '../session-types.js';
import { reconcileSession } from '../session-run.js';
import { refuseInvalid } from '../print-diagnostics.js';

interface PlanFlags extends RawRunOptions {
  out?: string;
  output: 'text' | 'json' | 'markdown' | 'github' | 'sarif';
  detailedExitcode?: boolean;
  previewDir?: string;
}

export const register: CommandRegistrar = (program: Command, io: CliIO) => {
  const cmd = program
    .command('plan')
    .description('show the changes apply would make (reads the service, writes nothing)')
    .argument('[paths...]', 'manifest files or directories (default: obsync.yaml manifests, else .)')
    .option('--out <file>', 'also save the plan as JSON for `obsync apply FILE`')
    .addOption(new Option('--output <format>', 'output format').choices(['text', 'json', 'markdown', 'github', 'sarif']).default('text'))
    .option('--detailed-exitcode', 'exit 2 when there are changes (0: none, 1: error)')
    .option('--preview-dir <dir>', 'write an SVG and a PNG of each dashboard the plan creates or updates there (docs/previews.md)');
  allowEmptyKindOption(commonRunOptions(cmd)).action(async (paths: string[], flags: PlanFlags) => {
    const opts = parseRunOptions(flags);
    const checkManifests = refuseInvalid(io, flags.output === 'github' ? 'github' : 'text');
    const group = await openSessions(io, {
      paths,
      config: flags.config,
      targets: flags.target,
      lock: false,
      command: 'plan',
      timeoutMs: opts.timeoutMs,
      allowFileOutside: flags.allowFileOutside,
      checkManifests,
      isolateTargets: true,
    });
    try {
      const { sessions } = group;
      checkSelectionAcross(opts.selection, sessions);
      // A JSON plan shows every object's values (planned_values, prior_state), unchanged ones too.
      const unchangedForms = flags.out !== undefined || flags.output === 'json';
      const runs = await eachTarget(sessions, new Slots(TARGET_CONCURRENCY), (s) =>
        reconcileSession(s, opts, {
          mode: 'plan',
          ...(unchangedForms ? { unchangedForms } : {}),
          ...(flags.previewDir ? { previews: true } : {}),
        }),
      );
      const { unavailable } = group;
      // One target: its error is the command's error, as it always was. A document is still
      // written for machines and reviewers (JSON, --out, the pull-request comment): an empty one
      // would pass a gate such as `jq -e '.errored == false'` (jq reads no input as success).
      const [only] = runs;
      const alone = runs.length === 1 && unavailable.length === 0 && only && 'error' in only ? only : undefined;
      if (alone && flags.output !== 'json' && flags.output !== 'markdown' && !flags.out) throw alone.error;
      const generatedAt = new Date();
      const shown = projectPaths(io.cwd);
      const outcomes: TargetOutcome[] = [
        ...runs.map((r) =>
          'error' in r
            ? { target: r.session.port.target, error: shown.text(r.message) }
            : { target: r.value.target, plan: r.value.plan, manifests: r.session.manifestPaths },
        ),
        // A target whose settings could not be resolved (a variable not set) is reported like an unreachable one.
        ...unavailable.map((u) => ({ target: u.target, error: shown.text(u.error.message) })),
      ];
      const origin = { ...originOf(io, sessions, generatedAt), ...(isNarrowed(opts.selection) ? { narrowed: true } : {}) };
      const reports = runs.flatMap((r) => ('value' in r ? [r.value] : []));
      const previews = flags.previewDir ? await writePreviews(reports, resolve(io.cwd, flags.previewDir), io.cwd) : [];
      if (flags.out) writeScrubbedFile(flags.out, renderTargetsPlan(outcomes, 'json', { color: false, origin }));
      const format = flags.output === 'github' ? 'text' : flags.output;
      const findings = mergeFindings(reports.map((r) => r.plan.policy ?? []));
      if (format === 'sarif') io.stdout.write(sarifText(findings, sessions[0]?.policy.rules ?? [], VERSION));
      else if (!alone || format !== 'text')
        io.stdout.write(
          renderTargetsPlan(outcomes, format, { color: colorEnabled(io, 'stdout', flags.color), origin }) +
            (format === 'markdown' ? previewsMarkdown(previews) : ''),
        );
      if (format !== 'markdown') for (const line of previewLines(previews)) io.stderr.write(`${line}\n`);
      if (alone) throw alone.error;
      if (flags.output === 'github') {
        for (const r of reports) for (const d of r.plan.diagnostics) io.stdout.write(`${githubAnnotation(d)}\n`);
        for (const f of findings) io.stdout.write(`${githubAnnotation(findingDiagnostic(f))}\n`);
      }
      for (const r of runs) if ('error' in r) reportTargetError(io, r.session.port.target, r.error);
      for (const u of unavailable) reportTargetError(io, u.target, u.error);
      const refused = reports.filter((r) => refusedPrune(io, r.plan, flags.output)).length > 0;
      // An error finding of the policy rules fails the plan as it would refuse the apply.
      const policyFailed = blocking(findings).length > 0;
      if (unavailable.length > 0 || runs.some((r) => 'error' in r) || reports.some((r) => r.plan.errored) || refused || policyFailed)
        throw new ExitRequest(1);
      if (flags.detailedExitcode && reports.some((r) => hasChanges(r.plan))) throw new ExitRequest(2);
    } finally {
      await group.close();
    }
  });
};

function originOf(io: CliIO, sessions: readonly Session[], generatedAt: Date): PlanOrigin {
  const configPath = sessions[0]?.configPath;
  return { generatedAt, obsyncVersion: VERSION, manifests: [], root: io.cwd, ...(configPath ? { config: configPath } : {}) };
}
