/**
 * Which manifest paths each target reads (DESIGN §3): the top-level `manifests` (default: the
 * directory of obsync.yaml, unless the target lists its own) plus the target's own
 * `targets[].manifests` — a base shared by every target and an overlay per target. PATH
 * arguments on the command line replace both, for every target.
 */
import { isAbsolute, resolve } from 'node:path';

export interface PathsInput {
  cwd: string;
  /** PATH arguments as given. */
  given: readonly string[];
  configPath: string | undefined;
  /** Top-level `manifests` of obsync.yaml. */
  top: readonly string[] | undefined;
  /** The target's own `manifests`. */
  own: readonly string[] | undefined;
}

export function manifestPaths({ cwd, given, configPath, top, own }: PathsInput): string[] {
  const configDir = configPath ? resolve(configPath, '..') : undefined;
  // A single directory holding obsync.yaml stands for "that project": use its manifest lists.
  const projectArg = configDir !== undefined && given.length === 1 && resolve(cwd, given[0] ?? '') === configDir;
  if (given.length > 0 && !projectArg) return given.map((p) => resolve(cwd, p));
  if (!configDir) return [cwd];
  const listed = [...(top ?? (own && own.length > 0 ? [] : ['.'])), ...(own ?? [])];
  return [...new Set(listed.map((p) => (isAbsolute(p) ? p : resolve(configDir, p))))];
}
