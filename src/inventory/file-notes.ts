/**
 * Notes of a target in the file backend: `<state dir>/notes/<target>/<name>.json`, each replaced
 * whole (written beside, then renamed over), readable by the owner only like the rest of the state.
 */
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { NoteName } from '../core/inventory.js';
import type { Json } from '../core/wire.js';
import { MAX_STATE_FILE_BYTES, readRegularFile } from '../manifests/files.js';

function notePath(stateDir: string, target: string, name: NoteName): string {
  return join(stateDir, 'notes', target, `${name}.json`);
}

/** The note as written; null when there is none or it cannot be read as JSON (not a regular file, too large, cut short). */
export function readFileNote(stateDir: string, target: string, name: NoteName): unknown {
  try {
    return JSON.parse(readRegularFile(notePath(stateDir, target, name), MAX_STATE_FILE_BYTES)) as unknown;
  } catch {
    return null;
  }
}

export async function writeFileNote(stateDir: string, target: string, name: NoteName, value: Json): Promise<void> {
  const path = notePath(stateDir, target, name);
  await mkdir(join(stateDir, 'notes', target), { recursive: true, mode: 0o700 });
  const tmp = `${path}.${process.pid}.tmp`;
  await writeFile(tmp, `${JSON.stringify(value)}\n`, { mode: 0o600 });
  await rename(tmp, path);
}
