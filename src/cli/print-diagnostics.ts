/** Load diagnostics as a command prints them (text on stderr, or GitHub annotations), and the refusal they cause. */
import type { Diagnostic } from '../core/diagnostics.js';
import { formatDiagnostic, hasErrors } from '../core/diagnostics.js';
import { ExitRequest, type CliIO } from './io.js';
import { githubAnnotation } from './commands/validate.js';
import { projectPaths } from './project-paths.js';

/** A `checkManifests` for plan and apply: prints the diagnostics; any error stops the command (exit 1) before anything is opened. */
export function refuseInvalid(io: CliIO, format: 'text' | 'github'): (diagnostics: readonly Diagnostic[]) => void {
  return (diagnostics) => {
    if (printDiagnostics(io, diagnostics, format)) throw new ExitRequest(1);
  };
}

/** Prints load diagnostics to stderr (paths relative to the project); true when any is an error (nothing may be written). */
export function printDiagnostics(io: CliIO, diagnostics: readonly Diagnostic[], format: 'text' | 'github'): boolean {
  const shown = projectPaths(io.cwd);
  for (const d of diagnostics.map(shown.diagnostic)) {
    if (format === 'github') io.stdout.write(`${githubAnnotation(d)}\n`);
    else io.stderr.write(`${formatDiagnostic(d)}\n`);
  }
  return hasErrors(diagnostics);
}
