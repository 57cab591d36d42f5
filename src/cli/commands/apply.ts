/**
 * `obsync apply`: plan, confirm, execute — on one or more targets, asking once for all; or
 * execute a saved plan's steps that are still valid.
 */
import { resolve } from 'node:path';
import { Option, type Command } from 'commander';
import { hasChanges, type Plan } from '../../core/plan.js';
import { printable } from '../../core/printable.js';
import type { ApplyReport, StepResult } from '../../applier/context.js';
import { ConfigError, errorMessage } from '../../core/errors.js';
import { FileRefusal, MAX_STATE_FILE_BYTES, readRegularFile } from '../../manifests/files.js';
import { PlanTargetMismatch } from '../../engine/saved-plan.js';
import type { SavedPlan } from '../../render/plan-json-read.js';
import { stepTime } from '../../render/apply-text.js';
import { isAdoption } from '../../render/forms.js';
import { renderRunApply } from '../../render/run.js';
import { parseSavedPlans, renderTargetsPlan, type TargetOutcome } from '../../render/targets.js';
import { ApplyInterrupts, INTERRUPTED_EXIT, InterruptedBeforeApply } from '../interrupt.js';
import { colorEnabled, ExitRequest, type CliIO } from '../io.js';
import type { CommandRegistrar } from '../registrar.js';
import { VERSION } from '../version.js';
import { wholeNumber } from '../numbers.js';
import { allowEmptyKindOption, commonRunOptions, parseRunOptions, refusedPrune, type RawRunOptions } from '../run-options.js';
import { askOnTerminal } from '../prompt.js';
import { openSessions } from '../session.js';
import { reconcileSession } from '../session-run.js';
import { refuseInvalid } from '../print-diagnostics.js';
import { projectPaths } from '../project-paths.js';
import { ApprovalGate, checkSelectionAcross, eachTarget, reportTargetError, Slots, TARGET_CONCURRENCY, type Outcome } from '../targets.js';
import type { RunReport } from '../../engine/reconcile.js';
import type { Finding } from '../../policy/model.js';
import { PolicyRefusal } from '../../policy/refusal.js';
import { sarifText } from '../../render/sarif.js';
import { mergeFindings } from '../policy-rules.js';

interface ApplyFlags extends RawRunOptions {
  autoApprove?: boolean;
  concurrency?: number;
  output: 'text' | 'json' | 'sarif';
}

const VERB: Record<string, string> = { create: 'created', update: 'updated', delete: 'deleted', noop: 'unchanged' };

export const register: CommandRegistrar = (program: Command, io: CliIO) => {
  const cmd = program
    .command('apply')
    .description('make the service match the manifests (or apply a saved plan)')
    .argument('[paths...]', 'manifest files or directories, or one saved plan.json')
    .option('--auto-approve', 'do not ask for confirmation (required when not on a terminal)')
    .option('--concurrency <n>', 'requests in flight at once (1-64)', wholeNumber(1, 64))
    .addOption(new Option('--output <format>', 'report format').choices(['text', 'json', 'sarif']).default('text'));
  allowEmptyKindOption(commonRunOptions(cmd)).action(async (paths: string[], flags: ApplyFlags) => {
    const saved = savedPlanArgument(io, paths);
    if (saved) checkSavedTargets(saved, flags.target, paths[0] ?? '');
    const opts = parseRunOptions(flags);
    // Listening before the lock is taken: a Ctrl-C from here on releases it on the way out.
    const interrupts = new ApplyInterrupts(io);
    const group = await openSessions(io, {
      paths: saved ? [] : paths,
      ...(saved
        ? { pathsByTarget: Object.fromEntries(saved.document.targets.map((d) => [d.target, d.manifests ?? saved.document.manifests])) }
        : {}),
      config: flags.config ?? saved?.document.config,
      targets: flags.target.length > 0 ? flags.target : saved ? saved.plans.map((p) => p.target) : [],
      lock: true,
      writeService: true,
      command: 'apply',
      timeoutMs: opts.timeoutMs,
      allowFileOutside: flags.allowFileOutside,
      checkManifests: refuseInvalid(io, 'text'),
      isolateTargets: true,
    }).catch((err: unknown) => {
      interrupts.dispose();
      throw err;
    });
    try {
      const { sessions, unavailable } = group;
      checkSelectionAcross(opts.selection, sessions);
      const color = colorEnabled(io, 'stdout', flags.color);
      const several = sessions.length + unavailable.length > 1;
      // A target whose settings could not be resolved is shown and counted like one that could not be planned.
      const unresolved = unavailable.map((u) => ({ target: u.target, error: u.error }));
      const gate = new ApprovalGate<Plan>(
        sessions.map((s) => s.port.target),
        (arrived, failed) => approve(io, interrupts, { arrived, failed: [...failed, ...unresolved], flags, color, saved: saved !== null }),
      );
      const slots = new Slots(TARGET_CONCURRENCY);
      const runs = await eachTarget(sessions, slots, async (session) => {
        const target = session.port.target;
        let planned = false;
        try {
          // Applied even without changes: unchanged objects record their ownership (adoptions).
          // A saved plan is applied with the prune decision it was made with.
          const mine = saved?.plans.find((p) => p.target === target);
          return await reconcileSession(session, opts, {
            mode: 'apply',
            ...(mine ? { saved: mine } : {}),
            ...(flags.concurrency !== undefined ? { concurrency: flags.concurrency } : {}),
            signal: interrupts.planningSignal,
            applySignal: interrupts.signal,
            beforeApply: async (plan) => {
              planned = true;
              // Waiting for the other targets and the answer does not hold a slot.
              slots.release();
              try {
                await gate.arrive(target, plan);
              } finally {
                await slots.acquire();
              }
            },
            onStepStart: (address) => interrupts.started(target, address),
            onStepDone: (r) => {
              interrupts.done(target, r.address);
              progress(io, r, several ? target : undefined);
            },
          });
        } catch (err) {
          if (!planned) gate.fail(target, err);
          throw err;
        }
      });
      // Stopped for every target (prune refused, answer not yes, Ctrl-C before any change): that is the outcome.
      const stop = runs.find(
        (r): r is Extract<typeof r, { error: unknown }> =>
          'error' in r && (r.error instanceof ExitRequest || r.error instanceof InterruptedBeforeApply),
      );
      if (stop) throw stop.error;
      // SARIF: the policy findings only (a refused apply's too), for code scanning; progress and errors stay on stderr.
      if (flags.output === 'sarif') io.stdout.write(sarifText(policyFindings(runs), sessions[0]?.policy.rules ?? [], VERSION));
      const [only] = runs;
      if (!several && only && 'error' in only) throw only.error;
      const reports = runs.flatMap((r) => ('value' in r ? [r.value] : []));
      const applied = reports.flatMap((r) => (r.apply ? [r.apply] : []));
      const interrupted = interrupts.stopped;
      const origin = { generatedAt: new Date(), obsyncVersion: VERSION, interrupted };
      if (flags.output === 'json') io.stdout.write(renderRunApply(reports, 'json', { color, origin }));
      else if (flags.output === 'text') {
        // Every apply that did something ends with its counts: changes, adoptions (ownership changes too), failures.
        const shown = reports.filter(
          (r) =>
            r.apply &&
            (interrupted || hasChanges(r.plan) || r.plan.steps.some(isAdoption) || r.apply.summary.failed + r.apply.summary.refused > 0),
        );
        if (shown.length > 0) io.stdout.write(renderRunApply(shown, 'text', { color, origin }));
      }
      for (const r of runs) if ('error' in r) reportTargetError(io, r.session.port.target, r.error);
      for (const u of unavailable) reportTargetError(io, u.target, u.error);
      if (interrupted) {
        io.stderr.write(`${interruptedSummary(applied)}\n`);
        throw new ExitRequest(INTERRUPTED_EXIT);
      }
      const failed =
        unavailable.length > 0 ||
        runs.some((r) => 'error' in r) ||
        reports.some((r) => r.plan.errored || (r.apply && r.apply.summary.failed + r.apply.summary.refused > 0));
      if (failed) throw new ExitRequest(1);
    } catch (err) {
      if (!(err instanceof InterruptedBeforeApply)) throw err;
      io.stderr.write('\nInterrupted: nothing was applied.\n');
      throw new ExitRequest(INTERRUPTED_EXIT);
    } finally {
      interrupts.dispose();
      await group.close();
    }
  });
};

interface Approval {
  arrived: readonly { target: string; plan: Plan }[];
  failed: readonly { target: string; error: unknown }[];
  flags: ApplyFlags;
  color: boolean;
  /** A saved plan was reviewed when it was made: it applies without a prompt (as `terraform apply plan.tfplan`). */
  saved: boolean;
}

/** Every target has planned: show the plans, refuse a refused prune, ask once for all. */
async function approve(io: CliIO, interrupts: ApplyInterrupts, { arrived, failed, flags, color, saved }: Approval): Promise<void> {
  const outcomes: TargetOutcome[] = [
    ...arrived.map((a) => ({ target: a.target, plan: a.plan })),
    ...failed.map((f) => ({ target: f.target, error: projectPaths(io.cwd).text(errorMessage(f.error)) })),
  ];
  if (flags.output === 'text' && arrived.length > 0)
    io.stdout.write(
      renderTargetsPlan(outcomes, 'text', { color, origin: { generatedAt: new Date(), obsyncVersion: VERSION, manifests: [] } }),
    );
  // A saved plan made for another service is not applied anywhere, not even to its other targets.
  const elsewhere = failed.filter((f) => f.error instanceof PlanTargetMismatch);
  if (elsewhere.length > 0) {
    for (const f of elsewhere) reportTargetError(io, f.target, f.error);
    io.stderr.write('Nothing was applied to any target: a saved plan applies only to the services it was made for.\n');
    throw new ExitRequest(1);
  }
  const refused = arrived.filter((a) => refusedPrune(io, a.plan, flags.output));
  if (refused.length > 0) {
    const where = arrived.length > 1 ? ` (on ${refused.map((a) => `'${a.target}'`).join(', ')}; nothing was applied to any target)` : '';
    io.stderr.write(
      `Nothing was applied: fix what the prune guard names, raise --max-deletes if the deletes are intended ` +
        `(--allow-empty-kind KIND for the last objects of a kind), or apply without --prune${where}.\n`,
    );
    throw new ExitRequest(1);
  }
  const changing = arrived.filter((a) => hasChanges(a.plan)).map((a) => a.target);
  if (changing.length > 0 && !flags.autoApprove && !saved) await interrupts.beforeApply(confirm(io, changing));
  interrupts.applying();
}

/** The policy findings of every target: of the plan it applied, or of the plan a policy refusal stopped. */
function policyFindings(runs: readonly Outcome<RunReport>[]): Finding[] {
  return mergeFindings(
    runs.map((r) => ('value' in r ? (r.value.plan.policy ?? []) : r.error instanceof PolicyRefusal ? r.error.findings : [])),
  );
}

/** What an interrupted apply did and did not do (unchanged objects are not counted as not started). */
function interruptedSummary(reports: readonly ApplyReport[]): string {
  const changes = reports.flatMap((report) => report.results.filter((r) => r.action !== 'noop'));
  const applied = changes.filter((r) => r.outcome === 'applied').length;
  const notStarted = changes.filter((r) => r.notStarted).length;
  const skipped = changes.filter((r) => r.outcome === 'skipped' && !r.notStarted).length;
  const failed = changes.filter((r) => r.outcome === 'failed').length;
  return (
    `Interrupted: ${applied} change(s) applied, ${failed} failed, ` +
    `${skipped > 0 ? `${skipped} skipped, ` : ''}${notStarted} not started; the inventory lock is ` +
    `released. Run apply again to finish.`
  );
}

/** A saved plan applies to its own targets only: a --target it does not hold would be applied unreviewed. */
function checkSavedTargets(saved: SavedPlan, asked: readonly string[], file: string): void {
  const held = saved.plans.map((p) => p.target);
  const other = asked.filter((t) => !held.includes(t));
  if (other.length > 0) {
    throw new ConfigError(
      `${file} holds the plan of ${held.map((t) => `'${t}'`).join(', ')}, not of ${other.map((t) => `'${t}'`).join(', ')}`,
      { hint: 'plan that target and apply its plan, or leave --target out' },
    );
  }
}

/** A saved plan (`plan --out FILE`), of one target or several. */
function savedPlanArgument(io: CliIO, paths: readonly string[]): SavedPlan | null {
  const [only, ...rest] = paths;
  if (!only || rest.length > 0 || !only.endsWith('.json')) return null;
  let text: string;
  try {
    text = readRegularFile(resolve(io.cwd, only), MAX_STATE_FILE_BYTES);
  } catch (err) {
    if (!(err instanceof FileRefusal)) throw err;
    throw new ConfigError(`cannot read the saved plan ${only}: it is ${err.reason}`, { hint: 'pass the file `obsync plan --out` wrote' });
  }
  return parseSavedPlans(text, only);
}

async function confirm(io: CliIO, targets: readonly string[]): Promise<void> {
  if (io.stdin.isTTY !== true) {
    io.stderr.write('error: not on a terminal: refusing to apply without --auto-approve\n');
    throw new ExitRequest(1);
  }
  const named = targets.map((t) => `'${t}'`).join(', ');
  const answer = await askOnTerminal(
    io,
    `\nApply these changes to target${targets.length > 1 ? 's' : ''} ${named}? Only 'yes' is accepted: `,
  );
  // On a terminal, readline takes Ctrl-C itself: it means "stop", as anywhere else before the apply.
  if (answer === null) throw new InterruptedBeforeApply();
  if (answer.trim() !== 'yes') {
    io.stderr.write('Apply cancelled.\n');
    throw new ExitRequest(1);
  }
}

/** One line per change on stderr; with several targets, each names its target. */
function progress(io: CliIO, r: StepResult, target: string | undefined): void {
  const moved = r.movedFrom !== undefined || (r.movedParts?.length ?? 0) > 0;
  if ((r.outcome === 'unchanged' && !moved) || (r.action === 'noop' && r.outcome === 'skipped')) return;
  const renames = [...(r.movedFrom ? [`from ${r.movedFrom}`] : []), ...(r.movedParts ?? []).map((m) => `${m.from} → ${m.to}`)];
  const movedText = `moved ${renames.join(', ')}`;
  const verb = r.outcome === 'applied' ? (VERB[r.action] ?? r.action) : r.outcome;
  const what = r.outcome === 'unchanged' ? movedText : moved && r.outcome === 'applied' ? `${verb} (${movedText})` : verb;
  const detail = r.message ? `: ${r.message}` : '';
  // Server error bodies and ids are text from outside: shown, never obeyed (escape sequences).
  io.stderr.write(
    `${printable(`${target ? `${target}: ` : ''}${r.address}: ${what}${r.id ? ` [id=${r.id}]` : ''} (${stepTime(r)})${detail}`)}\n`,
  );
}
