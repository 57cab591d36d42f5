/** What a step asks the applier to record in the inventory for the object it writes, adopts or leaves unchanged. */
import { NO_ENTRIES } from '../core/freeze.js';
import type { InventoryEntry } from '../core/inventory.js';
import type { PartRef, PlanStep, StepRecord } from '../core/plan.js';
import type { DesiredResource } from '../core/resource.js';
import type { PlanContext } from './context.js';
import { sameStrings } from './memo.js';

/** Everything the applier records for an object it writes or adopts. */
export function record(ctx: PlanContext, res: DesiredResource, naturalKey: string | undefined): StepRecord {
  const out: StepRecord = {};
  if (naturalKey !== undefined) out.naturalKey = naturalKey;
  if (hasKeys(res.labels)) out.labels = res.labels;
  const specHash = ctx.input.specHashes.get(res.address);
  if (specHash !== undefined) out.specHash = specHash;
  const secrets = ctx.input.fingerprints.get(res.address);
  if (secrets && hasKeys(secrets)) out.secrets = secrets;
  const source = ctx.input.declaringFiles?.of(res);
  if (source !== undefined) out.source = source;
  return out;
}

/**
 * An owned object left unchanged: the step carries only what differs from its inventory entry,
 * the applier keeps the rest. A steady-state plan of 20,000 objects hashes no spec and allocates
 * nothing more per object; an adoption or a write records everything.
 */
export function settledRecord(
  ctx: PlanContext,
  step: PlanStep,
  res: DesiredResource,
  entry: InventoryEntry,
  pairing: ReadonlyMap<string, string> | undefined,
  keys: readonly string[] | undefined,
): void {
  const specHash = entry.specHash === undefined ? ctx.input.specHashes.get(res.address) : undefined;
  const secrets = ctx.input.fingerprints.get(res.address) ?? NO_ENTRIES;
  const labelsMoved = !sameStrings(res.labels, entry.labels ?? NO_ENTRIES);
  const secretsMoved = !sameStrings(secrets, entry.secrets ?? NO_ENTRIES);
  const source = ctx.input.declaringFiles?.of(res);
  const sourceMoved = source !== undefined && source !== entry.source;
  if (labelsMoved || secretsMoved || specHash !== undefined || sourceMoved) {
    const out: StepRecord = {};
    if (labelsMoved) out.labels = res.labels;
    if (specHash !== undefined) out.specHash = specHash;
    if (secretsMoved) out.secrets = secrets;
    if (sourceMoved) out.source = source;
    step.record = out;
  }
  if (pairing && keys && !samePairing(pairing, entry.tiles ?? NO_ENTRIES)) step.parts = partRefs(keys, pairing);
}

/** A pairing (key → part id) against an entry's part map. */
function samePairing(a: ReadonlyMap<string, string>, b: Readonly<Record<string, string>>): boolean {
  let same = true;
  a.forEach((id, key) => {
    if (b[key] !== id) same = false;
  });
  let count = 0;
  for (const _ in b) count += 1;
  return same && count === a.size;
}

function hasKeys(o: Readonly<Record<string, unknown>>): boolean {
  for (const _ in o) return true;
  return false;
}

export function partRefs(keys: readonly string[], pairing: ReadonlyMap<string, string>): PartRef[] {
  return keys.map((key) => {
    const id = pairing.get(key);
    return id === undefined ? { key } : { key, id };
  });
}
