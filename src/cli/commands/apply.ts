/** `obsync apply`: plan, confirm, execute; or execute a saved plan's steps that are still valid. */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline/promises';
import { Option, type Command } from 'commander';
import { hasChanges, type Plan } from '../../core/plan.js';
import { printable } from '../../core/printable.js';
import type { ApplyReport, StepResult } from '../../applier/context.js';
import { parsePlanDocument, savedPlanFor, type SavedPlan } from '../../render/plan-json.js';
import { renderPlanText } from '../../render/plan-text.js';
import { renderRunApply } from '../../render/run.js';
import { ApplyInterrupts, INTERRUPTED_EXIT, InterruptedBeforeApply } from '../interrupt.js';
import { colorEnabled, ExitRequest, type CliIO } from '../io.js';
import { VERSION, type CommandRegistrar } from '../program.js';
import { wholeNumber } from '../numbers.js';
import { checkSelectionMatches, commonRunOptions, parseRunOptions, refusedPrune, type RawRunOptions } from '../run-options.js';
import { openSession, printDiagnostics, reconcileSession } from '../session.js';

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
    const savedFile = await savedPlanArgument(io, paths);
    const saved = savedFile ? { plan: savedPlanFor(savedFile.saved, flags.target, savedFile.file), document: savedFile.saved.document } : null;
    const opts = parseRunOptions(flags);
    // Listening before the lock is taken: a Ctrl-C from here on releases it on the way out.
    const interrupts = new ApplyInterrupts(io);
    const session = await openSession(io, {
      paths: saved ? saved.document.manifests : paths,
      config: flags.config ?? saved?.document.config,
      target: flags.target ?? saved?.plan.target,
      lock: true,
      command: 'apply',
      timeoutMs: opts.timeoutMs,
      allowFileOutside: flags.allowFileOutside,
    }).catch((err: unknown) => {
      interrupts.dispose();
      throw err;
    });
    try {
      if (printDiagnostics(io, session.diagnostics, 'text')) throw new ExitRequest(1);
      checkSelectionMatches(opts.selection, session.desired, session.inventory.entries());
      const color = colorEnabled(io, 'stdout', flags.color);
      // Applied even without changes: unchanged objects record their ownership (adoptions).
      // A saved plan is applied with the prune decision it was made with.
      const report = await reconcileSession(session, opts, {
        mode: 'apply',
        ...(saved ? { saved: saved.plan } : {}),
        ...(flags.concurrency !== undefined ? { concurrency: flags.concurrency } : {}),
        signal: interrupts.planningSignal,
        applySignal: interrupts.signal,
        beforeApply: async (plan) => {
          if (flags.output === 'text') io.stdout.write(renderPlanText(plan, { color }));
          if (refusedPrune(io, plan, flags.output)) {
            io.stderr.write('Nothing was applied: fix what the prune guard names, raise --max-deletes if the deletes are intended, or apply without --prune.\n');
            throw new ExitRequest(1);
          }
          // A saved plan was reviewed when it was made: it applies without a prompt (as `terraform apply plan.tfplan`).
          if (hasChanges(plan) && !flags.autoApprove && !saved) await interrupts.beforeApply(confirm(io, plan));
          interrupts.applying();
        },
        onStepStart: interrupts.stepStarted,
        onStepDone: (r) => {
          interrupts.stepDone(r.address);
          progress(io, r);
        },
      });
      const { plan, apply } = report;
      if (!apply) return;
      const interrupted = interrupts.stopped;
      const origin = { generatedAt: new Date(), obsyncVersion: VERSION, interrupted };
      if (flags.output === 'json') io.stdout.write(renderRunApply([report], 'json', { color, origin }));
      else if (interrupted || hasChanges(plan) || apply.summary.failed + apply.summary.refused > 0) io.stdout.write(renderRunApply([report], 'text', { color, origin }));
      if (interrupted) {
        io.stderr.write(`${interruptedSummary(apply)}\n`);
        throw new ExitRequest(INTERRUPTED_EXIT);
      }
      if (plan.errored || apply.summary.failed > 0 || apply.summary.refused > 0) throw new ExitRequest(1);
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

async function savedPlanArgument(io: CliIO, paths: readonly string[]): Promise<{ file: string; saved: SavedPlan } | null> {
  const [only, ...rest] = paths;
  if (!only || rest.length > 0 || !only.endsWith('.json')) return null;
  return { file: only, saved: parsePlanDocument(await readFile(resolve(io.cwd, only), 'utf8'), only) };
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
