/**
 * Paths as a reviewer can use them: relative to the project (the working directory, as
 * `validate` has always printed them), never the runner's absolute checkout path. The loader and
 * the planner keep absolute paths (they read the files again); every output the CLI writes —
 * text, JSON, markdown, GitHub annotations, a saved plan's diagnostics — goes through here first.
 */
import { relative, sep } from 'node:path';
import type { Diagnostic } from '../core/diagnostics.js';
import type { Plan } from '../core/plan.js';

export interface ProjectPaths {
  /** A file as the project names it (`observability/a.yaml`); one outside it as a relative walk up. */
  file: (path: string) => string;
  /** A message with every absolute path inside the project made relative. */
  text: (message: string) => string;
  diagnostic: (d: Diagnostic) => Diagnostic;
  /** The plan with its diagnostics so (the rest of it is not a path). */
  plan: (plan: Plan) => Plan;
}

export function projectPaths(root: string): ProjectPaths {
  const prefix = root.endsWith(sep) ? root : `${root}${sep}`;
  const file = (path: string) => relative(root, path) || path;
  const text = (message: string) => (message.includes(prefix) ? message.split(prefix).join('') : message);
  const diagnostic = (d: Diagnostic): Diagnostic => ({
    ...d,
    message: text(d.message),
    ...(d.file === undefined ? {} : { file: file(d.file) }),
  });
  return {
    file,
    text,
    diagnostic,
    plan: (plan) => (plan.diagnostics.length === 0 ? plan : { ...plan, diagnostics: plan.diagnostics.map(diagnostic) }),
  };
}
