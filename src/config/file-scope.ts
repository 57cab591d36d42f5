/** Where `${file:}` in manifests may read (DESIGN §4 "Trust rules"): never in obsync's state directory. */
import { dirname, resolve } from 'node:path';
import type { FileScope } from '../manifests/files.js';
import type { ObsyncConfig } from './schema.js';

/**
 * Where the manifests' `${file:}` may read (DESIGN §4): below the directory of obsync.yaml, or,
 * without one, below the working directory and the paths given; more only when allowed by
 * `allowFileOutside` in obsync.yaml or --allow-file-outside.
 */
export function manifestFileScope(input: {
  configPath: string | undefined;
  config: ObsyncConfig | undefined;
  cwd: string;
  paths: readonly string[];
  allowFlag: boolean;
  env: Readonly<Record<string, string | undefined>>;
}): FileScope {
  const configDir = input.configPath ? dirname(input.configPath) : undefined;
  const roots = configDir ? [configDir] : [...new Set([input.cwd, ...input.paths.map((p) => (/\.ya?ml$/i.test(p) ? dirname(p) : p))])];
  const fromConfig = input.config?.allowFileOutside;
  const listed = Array.isArray(fromConfig) && configDir ? fromConfig.map((d) => resolve(configDir, d)) : [];
  const stateDir = stateDirectory({
    env: input.env,
    cwd: input.cwd,
    statePath: input.config?.state?.path,
    baseDir: configDir ?? input.cwd,
  });
  return { roots, allowOutside: input.allowFlag || fromConfig === true || listed, denied: [stateDir] };
}

/** The file backend's directory: OBSYNC_STATE_DIR, else state.path of obsync.yaml (relative to it), else .obsync/state. */
export function stateDirectory(input: {
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  statePath: string | undefined;
  baseDir: string;
}): string {
  if (input.env.OBSYNC_STATE_DIR) return resolve(input.cwd, input.env.OBSYNC_STATE_DIR);
  return resolve(input.baseDir, input.statePath ?? '.obsync/state');
}
