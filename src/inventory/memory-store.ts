/** An in-memory inventory for tests and dry runs (Terraform ships its fakes beside the real store). */
import { createHmac } from 'node:crypto';
import {
  entryAddress,
  keptEntry,
  moveRefusal,
  movedEntry,
  Owners,
  type InventoryBackup,
  type InventoryEntry,
  type InventoryStore,
  type NoteName,
} from '../core/inventory.js';
import { UNFENCED } from '../core/fence.js';
import { deepFreeze } from '../core/freeze.js';
import type { Address } from '../core/plan.js';
import type { Json } from '../core/wire.js';

export interface MemoryInventory extends InventoryStore {
  /** Backups kept by `saveBackup`, oldest first. */
  readonly backups: readonly InventoryBackup[];
}

export function memoryInventory(target: string, initial: InventoryEntry[] = [], key = 'test-key'): MemoryInventory {
  const entries = new Map<Address, InventoryEntry>(initial.map((e) => [entryAddress(e), keptEntry(e)]));
  const owners = new Owners(entries.values());
  const backups: InventoryBackup[] = [];
  const notes = new Map<NoteName, Json>();
  return {
    target,
    backups,
    entries: () => [...entries.values()],
    get: (address) => entries.get(address),
    skipped: () => [],
    put: (entry) => {
      const refusal = owners.refusal(target, entry);
      if (refusal) return Promise.reject(refusal);
      owners.delete(entries.get(entryAddress(entry)));
      entries.set(entryAddress(entry), keptEntry(entry));
      owners.set(entry);
      return Promise.resolve();
    },
    remove: (address) => {
      owners.delete(entries.get(address));
      entries.delete(address);
      return Promise.resolve();
    },
    move(from, to, updatedAt) {
      const refusal = moveRefusal(this, from, to);
      const entry = entries.get(from);
      if (refusal || !entry) return Promise.reject(refusal ?? new Error(`no entry ${from}`));
      const moved = deepFreeze(movedEntry(entry, to, updatedAt));
      owners.delete(entry);
      entries.delete(from);
      entries.set(to, moved);
      owners.set(moved);
      return Promise.resolve(moved);
    },
    fingerprint: (value) => 'hmac-sha256:' + createHmac('sha256', key).update(value).digest('base64url'),
    flush: () => Promise.resolve(),
    close: () => Promise.resolve(),
    saveBackup: (backup) => {
      backups.push(structuredClone(backup));
      return Promise.resolve(`memory:${backup.address}#${backups.length}`);
    },
    readNote: (name) => Promise.resolve(notes.has(name) ? structuredClone(notes.get(name)) : null),
    writeNote: (name, value) => {
      notes.set(name, structuredClone(value));
      return Promise.resolve();
    },
    refresh: () => Promise.resolve(),
    // No lease in memory: the writes of a test or a dry run are not fenced.
    writeFence: () => UNFENCED,
  };
}
