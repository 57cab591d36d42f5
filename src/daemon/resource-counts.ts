/** The `obsync_resources` counts of a run: each object's state (in sync, drifted, error) by kind, after its apply. */
import type { ApplyReport, StepOutcomeKind } from '../applier/context.js';
import type { Plan } from '../core/plan.js';
import { setOwn } from '../core/json.js';
import type { ResourceCounts, ResourceState } from './metrics.js';

/** Where a changed object stands after its apply step; null: it is gone (deleted) and no longer counted. */
const AFTER_APPLY: Record<StepOutcomeKind, ResourceState> = {
  applied: 'in_sync',
  unchanged: 'in_sync',
  failed: 'error',
  skipped: 'drifted',
  refused: 'drifted',
};

/**
 * `obsync_resources` as the service stands at the end of a run, not as the plan found it: a step
 * without changes is in sync; a change is drifted until an apply step heals it (applied → in
 * sync, failed → error, skipped or refused → still drifted); an applied delete leaves the count;
 * an object that could not be planned is an error. Without `applied` (plan mode, or nothing was
 * applied) every change is drifted.
 */
export function resourceCounts(plan: Plan, applied?: ApplyReport): ResourceCounts {
  const outcomes = new Map(applied?.results.map((r) => [r.address, r.outcome]));
  const counts: ResourceCounts = {};
  const bump = (kind: string, state: ResourceState) => {
    const byState = Object.hasOwn(counts, kind) ? counts[kind] : undefined;
    if (byState) byState[state] += 1;
    else setOwn(counts, kind, { in_sync: 0, drifted: 0, error: 0, [state]: 1 });
  };
  for (const step of plan.steps) {
    if (step.action === 'noop') {
      bump(step.kind, 'in_sync');
      continue;
    }
    const outcome = outcomes.get(step.address);
    if (outcome === undefined) bump(step.kind, 'drifted');
    else if (!(step.action === 'delete' && outcome === 'applied')) bump(step.kind, AFTER_APPLY[outcome]);
  }
  for (const d of plan.diagnostics) if (d.address) bump(d.address.split('/')[0] ?? 'unknown', 'error');
  return counts;
}
