/**
 * The inventory of a state that does not exist yet, for read-only commands: nothing is owned,
 * nothing can be written (a read-only command never creates the state). Fingerprints use a key
 * of this process only: nothing is stored under any key yet, so any key compares as well.
 */
import { ObsyncError } from '../core/errors.js';
import type { InventoryStore } from '../core/inventory.js';
import { hmacFingerprint, newFingerprintKey } from './fingerprint.js';

export function emptyInventory(target: string, where: string): InventoryStore {
  const key = newFingerprintKey();
  const refusal = () =>
    new ObsyncError('INVENTORY_READONLY', `internal: the state at ${where} is not set up, and a read-only command cannot write it`);
  const refuse = (): never => {
    throw refusal();
  };
  return {
    target,
    entries: () => [],
    get: () => undefined,
    skipped: () => [],
    put: () => Promise.reject(refusal()),
    remove: () => Promise.reject(refusal()),
    move: () => Promise.reject(refusal()),
    fingerprint: (value) => hmacFingerprint(key, value),
    flush: () => Promise.resolve(),
    close: () => Promise.resolve(),
    saveBackup: () => Promise.reject(refusal()),
    readNote: () => Promise.resolve(null),
    writeNote: () => Promise.reject(refusal()),
    refresh: () => Promise.resolve(),
    writeFence: () => ({ check: refuse }),
  };
}
