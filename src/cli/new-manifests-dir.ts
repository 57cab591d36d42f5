/** Where obsync export, pull and the daemon's proposals put a target's new manifests. */
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { ConfigError } from '../core/errors.js';
import type { Session } from './session-types.js';

/** Where export would put a target's new manifests: its last manifest folder (a target's own overlay follows the shared ones). */
export function newManifestsDir(s: Session): string {
  const dirs = s.manifestPaths.filter((p) => {
    try {
      return statSync(p).isDirectory();
    } catch {
      return false;
    }
  });
  const dir = dirs.at(-1);
  if (dir === undefined) throw new ConfigError(`target '${s.port.target}' reads no manifest folder to write new manifests into`);
  return resolve(dir);
}
