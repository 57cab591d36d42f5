/**
 * Applying a saved plan (`obsync apply plan.json`): the steps are re-planned now and each saved
 * step goes ahead only when the object and the manifests are as they were when it was planned.
 * The others are refused with the reason; steps not in the saved plan are not applied.
 */
import type { Address, Plan, PlanStep } from '../core/plan.js';
import { summarize } from '../core/plan.js';
import type { Json } from '../core/wire.js';
import { stableJson } from '../planner/diff.js';

export interface SavedPlanCheck {
  plan: Plan;
  refused: Map<Address, string>;
}

export function checkSavedPlan(saved: Plan, current: Plan): SavedPlanCheck {
  const now = new Map(current.steps.map((s) => [s.address, s]));
  const refused = new Map<Address, string>();
  const steps: PlanStep[] = [];
  for (const step of saved.steps) {
    if (step.action === 'noop') continue;
    const fresh = now.get(step.address);
    const reason = refusal(step, fresh);
    if (reason) {
      refused.set(step.address, reason);
      steps.push(step);
    } else if (fresh) steps.push(fresh);
  }
  return { plan: { ...current, steps, summary: summarize(steps) }, refused };
}

function refusal(saved: PlanStep, fresh: PlanStep | undefined): string | null {
  if (!fresh || fresh.action === 'noop') return 'no longer needed: the object already matches (changed since the plan was made)';
  if (fresh.action !== saved.action) return `the object changed since the plan was made: it now needs ${fresh.action} instead of ${saved.action}`;
  if (saved.liveVersion !== fresh.liveVersion) return 'the live object changed since the plan was made; make a new plan';
  if (stableJson(saved.changes as unknown as Json) !== stableJson(fresh.changes as unknown as Json)) return 'the manifests changed since the plan was made; make a new plan';
  return null;
}
