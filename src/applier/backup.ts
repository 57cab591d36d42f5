/** Before a delete, the live object is kept by the state backend (file: under the state directory; postgres: a table). */
import type { InventoryStore } from '../core/inventory.js';
import type { Address, AnyKind } from '../core/plan.js';

/** What is backed up: a step's object, or one the service deletes along with it (no address when unowned). */
export interface BackedUp {
  kind: AnyKind;
  name: string;
  address?: string | undefined;
  id?: string | undefined;
}

export async function writeBackup(inventory: InventoryStore, item: BackedUp, live: unknown, at: Date): Promise<string> {
  const address = (item.address ?? `${item.kind}/${item.name}`) as Address;
  return inventory.saveBackup({
    target: inventory.target,
    address,
    kind: item.kind,
    name: item.name,
    id: item.id ?? '',
    backedUpAt: at.toISOString(),
    object: live,
  });
}
