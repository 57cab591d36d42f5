/**
 * What target resolution reads (obsync.yaml, the environment, the targets chosen) and what it gives: a remote
 * service's Target, or the embedded sandbox.
 */
import type { Target } from '../core/target.js';
import type { ObsyncConfig } from './schema.js';

export type Env = Readonly<Record<string, string | undefined>>;

export interface EmbeddedTarget {
  name: string;
  api: 'hosted' | 'self-hosted';
  /** Relative to the config directory (or the working directory); absent: under the state directory. */
  dataDir?: string;
  concurrency: number;
}

export type ResolvedTarget = { kind: 'remote'; target: Target } | { kind: 'embedded'; embedded: EmbeddedTarget };

export interface ResolveInput {
  /** Its `targets` resolved for (at least) the one named. */
  config: ObsyncConfig | undefined;
  /** --target */
  name: string | undefined;
  env: Env;
  readFile: (path: string) => string;
}

export const EMBEDDED_NAME = 'sandbox';

/** The name of the target OBSYNC_BASE_URL defines when obsync.yaml declares none. */
export const ENV_TARGET_NAME = 'default';

export interface ResolveManyInput {
  /** The config, its `targets` resolved for (at least) the chosen names. */
  config: ObsyncConfig | undefined;
  /** From `chooseTargets`. */
  chosen: readonly string[];
  env: Env;
  readFile: (path: string) => string;
  /**
   * Whether an undeclared embedded sandbox may stand in (no target at all, or `--target sandbox`
   * without declaring it): not for `obsync run`, which reconciles only what the config names.
   */
  implicitSandbox?: boolean;
  /** obsync.yaml as the messages name it (its path, or where none was found). */
  configName?: string;
}
