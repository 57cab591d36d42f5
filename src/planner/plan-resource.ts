/** Plans one desired object: match, compare canonical forms, choose action and reason. */
import type { InventoryEntry } from '../core/inventory.js';
import type { Change, PlanStep } from '../core/plan.js';
import type { DesiredResource } from '../core/resource.js';
import type { Json } from '../core/wire.js';
import type { KindDefinition, Lookups } from '../kinds/kind.js';
import { diffCanonical, sameJson, valueAt } from './diff.js';
import type { LiveIndexes } from './live-index.js';
import { matchLive } from './match.js';
import type { PlanInput } from './plan.js';

interface Args {
  def: KindDefinition;
  res: DesiredResource;
  entry: InventoryEntry | undefined;
  lookups: Lookups;
  input: PlanInput;
  indexes: LiveIndexes;
  ownedIds: ReadonlySet<string>;
}

export type ResourceOutcome = { step: PlanStep } | { errors: string[]; code: string };

export function planResource({ def, res, entry, lookups, input, indexes, ownedIds }: Args): ResourceOutcome {
  const index = indexes.of(def);
  if (!index) return { errors: [`the target '${input.target}' (${input.variant}) cannot manage ${def.kind} objects`], code: 'capability' };
  const fingerprints = input.fingerprints.get(res.address) ?? {};
  const match = matchLive(def, res, entry, index, ownedIds, lookups);
  const dependsOn = def.dependencies(res).filter((a) => lookups.desired.has(a));
  // Steps are object literals, not `{ ...base, more }`: on Node 20 properties after a leading
  // spread take a slow path (~7 µs a step, seconds over 20,000 objects).
  const { address, kind, name } = res;

  if (match.kind === 'ambiguous') {
    return {
      errors: [`${match.ids.length} live objects match its natural key (${match.key}): ${match.ids.join(', ')}; obsync will not guess — rename one, or remove the duplicates`],
      code: 'ambiguous-adoption',
    };
  }
  if (match.kind === 'missing') {
    if (!def.creatable || !def.createPayload) return { errors: [`no matching ${def.kind.toLowerCase()} exists on the target, and obsync does not create ${def.kind} objects`], code: 'not-found' };
    def.onMissing?.(res, lookups);
    const desired = def.canonicalDesired(res, lookups, fingerprints);
    if (!desired.ok) return { errors: desired.errors, code: 'unresolved-reference' };
    return {
      step: { address, kind, name, dependsOn, action: 'create', reason: 'missing', changes: diffCanonical({}, desired.value), payload: def.createPayload(res, lookups, fingerprints) },
    };
  }

  const live = match.live;
  const ctx = { entry, lookups };
  def.onMatched?.(res, live, ctx);
  const desired = def.canonicalDesired(res, lookups, fingerprints);
  if (!desired.ok) return { errors: desired.errors, code: 'unresolved-reference' };
  const current = def.canonicalLive(live, ctx, res);
  const { changes, ignored } = dropNonConvergent(diffCanonical(current, desired.value), desired.value, entry);
  const id = live.id;
  const adopt = match.kind === 'adopted' ? { adopt: true } : {};
  const nonConvergent = ignored.length > 0 ? { nonConvergent: ignored } : {};
  if (changes.length === 0) return { step: { address, kind, name, dependsOn, id, ...adopt, ...nonConvergent, action: 'noop', reason: 'unchanged', changes: [] } };
  const liveVersion = input.live.versionOf(live.id);

  const calls = def.updateCalls(res, live, ctx, fingerprints, changes.map((c) => c.path));
  const notes = def.notes?.(res, live, input.live, lookups) ?? [];
  const specUnchanged = entry?.specHash !== undefined && entry.specHash === input.specHashes.get(res.address);
  const step: PlanStep = { address, kind, name, dependsOn, id, ...adopt, ...nonConvergent, action: 'update', reason: specUnchanged ? 'drifted' : 'spec-changed', changes };
  if (liveVersion !== undefined) step.liveVersion = liveVersion;
  if (calls.payload) step.payload = calls.payload;
  if (calls.pipe) step.pipe = calls.pipe;
  if (notes.length > 0) step.notes = notes;
  return { step };
}

/**
 * A field the service did not keep after the last apply is reported once as non-convergent and
 * then left out while its desired value stays the same, so the loop cannot flap on it.
 */
function dropNonConvergent(changes: Change[], desired: Json, entry: InventoryEntry | undefined): { changes: Change[]; ignored: string[] } {
  const known = (entry?.nonConvergent ?? []).filter((nc) => sameJson(valueAt(desired, nc.path), nc.desired));
  if (known.length === 0) return { changes, ignored: [] };
  const ignored = new Set<string>();
  const kept = changes.filter((c) => {
    const hit = known.find((nc) => c.path === nc.path || c.path.startsWith(`${nc.path}.`) || c.path.startsWith(`${nc.path}[`));
    if (hit) ignored.add(hit.path);
    return !hit;
  });
  return { changes: kept, ignored: [...ignored] };
}
