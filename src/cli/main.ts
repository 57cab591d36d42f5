#!/usr/bin/env node
/** Entry point: the only place that reads argv and sets the process exit code. */
import module from 'node:module';

// V8's code cache for every module loaded after this line (Node ≥ 22.1; Node 20 has no
// enableCompileCache, so there this does nothing). The other modules are therefore imported
// dynamically below: static imports would be compiled before it runs.
(module as { enableCompileCache?: () => unknown }).enableCompileCache?.();

const [{ CommanderError }, { ExitRequest, ignoreClosedPipe, processIO, reportError }, { buildProgram }] = await Promise.all([
  import('commander'),
  import('./io.js'),
  import('./program.js'),
]);

async function main(): Promise<number> {
  const io = processIO();
  ignoreClosedPipe(process.stdout);
  try {
    const args = process.argv.slice(2);
    const program = await buildProgram(io, args);
    await program.parseAsync(args, { from: 'user' });
    return 0;
  } catch (err) {
    if (err instanceof ExitRequest) return err.exitCode;
    if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : 1;
    reportError(io, err, io.env.OBSYNC_DEBUG === '1');
    return 1;
  }
}

process.exitCode = await main();
