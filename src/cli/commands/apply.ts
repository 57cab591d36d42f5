/** `obsync apply`: plan, confirm, execute; or execute a saved plan's steps that are still valid. */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline/promises';
import { Option, type Command } from 'commander';
import type { Plan } from '../../core/plan.js';
import { printable } from '../../core/printable.js';
import type { ApplyReport, StepResult } from '../../applier/context.js';
import { applyPlanned } from '../../engine/run.js';
import { checkSavedPlan } from '../../engine/saved-plan.js';
import { parsePlanDocument, type PlanDocument } from '../../render/plan-json.js';
import { renderPlanText } from '../../render/plan-text.js';
import { makeStyle } from '../../render/style.js';
import { ApplyInterrupts, INTERRUPTED_EXIT, InterruptedBeforeApply } from '../interrupt.js';
import { colorEnabled, ExitRequest, type CliIO } from '../io.js';
import type { CommandRegistrar } from '../program.js';
import { wholeNumber } from '../numbers.js';
import { checkSelectionMatches, commonRunOptions, parseRunOptions, refusedPrune, type RawRunOptions } from '../run-options.js';
import { openSession, planSession, refuseInvalid } from '../session.js';

interface ApplyFlags extends RawRunOptions {
  autoApprove?: boolean;
  concurrency?: number;
  output: 'text' | 'json';
}

const VERB: Record<string, string> = { create: 'created', update: 'updated', delete: 'deleted', noop: 'unchanged' };

export const register: CommandRegistrar = (program: Command, io: CliIO) => {
  const cmd = program
    .command('apply')
    .description('make the service match the manifests (or apply a saved plan)')
    .argument('[paths...]', 'manifest files or directories, or one saved plan.json')
    .option('--auto-approve', 'do not ask for confirmation (required when not on a terminal)')
    .option('--concurrency <n>', 'requests in flight at once (1-64)', wholeNumber(1, 64))
    .addOption(new Option('--output <format>', 'report format').choices(['text', 'json']).default('text'));
  commonRunOptions(cmd).action(async (paths: string[], flags: ApplyFlags) => {
    const saved = await savedPlanArgument(io, paths);
    const opts = parseRunOptions(flags);
    // Listening before the lock is taken: a Ctrl-C from here on releases it on the way out.
    const interrupts = new ApplyInterrupts(io);
    const session = await openSession(io, {
      paths: saved ? saved.manifests : paths,
      config: flags.config ?? saved?.config,
      targets: flags.target.length > 0 ? flags.target : saved ? [saved.target] : [],
      lock: true,
      command: 'apply',
      timeoutMs: opts.timeoutMs,
      allowFileOutside: flags.allowFileOutside,
      checkManifests: refuseInvalid(io, 'text'),
    }).catch((err: unknown) => {
      interrupts.dispose();
      throw err;
    });
    try {
      checkSelectionMatches(opts.selection, session.desired, session.inventory.entries());
      // A saved plan is applied with the prune decision it was made with.
      const planned = await interrupts.beforeApply(planSession(session, opts, saved?.prune.requested, interrupts.planningSignal));
      const check = saved ? checkSavedPlan(saved, planned.plan) : null;
      const plan: Plan = check ? check.plan : planned.plan;
      const color = colorEnabled(io, 'stdout', flags.color);
      if (flags.output === 'text') io.stdout.write(renderPlanText(plan, { color }));
      if (refusedPrune(io, plan, flags.output)) {
        io.stderr.write('Nothing was applied: fix what the prune guard names, raise --max-deletes if the deletes are intended, or apply without --prune.\n');
        throw new ExitRequest(1);
      }
      const pending = plan.steps.filter((s) => s.action !== 'noop').length;
      if (pending === 0) {
        if (flags.output === 'json') io.stdout.write(JSON.stringify(emptyReport(plan), null, 2) + '\n');
        if (plan.errored) throw new ExitRequest(1);
        return;
      }
      // A saved plan was reviewed when it was made: it applies without a prompt (as `terraform apply plan.tfplan`).
      if (!flags.autoApprove && !saved) await interrupts.beforeApply(confirm(io, plan));
      interrupts.applying();
      const report = await applyPlanned(
        { ...planned, plan },
        {
          port: session.port,
          inventory: session.inventory,
          backupDir: session.backupDir,
          concurrency: flags.concurrency ?? session.defaults.concurrency,
          ...(check ? { refused: check.refused } : {}),
          signal: interrupts.signal,
          onStepStart: interrupts.stepStarted,
          onStepDone: (r) => {
            interrupts.stepDone(r.address);
            progress(io, r);
          },
        },
      );
      const interrupted = interrupts.stopped;
      if (flags.output === 'json') io.stdout.write(JSON.stringify(interrupted ? { ...report, interrupted } : report, null, 2) + '\n');
      else io.stdout.write(renderReport(report, makeStyle(color)));
      if (interrupted) {
        io.stderr.write(`${interruptedSummary(report)}\n`);
        throw new ExitRequest(INTERRUPTED_EXIT);
      }
      if (plan.errored || report.summary.failed > 0 || report.summary.refused > 0) throw new ExitRequest(1);
    } catch (err) {
      if (!(err instanceof InterruptedBeforeApply)) throw err;
      io.stderr.write('\nInterrupted: nothing was applied.\n');
      throw new ExitRequest(INTERRUPTED_EXIT);
    } finally {
      interrupts.dispose();
      await session.close();
    }
  });
};

/** What an interrupted apply did and did not do (unchanged objects are not counted as skipped). */
function interruptedSummary(report: ApplyReport): string {
  const changes = report.results.filter((r) => r.action !== 'noop');
  const applied = changes.filter((r) => r.outcome === 'applied').length;
  const skipped = changes.filter((r) => r.outcome === 'skipped').length;
  const failed = changes.filter((r) => r.outcome === 'failed').length;
  return `Interrupted: ${applied} change(s) applied, ${failed} failed, ${skipped} not started; the inventory lock is released. Run apply again to finish.`;
}

async function savedPlanArgument(io: CliIO, paths: readonly string[]): Promise<PlanDocument | null> {
  const [only, ...rest] = paths;
  if (!only || rest.length > 0 || !only.endsWith('.json')) return null;
  return parsePlanDocument(await readFile(resolve(io.cwd, only), 'utf8'), only);
}

async function confirm(io: CliIO, plan: Plan): Promise<void> {
  if (io.stdin.isTTY !== true) {
    io.stderr.write('error: not on a terminal: refusing to apply without --auto-approve\n');
    throw new ExitRequest(1);
  }
  const rl = createInterface({ input: io.stdin, output: io.stderr });
  // On a terminal, readline takes Ctrl-C itself: it means "stop", as anywhere else before the apply.
  const cancelled = new AbortController();
  rl.once('SIGINT', () => cancelled.abort(new InterruptedBeforeApply()));
  try {
    const answer = await rl.question(`\nApply these changes to target '${plan.target}'? Only 'yes' is accepted: `, { signal: cancelled.signal }).catch((err: unknown) => {
      throw cancelled.signal.aborted ? new InterruptedBeforeApply() : err;
    });
    if (answer.trim() !== 'yes') {
      io.stderr.write('Apply cancelled.\n');
      throw new ExitRequest(1);
    }
  } finally {
    rl.close();
  }
}

function progress(io: CliIO, r: StepResult): void {
  if (r.outcome === 'unchanged' || (r.action === 'noop' && r.outcome === 'skipped')) return;
  const what = r.outcome === 'applied' ? (VERB[r.action] ?? r.action) : r.outcome;
  const detail = r.message ? `: ${r.message}` : '';
  // Server error bodies and ids are text from outside: shown, never obeyed (escape sequences).
  io.stderr.write(`${printable(`${r.address}: ${what}${r.id ? ` [id=${r.id}]` : ''} (${r.durationMs} ms)${detail}`)}\n`);
}

function renderReport(report: ApplyReport, style: ReturnType<typeof makeStyle>): string {
  const counts: Record<string, number> = { create: 0, update: 0, delete: 0 };
  for (const r of report.results) if (r.outcome === 'applied') counts[r.action] = (counts[r.action] ?? 0) + 1;
  const lines: string[] = [''];
  for (const r of report.results) {
    for (const c of r.nonConvergent ?? []) lines.push(style('yellow', `warning: ${r.address}: the service did not keep ${c.path}; it is left out of later plans until the manifest changes it`));
  }
  if (report.pruneSkipped) lines.push(style('yellow', `Prune skipped: ${report.pruneSkipped}.`));
  const s = report.summary;
  const failed = s.failed + s.refused + s.skipped;
  const head = failed > 0 ? style('red', 'Apply finished with errors:') : style('green', 'Apply complete:');
  lines.push(`${head} ${counts.create} created, ${counts.update} updated, ${counts.delete} deleted, ${s.failed} failed, ${s.refused} refused, ${s.skipped} skipped.`);
  return lines.join('\n') + '\n';
}

function emptyReport(plan: Plan): ApplyReport {
  return { target: plan.target, results: [], summary: { applied: 0, unchanged: plan.steps.length, failed: 0, skipped: 0, refused: 0 } };
}
