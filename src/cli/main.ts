#!/usr/bin/env node
/** Entry point: the only place that reads argv and sets the process exit code. */
import { CommanderError } from 'commander';
import { credentialSources } from '../config/credentials.js';
import { registerSecret } from '../core/scrub.js';
import { ExitRequest, processIO, reportError } from './io.js';
import { buildProgram } from './program.js';

async function main(): Promise<number> {
  const io = processIO();
  // obsync's credentials are secrets from the start, whether or not this command uses them.
  for (const value of credentialSources(io.env).values) registerSecret(value);
  // Even an unexpected failure is reported through the scrubbing writer, never as a raw trace.
  process.on('uncaughtException', (err) => {
    reportError(io, err, io.env.OBSYNC_DEBUG === '1');
    process.exit(1);
  });
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
