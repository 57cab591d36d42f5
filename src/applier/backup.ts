/** Before a delete, the live object is written to `<backups>/<time>/<target>/<Kind>-<name>.json`. */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** What is backed up: a step's object, or one the service deletes along with it (no address when unowned). */
export interface BackedUp {
  kind: string;
  name: string;
  address?: string | undefined;
  id?: string | undefined;
}

export async function writeBackup(dir: string, target: string, step: BackedUp, live: unknown, at: Date): Promise<string> {
  const folder = join(dir, at.toISOString().replace(/[:.]/g, '-'), target);
  await mkdir(folder, { recursive: true, mode: 0o700 });
  const file = join(folder, `${step.kind}-${step.name}.json`);
  await writeFile(file, JSON.stringify({ address: step.address, id: step.id, backedUpAt: at.toISOString(), object: live }, null, 2) + '\n', { mode: 0o600 });
  return file;
}
