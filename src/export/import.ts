/**
 * `obsync import Kind/name ID` (Terraform's import): obsync owns one live object, found by its
 * server id, under the address a manifest declares. Pure: checks the request against the live
 * objects and the inventory, and answers the entry to record (or why not).
 */
import type { InventoryEntry } from '../core/inventory.js';
import type { LiveObject } from '../core/live.js';
import type { OwnersElsewhere } from '../core/owners-elsewhere.js';
import { PlanError } from '../core/errors.js';
import type { Address } from '../core/plan.js';
import { naturalKeyOf, type ManagedKind } from '../kinds/kind.js';
import { definitionOf, type AnyKind } from '../kinds/registry.js';

export interface ImportRequest {
  def: ManagedKind;
  name: string;
  id: string;
  /** Live objects of every kind the target serves (to tell a kind mismatch from an unknown id). */
  objects(kind: AnyKind): readonly LiveObject[] | undefined;
  served: readonly AnyKind[];
  entries: readonly InventoryEntry[];
  /** Whether a manifest declares the address (importing an undeclared object would let prune delete it). */
  declared: boolean;
  /** What the other targets on this target's service own: never imported here. */
  elsewhere?: OwnersElsewhere;
  now: Date;
}

export type ImportOutcome = { entry: InventoryEntry; already: false } | { entry: InventoryEntry; already: true };

export function importEntry(req: ImportRequest): ImportOutcome {
  const { def, name, id } = req;
  const address: Address = `${def.kind}/${name}`;
  const live = req.objects(def.kind)?.find((o) => o.id === id);
  if (!live) throw notFound(req, address);
  const current = req.entries.find((e) => e.kind === def.kind && e.name === name);
  if (current?.status === 'owned' && current.id === id) return { entry: current, already: true };
  if (current?.status === 'owned' && current.id !== null) {
    throw new PlanError(`${address} is already owned with id ${current.id}, not ${id}`, {
      hint: `\`obsync state rm ${address}\` first if ${current.id} should no longer be managed under this name`,
    });
  }
  const other = req.entries.find((e) => e.kind === def.kind && e.id === id && e.status === 'owned');
  if (other)
    throw new PlanError(`${def.noun} ${id} is already owned as ${other.kind}/${other.name}`, {
      hint:
        `one object has one address: to rename it, \`obsync state mv ${other.kind}/${other.name} ${address}\` (or ` +
        `metadata.previousNames: [${other.name}] in the manifest of ${address})`,
    });
  const owner = req.elsewhere?.owner(def.kind, id);
  if (req.elsewhere && owner) throw new PlanError(req.elsewhere.refusal(`${def.noun} ${id}`, owner), { hint: req.elsewhere.hint(owner) });
  if (!req.declared) {
    throw new PlanError(`no manifest declares ${address}: obsync would own an object nothing declares, and prune would delete it`, {
      hint: `write the manifest first (\`obsync export --kind ${def.kind} --match ...\` writes one), then import`,
    });
  }
  const entry: InventoryEntry = {
    kind: def.kind,
    name,
    id,
    status: 'owned',
    naturalKey: naturalKeyOf(def, live),
    updatedAt: req.now.toISOString(),
  };
  return { entry, already: false };
}

function notFound(req: ImportRequest, address: Address): PlanError {
  for (const kind of req.served) {
    if (kind === req.def.kind) continue;
    if (req.objects(kind)?.some((o) => o.id === req.id)) {
      const noun = definitionOf(kind).noun;
      return new PlanError(
        `${req.id} is ${article(noun)} ${noun} (${kind}), not ${article(req.def.noun)} ${req.def.noun}: it cannot be imported as ` +
          `${address}`,
        { hint: `import it under a ${kind} address, e.g. \`obsync import ${kind}/<name> ${req.id}\`` },
      );
    }
  }
  return new PlanError(`no ${req.def.noun} with id ${req.id} on the target`, {
    hint: `\`obsync export --kind ${req.def.kind}\` lists the ${req.def.noun}s there with their ids`,
  });
}

function article(noun: string): string {
  return /^[aeiou]/.test(noun) ? 'an' : 'a';
}
