/** What an applied step records in the inventory: the object's entry, its parts' ids, and whether the write converged. */
import type { InventoryEntry } from '../core/inventory.js';
import type { LiveObject } from '../core/live.js';
import type { PlanStep } from '../core/plan.js';
import { naturalKeyOf, type ManagedKind } from '../kinds/kind.js';
import { stableJson } from '../planner/diff.js';
import type { ApplyContext, StepResult } from './context.js';
import { verifyWrite } from './verify.js';
import { setOwn } from '../core/json.js';

/** What executing a step found (the applier adds its address, action and duration). */
export type Outcome = Omit<StepResult, 'durationMs' | 'address' | 'action'>;

export async function recordWritten(
  def: ManagedKind,
  step: PlanStep,
  live: LiveObject,
  ctx: ApplyContext,
  resolvedAmbiguous: boolean,
): Promise<Outcome> {
  const parts = storedParts(def, step, live);
  ctx.ids.set(step.address, step.kind, live.id, parts);
  const fields: Pick<InventoryEntry, 'id' | 'status' | 'naturalKey'> & Partial<InventoryEntry> = {
    id: live.id,
    status: 'owned',
    naturalKey: naturalKeyOf(def, live),
  };
  if (parts) fields.tiles = Object.fromEntries(parts);
  const verification = verifyWrite(def, step, live, ctx.ids, (value) => ctx.inventory.fingerprint(stableJson(value)));
  if (verification.fields.length > 0) fields.nonConvergent = verification.fields;
  await ctx.inventory.put(entryFor(step, ctx, fields));
  const out: Outcome = { outcome: 'applied', id: live.id };
  if (verification.changes.length > 0) out.nonConvergent = verification.changes;
  if (resolvedAmbiguous) out.resolvedAmbiguous = true;
  return out;
}

/** After a write the service returns the parts in the order sent: the step's keys pair positionally. */
export function storedParts(def: ManagedKind, step: PlanStep, live: LiveObject): Map<string, string> | undefined {
  if (!def.parts || !step.parts) return undefined;
  const ids = def.parts.idsInOrder(live);
  const out = new Map<string, string>();
  step.parts.forEach((p, i) => {
    const id = ids[i];
    if (id !== undefined) out.set(p.key, id);
  });
  return out;
}

export function partIds(step: PlanStep): Record<string, string> | undefined {
  if (!step.parts) return undefined;
  const out: Record<string, string> = {};
  for (const p of step.parts) if (p.id !== undefined) setOwn(out, p.key, p.id);
  return out;
}

/** The inventory entry for a step's object; `kept`: the owned entry whose values the step did not restate. */
export function entryFor(
  step: PlanStep,
  ctx: ApplyContext,
  fields: Pick<InventoryEntry, 'id' | 'status' | 'naturalKey'> & Partial<InventoryEntry>,
  updatedAt = ctx.now().toISOString(),
  kept?: InventoryEntry,
): InventoryEntry {
  const record = step.record;
  const entry: InventoryEntry = {
    kind: step.kind,
    name: step.name,
    id: fields.id,
    status: fields.status,
    naturalKey: fields.naturalKey,
    updatedAt,
  };
  const labels = record?.labels ?? kept?.labels;
  if (labels && Object.keys(labels).length > 0) entry.labels = labels;
  const specHash = record?.specHash ?? kept?.specHash;
  if (specHash) entry.specHash = specHash;
  const secrets = record?.secrets ?? kept?.secrets;
  if (secrets && Object.keys(secrets).length > 0 && fields.status === 'owned') entry.secrets = secrets;
  const source = record?.source ?? kept?.source;
  if (source !== undefined) entry.source = source;
  if (fields.tiles) entry.tiles = fields.tiles;
  if (fields.nonConvergent) entry.nonConvergent = fields.nonConvergent;
  if (fields.preexisting && fields.status === 'pending') entry.preexisting = fields.preexisting;
  return entry;
}
