/** Builds the commander program. Each command lives in ./commands/<name>.ts and registers itself here. */
import { Command } from 'commander';
import type { CliIO } from './io.js';
import { register as registerApply } from './commands/apply.js';
import { register as registerKeys } from './commands/keys.js';
import { register as registerPlan } from './commands/plan.js';
import { register as registerQuery } from './commands/query.js';
import { register as registerRun } from './commands/run.js';
import { register as registerSandbox } from './commands/sandbox.js';
import { register as registerSchema } from './commands/schema.js';
import { register as registerState } from './commands/state.js';
import { register as registerValidate } from './commands/validate.js';

export type CommandRegistrar = (program: Command, io: CliIO) => void;

const registrars: CommandRegistrar[] = [
  // one line per command module
  registerValidate,
  registerPlan,
  registerApply,
  registerRun,
  registerSandbox,
  registerKeys,
  registerQuery,
  registerSchema,
  registerState,
];

export const VERSION = '0.1.0';

export function buildProgram(io: CliIO): Command {
  const program = new Command('obsync')
    .description('GitOps reconciler for observability configuration: dashboards, alerts and pipe settings kept in Git')
    .version(VERSION)
    .showHelpAfterError()
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
    });
  for (const register of registrars) register(program, io);
  return program;
}
