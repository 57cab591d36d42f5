/** `obsync apply`: plan, confirm, execute; or execute a saved plan's steps that are still valid. */
import { readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline/promises';
import { Option, type Command } from 'commander';
import { hasChanges, type Plan } from '../../core/plan.js';
import type { StepResult } from '../../applier/context.js';
import { parsePlanDocument, type PlanDocument } from '../../render/plan-json.js';
import { renderPlanText } from '../../render/plan-text.js';
import { renderRunApply } from '../../render/run.js';
import { colorEnabled, ExitRequest, type CliIO } from '../io.js';
import type { CommandRegistrar } from '../program.js';
import { commonRunOptions, parseRunOptions, type RawRunOptions } from '../run-options.js';
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
    .option('--concurrency <n>', 'requests in flight at once', (v) => Math.max(1, Math.min(64, Number.parseInt(v, 10) || 1)))
    .addOption(new Option('--output <format>', 'report format').choices(['text', 'json']).default('text'));
  commonRunOptions(cmd).action(async (paths: string[], flags: ApplyFlags) => {
    const saved = await savedPlanArgument(paths);
    const opts = parseRunOptions(flags);
    const session = await openSession(io, {
      paths: saved ? saved.manifests : paths,
      config: flags.config ?? saved?.config,
      target: flags.target ?? saved?.target,
      lock: true,
      command: 'apply',
    });
    try {
      if (printDiagnostics(io, session.diagnostics, 'text')) throw new ExitRequest(1);
      const color = colorEnabled(io, 'stdout', flags.color);
      // Applied even without changes: unchanged objects record their ownership (adoptions).
      const report = await reconcileSession(session, opts, {
        mode: 'apply',
        ...(saved ? { saved } : {}),
        ...(flags.concurrency !== undefined ? { concurrency: flags.concurrency } : {}),
        beforeApply: async (plan) => {
          if (flags.output === 'text') io.stdout.write(renderPlanText(plan, { color }));
          if (hasChanges(plan) && !flags.autoApprove) await confirm(io, plan);
        },
        onStepDone: (r) => progress(io, r),
      });
      const { plan, apply } = report;
      if (!apply) return;
      if (flags.output === 'json') io.stdout.write(renderRunApply(apply, 'json', { color }));
      else if (hasChanges(plan) || apply.summary.failed + apply.summary.refused > 0) io.stdout.write(renderRunApply(apply, 'text', { color }));
      if (plan.errored || apply.summary.failed > 0 || apply.summary.refused > 0) throw new ExitRequest(1);
    } finally {
      await session.close();
    }
  });
};

async function savedPlanArgument(paths: readonly string[]): Promise<PlanDocument | null> {
  const [only, ...rest] = paths;
  if (!only || rest.length > 0 || !only.endsWith('.json')) return null;
  return parsePlanDocument(await readFile(only, 'utf8'), only);
}

async function confirm(io: CliIO, plan: Plan): Promise<void> {
  if (io.stdin.isTTY !== true) {
    io.stderr.write('error: not on a terminal: refusing to apply without --auto-approve\n');
    throw new ExitRequest(1);
  }
  const rl = createInterface({ input: io.stdin, output: io.stderr });
  try {
    const answer = await rl.question(`\nApply these changes to target '${plan.target}'? Only 'yes' is accepted: `);
    if (answer.trim() !== 'yes') {
      io.stderr.write('Apply cancelled.\n');
      throw new ExitRequest(1);
    }
  } finally {
    rl.close();
  }
}

function progress(io: CliIO, r: StepResult): void {
  if (r.outcome === 'unchanged') return;
  const what = r.outcome === 'applied' ? (VERB[r.action] ?? r.action) : r.outcome;
  const detail = r.message ? `: ${r.message}` : '';
  io.stderr.write(`${r.address}: ${what}${r.id ? ` [id=${r.id}]` : ''} (${r.durationMs} ms)${detail}\n`);
}
