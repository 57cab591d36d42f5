/**
 * The targets obsync.yaml declares that a command did not open (not selected with --target, or
 * not resolvable), each with the manifest paths it reads. A manifest under one of them is not the
 * command's alone to edit: `obsync pull --target staging` must not write into base/ that
 * production reads too. Their own paths come from obsync.yaml as written (a target's settings are
 * not resolved when it is not in use); a list holding a `${…}` counts as reading everything.
 */
import { sep } from 'node:path';
import { manifestPaths } from '../config/trees.js';
import type { Project } from './wiring.js';

export interface TargetElsewhere {
  target: string;
  paths: string[];
}

/** `opts`: the command's PATH arguments (replacing obsync.yaml's lists, per target or for all). */
export function targetsElsewhere(
  cwd: string,
  opts: { paths: readonly string[]; pathsByTarget?: Readonly<Record<string, readonly string[]>> | undefined },
  project: Project,
  opened: readonly string[],
): TargetElsewhere[] {
  const open = new Set(opened);
  return project.declared
    .filter((d) => d.name !== '' && !open.has(d.name))
    .map((d) => ({
      target: d.name,
      paths:
        d.listed === 'templated'
          ? [project.baseDir]
          : manifestPaths({
              cwd,
              given: opts.pathsByTarget?.[d.name] ?? opts.paths,
              configPath: project.configPath,
              top: project.config?.manifests,
              own: d.listed,
            }),
    }));
}

/** The targets among `elsewhere` that read the file (an absolute path). */
export function readersElsewhere(elsewhere: readonly TargetElsewhere[]): (file: string) => string[] {
  return (file) =>
    elsewhere.filter((e) => e.paths.some((p) => file === p || file.startsWith(p.endsWith(sep) ? p : p + sep))).map((e) => e.target);
}
