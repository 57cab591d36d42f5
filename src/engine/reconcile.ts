/**
 * One reconcile run for one target — read, plan, (apply), report — shared by `obsync plan`,
 * `obsync apply` (fresh or from a saved plan) and the daemon. In apply mode the plan is applied
 * even without changes: unchanged steps record adoptions and forget stale pending entries, so
 * ownership is re-established by every run after an inventory was lost.
 */
import type { ApplyReport } from '../applier/context.js';
import type { Address, Plan, PlanStep } from '../core/plan.js';
import type { Variant } from '../core/ports.js';
import type { TargetIdentity } from '../core/target.js';
import type { PolicyFinding } from '../core/finding.js';
import { PolicyRefusal } from '../policy/refusal.js';
import { applyPlanned, makePlan, type ApplyRequest, type PlanRequest } from './run.js';
import type { DashboardPreviewInput } from '../core/preview.js';
import { checkSavedPlan, checkSavedTarget } from './saved-plan.js';

export interface ReconcileRequest extends PlanRequest, Omit<ApplyRequest, 'port' | 'inventory' | 'refused' | 'signal'> {
  mode: 'plan' | 'apply';
  /** A saved plan (`apply plan.json`): applied only to the service it was made for, each step only where nothing moved since. */
  saved?: Plan;
  /** The service this run talks to, recorded in its plan (a saved plan is bound to it). */
  identity?: TargetIdentity;
  /** Called with the plan before anything is written (show it, ask for confirmation; throw to stop). */
  beforeApply?: (plan: Plan) => Promise<void> | void;
  /**
   * The apply's own signal when it differs from the planning's (`signal`): a Ctrl-C cuts the
   * planning's reads short, but only stops new steps of an apply (StopRequested).
   */
  applySignal?: AbortSignal;
  /** Steps planned but not applied (the daemon's `drift: report | propose` holds drift back); the report names them. */
  hold?: (step: PlanStep) => boolean;
  /** The policy check of the plan (src/policy): its findings go into the plan; an unwaived error refuses apply. Never changes a step. */
  policy?: (plan: Plan) => PolicyFinding[];
}

export interface RunReport {
  target: string;
  variant: Variant;
  mode: 'plan' | 'apply';
  /** The plan applied (for a saved plan: its steps, each checked against a fresh plan). */
  plan: Plan;
  /** Absent in plan mode. */
  apply?: ApplyReport;
  timings: { readMs: number; planMs: number; applyMs: number; totalMs: number };
  /** Steps of the plan held back from the apply (`hold`): planned, reported, not written. */
  held?: Address[];
  /** The plan was the last run's, taken whole: nothing it was made from had changed. */
  planTaken?: true;
  /** `previews` asked: the dashboards the plan creates or updates, before and after. */
  previews?: DashboardPreviewInput[];
  /** Requests of this run. */
  requests: { total: number; writes: number; retries: number; throttled: number };
}

/** The fresh plan a saved plan's steps are checked against: its prune settings, and no backtest (the saved one keeps its own). */
function savedPlanCheck(req: ReconcileRequest, saved: Plan): ReconcileRequest {
  const { backtest: _ignored, ...rest } = req;
  return {
    ...rest,
    prune: saved.prune.requested,
    pruneCascade: saved.prune.cascade,
    allowEmptyKinds: saved.prune.allowEmptyKinds ?? [],
  };
}

export async function reconcile(req: ReconcileRequest): Promise<RunReport> {
  const t0 = performance.now();
  const before = { ...req.port.stats };
  const saved = req.saved;
  // Before anything is read: a plan made for another service is not applied here, not even in part.
  if (saved) checkSavedTarget(saved, req.identity);
  const planned = await makePlan(saved ? savedPlanCheck(req, saved) : req);
  const made = req.identity ? { ...planned.plan, identity: req.identity } : planned.plan;
  const check = saved ? checkSavedPlan(saved, made) : null;
  const checked = check ? check.plan : made;
  const plan = req.policy ? { ...checked, policy: req.policy(checked) } : checked;
  let apply: ApplyReport | undefined;
  let applyMs = 0;
  const held = req.mode === 'apply' && req.hold ? plan.steps.filter(req.hold).map((s) => s.address) : [];
  if (req.mode === 'apply') {
    PolicyRefusal.check(plan);
    await req.beforeApply?.(plan);
    const t1 = performance.now();
    const signal = req.applySignal ?? req.signal;
    const applied = held.length === 0 ? plan : withoutSteps(plan, new Set(held));
    apply = await applyPlanned(
      { plan: applied, secretValues: planned.secretValues, seen: planned.seen },
      { ...req, ...(signal ? { signal } : {}), ...(check ? { refused: check.refused } : {}) },
    );
    applyMs = performance.now() - t1;
    req.memo?.creates.record(applied, apply);
  }
  const stats = req.port.stats;
  return {
    target: req.port.target,
    variant: req.port.variant,
    mode: req.mode,
    plan,
    ...(apply ? { apply } : {}),
    ...(held.length > 0 ? { held } : {}),
    timings: { readMs: planned.timings.readMs, planMs: planned.timings.planMs, applyMs, totalMs: performance.now() - t0 },
    ...(planned.taken ? { planTaken: true as const } : {}),
    ...(planned.previews ? { previews: planned.previews } : {}),
    requests: {
      total: stats.requests - before.requests,
      writes: stats.writes - before.writes,
      retries: stats.retries - before.retries,
      throttled: stats.throttled - before.throttled,
    },
  };
}

/** The plan without the held steps: nothing is sent for them, and their inventory entries stay as they are. */
function withoutSteps(plan: Plan, held: ReadonlySet<Address>): Plan {
  return { ...plan, steps: plan.steps.filter((s) => !held.has(s.address)) };
}
