/** The delete steps of a plan: their order, their manifest form, and who else owns what they would delete. */
import { entryAddress, type InventoryEntry } from '../core/inventory.js';
import type { Kind, PlanStep } from '../core/plan.js';
import type { LiveObject } from '../core/live.js';
import type { OwnersElsewhere } from '../core/owners-elsewhere.js';
import type { Json, JsonObject } from '../core/wire.js';
import { MANAGED, managedDefinition } from '../kinds/registry.js';
import type { PlanContext } from './context.js';
import type { PlannedDelete } from './prune.js';
import { cmp } from '../core/collections.js';

/** The prune guard of one service, one owner: an object another target on the service owns too is not deleted here. */
export function ownedElsewhere(elsewhere: OwnersElsewhere): (kind: Kind, id: string) => string | undefined {
  return (kind, id) => {
    const owner = elsewhere.owner(kind, id);
    return owner && elsewhere.refusal(`${managedDefinition(kind)?.noun ?? kind} ${id}`, owner, 'delete it');
  };
}

/** `kind\0id` of every object the plan deletes, directly or by a cascade. */
export function deletedByPlan(steps: readonly PlanStep[]): Set<string> {
  const out = new Set<string>();
  for (const s of steps) {
    if (s.action === 'delete' && s.id !== undefined) out.add(`${s.kind}\u0000${s.id}`);
    for (const c of s.cascade ?? []) out.add(`${c.kind}\u0000${c.id}`);
  }
  return out;
}

export function deleteSteps(deletes: readonly PlannedDelete[], ctx: PlanContext): PlanStep[] {
  const { input } = ctx;
  const rank = new Map(MANAGED.map((d, i) => [d.kind, i]));
  return deletes
    .map(({ entry, live, cascade }): PlanStep => {
      const step: PlanStep = {
        address: entryAddress(entry),
        kind: entry.kind,
        name: entry.name,
        action: 'delete',
        reason: 'not-declared',
        id: entry.id,
        changes: [],
        dependsOn: [],
      };
      const liveVersion = input.live.versionOf(entry.kind, entry.id);
      if (liveVersion !== undefined) step.liveVersion = liveVersion;
      step.backup = live as unknown as JsonObject;
      const current = deletedForm(ctx, entry, live);
      if (current !== undefined) step.current = current;
      if (cascade.length > 0) step.cascade = cascade;
      return step;
    })
    .sort((a, b) => (rank.get(b.kind) ?? 0) - (rank.get(a.kind) ?? 0) || cmp(a.name, b.name));
}

/**
 * What a delete removes, in manifest terms (the plan output's `before`). There is no desired
 * object to take a shape from (`expected: null`); a kind that cannot do without one gives no form
 * rather than stopping the plan (the raw object is in the step's backup either way).
 */
function deletedForm(ctx: PlanContext, entry: InventoryEntry, live: LiveObject): Json | undefined {
  const def = managedDefinition(entry.kind);
  if (!def) return undefined;
  try {
    return def.canonicalLive(live, {
      tokens: ctx.refs,
      parts: entry.tiles ? new Map(Object.entries(entry.tiles)) : undefined,
      expected: null,
      secrets: entry.secrets ?? {},
      fingerprint: ctx.input.fingerprint,
    });
  } catch {
    return undefined;
  }
}
