/** Before a delete, the live object is kept by the state backend (file: under the state directory; postgres: a table). */
import type { InventoryStore } from '../core/inventory.js';
import type { PlanStep } from '../core/plan.js';

export async function writeBackup(inventory: InventoryStore, step: PlanStep, live: unknown, at: Date): Promise<string> {
  return inventory.saveBackup({ target: inventory.target, address: step.address, kind: step.kind, name: step.name, id: step.id ?? '', backedUpAt: at.toISOString(), object: live });
}
