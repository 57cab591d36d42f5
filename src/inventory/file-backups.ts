/**
 * Backups of deleted objects in the file backend: `<state dir>/backups/<time>/<target>/<Kind>-<name>.json`.
 * Inside the state directory, so they land on the same (writable) volume as the inventory.
 */
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as z from 'zod';
import { MAX_STATE_FILE_BYTES, readRegularFile } from '../manifests/files.js';
import type { InventoryBackup, SkippedRow } from '../core/inventory.js';
import type { Address, Kind } from '../core/plan.js';

const backupFile = z.object({
  address: z.string(),
  id: z.string().nullable().optional(),
  backedUpAt: z.string(),
  object: z.unknown(),
});

export function fileBackupsDir(stateDir: string): string {
  return join(stateDir, 'backups');
}

export async function writeFileBackup(stateDir: string, backup: InventoryBackup): Promise<string> {
  const folder = join(fileBackupsDir(stateDir), backup.backedUpAt.replace(/[:.]/g, '-'), backup.target);
  await mkdir(folder, { recursive: true, mode: 0o700 });
  const file = join(folder, `${backup.kind}-${backup.name}.json`);
  const body = { address: backup.address, id: backup.id, backedUpAt: backup.backedUpAt, object: backup.object };
  await writeFile(file, JSON.stringify(body, null, 2) + '\n', { mode: 0o600 });
  return file;
}

/** Every backup of one target, oldest first; files that are not backups are left out and named. */
export async function readFileBackups(stateDir: string, target: string): Promise<{ backups: InventoryBackup[]; skipped: SkippedRow[] }> {
  const root = fileBackupsDir(stateDir);
  const times = await readdir(root).catch(() => [] as string[]);
  const out: InventoryBackup[] = [];
  const skipped: SkippedRow[] = [];
  for (const time of times.sort()) {
    const folder = join(root, time, target);
    for (const file of (await readdir(folder).catch(() => [] as string[])).sort()) {
      const parsed = backupFile.safeParse(jsonOrNull(readOrNull(join(folder, file))));
      const [kind, name] = parsed.success ? parsed.data.address.split('/') : [];
      if (!parsed.success || !kind || !name) {
        skipped.push({
          table: folder,
          key: file,
          reason: 'not a backup obsync wrote (not readable as one)',
          hint: 'move it out of the backups folder',
        });
        continue;
      }
      out.push({
        target,
        address: parsed.data.address as Address,
        kind: kind as Kind,
        name,
        id: parsed.data.id ?? '',
        backedUpAt: parsed.data.backedUpAt,
        object: parsed.data.object,
      });
    }
  }
  return { backups: out, skipped };
}

function jsonOrNull(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return null;
  }
}

/** A backup's text; one that cannot be read (not a regular file, too large, gone) is passed over like any non-backup. */
function readOrNull(path: string): string {
  try {
    return readRegularFile(path, MAX_STATE_FILE_BYTES);
  } catch {
    return 'null';
  }
}
