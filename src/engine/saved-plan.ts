/**
 * Applying a saved plan (`obsync apply plan.json`): the steps are re-planned now and each saved
 * step goes ahead only when the object, the manifests and what the service deletes along are as
 * they were when it was planned. The others are refused with the reason; changes that are not in
 * the saved plan are not made (unchanged objects still record their ownership).
 */
import { ObsyncError } from '../core/errors.js';
import type { Address, Plan, PlanStep } from '../core/plan.js';
import { summarize } from '../core/plan.js';
import { describeIdentity, type TargetIdentity } from '../core/target.js';
import type { Json } from '../core/wire.js';
import { stableJson } from '../planner/diff.js';

/** A saved plan made for another service than the one it is being applied to: nothing of it is applied. */
export class PlanTargetMismatch extends ObsyncError {
  override readonly name = 'PlanTargetMismatch';
  constructor(message: string, hint: string) {
    super('PLAN_TARGET_MISMATCH', message, { hint });
  }
}

const IDENTITY_FIELDS = ['name', 'variant', 'baseUrl', 'organizationId', 'serviceId'] as const;

/**
 * Trust invariant 9: a saved plan is bound to where it was made. Its target's identity (name,
 * variant, base URL, hosted organisation and service) must be the one this run would write to;
 * a plan that does not say (an older obsync's) is refused too.
 */
export function checkSavedTarget(saved: Plan, here: TargetIdentity | undefined): void {
  const made = saved.identity;
  if (!made || !here) {
    throw new PlanTargetMismatch(
      `the saved plan of target '${saved.target}' does not say which service it was made for (a plan of an ` +
        `older obsync), so it is not applied`,
      'make the plan again with this obsync: `obsync plan --out FILE`',
    );
  }
  const differs = IDENTITY_FIELDS.filter((f) => made[f] !== here[f]);
  if (differs.length === 0) return;
  throw new PlanTargetMismatch(
    `the saved plan was made for ${describeIdentity(made)}, but this apply would write to ` +
      `${describeIdentity(here)} (${differs.join(', ')} differ): nothing of it is applied`,
    'apply the plan with the settings it was made with (obsync.yaml, OBSYNC_BASE_URL, --target), or make ' +
      'a new plan for this target: `obsync plan --out FILE`',
  );
}

export interface SavedPlanCheck {
  plan: Plan;
  refused: Map<Address, string>;
}

export function checkSavedPlan(saved: Plan, current: Plan): SavedPlanCheck {
  const now = new Map(current.steps.map((s) => [s.address, s]));
  const why = new Map<string, string>([
    ...current.diagnostics.flatMap((d) => (d.address ? [[d.address, d.message] as const] : [])),
    ...current.prune.blocked.map((b) => [b.address, b.reason] as const),
  ]);
  const refused = new Map<Address, string>();
  const steps: PlanStep[] = [];
  const inSaved = new Set<Address>();
  for (const step of saved.steps) {
    if (step.action === 'noop') continue;
    inSaved.add(step.address);
    const fresh = now.get(step.address);
    const reason = refusal(step, fresh, why.get(step.address));
    if (reason) {
      refused.set(step.address, reason);
      steps.push(step);
    } else if (fresh) steps.push(fresh);
  }
  for (const step of current.steps) if (step.action === 'noop' && !inSaved.has(step.address)) steps.push(step);
  return { plan: { ...current, steps, summary: summarize(steps) }, refused };
}

function refusal(saved: PlanStep, fresh: PlanStep | undefined, problem: string | undefined): string | null {
  if (!fresh && problem) return `refused now: ${problem}`;
  if (!fresh || fresh.action === 'noop') return 'no longer needed: the object already matches (changed since the plan was made)';
  if (fresh.action !== saved.action)
    return `the object changed since the plan was made: it now needs ${fresh.action} instead of ${saved.action}`;
  if (saved.liveVersion !== fresh.liveVersion) return 'the live object changed since the plan was made; make a new plan';
  if (stableJson(saved.changes as unknown as Json) !== stableJson(fresh.changes as unknown as Json))
    return 'the manifests changed since the plan was made; make a new plan';
  const added = (fresh.cascade ?? []).filter((i) => !(saved.cascade ?? []).some((s) => s.kind === i.kind && s.id === i.id));
  if (added.length > 0)
    return (
      `the service would now also delete ${added.map((i) => `${i.kind} ${i.id}`).join(', ')}, which the ` +
      `plan did not show; make a new plan`
    );
  return null;
}
