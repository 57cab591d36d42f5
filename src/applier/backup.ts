/** Before a delete, the live object is kept by the state backend (file: under the state directory; postgres: a table). */
import type { InventoryStore } from '../core/inventory.js';
import { nameOf, type Address, type AnyKind, type CascadeItem, type PlanStep } from '../core/plan.js';
import type { ApplyContext } from './context.js';

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

/** The objects a delete or update takes along on the service, each backed up before the step. */
export async function backupCascade(step: PlanStep, ctx: ApplyContext, at: Date): Promise<string[]> {
  const files: string[] = [];
  for (const item of step.cascade ?? []) files.push(await writeBackup(ctx.inventory, backedUp(item), item.object, at));
  return files;
}

function backedUp(item: CascadeItem): BackedUp {
  return item.address
    ? { kind: item.kind, name: nameOf(item.address), address: item.address, id: item.id }
    : { kind: item.kind, name: `unowned-${item.id}`, id: item.id };
}
