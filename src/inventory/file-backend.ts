/** The `file` state backend (the default): one directory, see file-store.ts, lock.ts, file-backups.ts. */
import { mkdir, readdir, rename, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { LockError, ObsyncError } from '../core/errors.js';
import type { InventoryBackup, InventoryStore } from '../core/inventory.js';
import type {
  InventoryAccess,
  LeaseAttempt,
  LeaseTiming,
  StateBackend,
  StateBackups,
  StateRecord,
  StateRecords,
  WriterLease,
} from './backend.js';
import { readFileBackups, writeFileBackup } from './file-backups.js';
import { openFileTarget } from './file-store.js';
import { loadTarget, ownedOnce } from './file-state.js';
import { readFileKey, writeFileKey } from './fingerprint.js';
import { tryFileLease } from './lock.js';

const TARGET_FILE = /^([a-z0-9][a-z0-9-]*)\.(json|journal)$/;

export class FileStateBackend implements StateBackend {
  readonly kind = 'file';
  readonly location: string;

  constructor(
    readonly dir: string,
    readonly timing: LeaseTiming,
  ) {
    this.location = resolve(dir);
  }

  openInventory(target: string, access: InventoryAccess): Promise<InventoryStore> {
    return openFileTarget(this.dir, target, access, this.timing);
  }

  async tryLease(target: string, command: string): Promise<LeaseAttempt> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    return tryFileLease(join(this.dir, `${target}.lock`), target, command, this.timing);
  }

  async targets(): Promise<string[]> {
    const files = await readdir(this.dir).catch(() => [] as string[]);
    const names = new Set(files.map((f) => TARGET_FILE.exec(f)?.[1]).filter((n): n is string => n !== undefined));
    return [...names].sort();
  }

  async records(target: string): Promise<StateRecords> {
    const loaded = await loadTarget(this.dir, target, { repair: false });
    const once = ownedOnce(loaded, join(this.location, `${target}.json`));
    const records = [...once.entries].map(([address, entry]) => ({ target, entry, since: loaded.since.get(address) ?? entry.updatedAt }));
    return { records, skipped: once.skipped };
  }

  backups(target: string): Promise<StateBackups> {
    return readFileBackups(this.dir, target);
  }

  fingerprintKey(): Promise<Buffer | null> {
    return Promise.resolve(readFileKey(this.dir));
  }

  async setFingerprintKey(key: Buffer): Promise<void> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    await writeFileKey(this.dir, key);
  }

  async importTarget(lease: WriterLease, records: readonly StateRecord[], backups: readonly InventoryBackup[]): Promise<void> {
    if (lease.lost.aborted) throw new LockError(`lost the writer lease on target '${lease.target}'`);
    const existing = await loadTarget(this.dir, lease.target, { repair: false });
    if (existing.entries.size > 0)
      throw new ObsyncError(
        'STATE_NOT_EMPTY',
        `${this.location} already holds ${existing.entries.size} entries for target '${lease.target}'`,
      );
    const entries = records.map((r) => r.entry);
    const since = Object.fromEntries(records.map((r) => [`${r.entry.kind}/${r.entry.name}`, r.since]));
    const tmp = join(this.dir, `${lease.target}.json.${process.pid}.tmp`);
    await writeFile(tmp, JSON.stringify({ version: 1, target: lease.target, entries, since }, null, 1) + '\n', { mode: 0o600 });
    await rename(tmp, join(this.dir, `${lease.target}.json`));
    for (const b of backups) await writeFileBackup(this.dir, b);
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
