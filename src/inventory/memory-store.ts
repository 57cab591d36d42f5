/** An in-memory inventory for tests and dry runs (Terraform ships its fakes beside the real store). */
import { createHmac } from 'node:crypto';
import { entryAddress, type InventoryEntry, type InventoryStore } from '../core/inventory.js';
import { deepFreeze } from '../core/freeze.js';
import type { Address } from '../core/plan.js';

export function memoryInventory(target: string, initial: InventoryEntry[] = [], key = 'test-key'): InventoryStore {
  const entries = new Map<Address, InventoryEntry>(initial.map((e) => [entryAddress(e), deepFreeze(structuredClone(e))]));
  return {
    target,
    entries: () => [...entries.values()],
    get: (address) => entries.get(address),
    put: (entry) => {
      entries.set(entryAddress(entry), deepFreeze(structuredClone(entry)));
      return Promise.resolve();
    },
    remove: (address) => {
      entries.delete(address);
      return Promise.resolve();
    },
    fingerprint: (value) => 'hmac-sha256:' + createHmac('sha256', key).update(value).digest('base64url'),
    flush: () => Promise.resolve(),
    close: () => Promise.resolve(),
  };
}
