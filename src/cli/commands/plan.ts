/** `obsync plan`: what apply would do, as text, JSON (saved plan) or a pull-request comment. */
import { Option, type Command } from 'commander';
import { writeScrubbedFile } from '../../log/files.js';
import { renderPlanJson } from '../../render/plan-json.js';
import { renderRunPlan, runPlanDocument, type PlanOrigin } from '../../render/run.js';
import { colorEnabled, ExitRequest, type CliIO } from '../io.js';
import { VERSION, type CommandRegistrar } from '../program.js';
import { checkSelectionMatches, commonRunOptions, parseRunOptions, refusedPrune, type RawRunOptions } from '../run-options.js';
import { githubAnnotation } from './validate.js';
import { openSession, printDiagnostics, reconcileSession } from '../session.js';

interface PlanFlags extends RawRunOptions {
  out?: string;
  output: 'text' | 'json' | 'markdown' | 'github';
  detailedExitcode?: boolean;
}

export const register: CommandRegistrar = (program: Command, io: CliIO) => {
  const cmd = program
    .command('plan')
    .description('show the changes apply would make (reads the service, writes nothing)')
    .argument('[paths...]', 'manifest files or directories (default: obsync.yaml manifests, else .)')
    .option('--out <file>', 'also save the plan as JSON for `obsync apply FILE`')
    .addOption(new Option('--output <format>', 'output format').choices(['text', 'json', 'markdown', 'github']).default('text'))
    .option('--detailed-exitcode', 'exit 2 when there are changes (0: none, 1: error)');
  commonRunOptions(cmd).action(async (paths: string[], flags: PlanFlags) => {
    const opts = parseRunOptions(flags);
    const session = await openSession(io, { paths, config: flags.config, target: flags.target, lock: false, command: 'plan', timeoutMs: opts.timeoutMs, allowFileOutside: flags.allowFileOutside });
    try {
      if (printDiagnostics(io, session.diagnostics, flags.output === 'github' ? 'github' : 'text')) throw new ExitRequest(1);
      checkSelectionMatches(opts.selection, session.desired, session.inventory.entries());
      const report = await reconcileSession(session, opts, { mode: 'plan' });
      const plan = report.plan;
      const origin: PlanOrigin = { generatedAt: new Date(), obsyncVersion: VERSION, manifests: session.manifestPaths, ...(session.configPath ? { config: session.configPath } : {}) };
      if (flags.out) await writeScrubbedFile(flags.out, renderPlanJson(runPlanDocument([report], origin)));
      const format = flags.output === 'github' ? 'text' : flags.output;
      io.stdout.write(renderRunPlan([report], format, { color: colorEnabled(io, 'stdout', flags.color), origin }));
      if (flags.output === 'github') for (const d of plan.diagnostics) io.stdout.write(`${githubAnnotation(d)}\n`);
      if (plan.errored) throw new ExitRequest(1);
      if (refusedPrune(io, plan, flags.output)) throw new ExitRequest(1);
      const changed = plan.summary.create + plan.summary.update + plan.summary.delete > 0;
      if (flags.detailedExitcode && changed) throw new ExitRequest(2);
    } finally {
      await session.close();
    }
  });
};
