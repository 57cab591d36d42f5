#!/usr/bin/env node
/** Entry point: the only place that reads argv and sets the process exit code. */
import { CommanderError } from 'commander';
import { ExitRequest, processIO, reportError } from './io.js';
import { buildProgram } from './program.js';

async function main(): Promise<number> {
  const io = processIO();
  const program = buildProgram(io).exitOverride();
  try {
    await program.parseAsync(process.argv);
    return 0;
  } catch (err) {
    if (err instanceof ExitRequest) return err.exitCode;
    if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : 1;
    reportError(io, err, io.env.OBSYNC_DEBUG === '1');
    return 1;
  }
}

process.exitCode = await main();
