/**
 * The events a reconcile run's report holds (pure): drift, what was created, updated, deleted,
 * adopted and healed, what was refused, failed or does not converge. The daemon and the CLI both
 * derive them here from the one `RunReport`, so each fact has one source.
 */
import type { StepResult } from '../applier/context.js';
import type { Diagnostic } from '../core/diagnostics.js';
import { isServiceDrift } from '../core/drift.js';
import { countKey, isMove, type Address, type PlanStep } from '../core/plan.js';
import type { RunReport } from '../engine/reconcile.js';
import { OWNED_ELSEWHERE } from '../core/owners-elsewhere.js';
import type { EventBody } from './vocabulary.js';

/** The plan diagnostic of an adoption refused by `adopt: explicit` (src/planner); OWNED_ELSEWHERE: by another target's ownership. */
const ADOPTION_REFUSED = 'adoption-not-allowed';
/** The plan diagnostic of a create a daemon stopped repeating (src/planner, engine/repeated-creates.ts). */
const REPEATED_CREATE = 'non-convergent';

export interface RunContext {
  /** Addresses the inventory owned before the run: a missing owned object was deleted by hand (drift). */
  ownedBefore: ReadonlySet<string>;
}

export function eventsOfRun(report: RunReport, ctx: RunContext): EventBody[] {
  const results = new Map<Address, StepResult>(report.apply?.results.map((r) => [r.address, r]));
  const out: EventBody[] = [];
  for (const step of report.plan.steps) {
    const drift = driftOf(step, report.mode, ctx);
    if (drift) out.push(drift);
    out.push(...stepOutcome(step, results.get(step.address), drift !== null));
  }
  out.push(...diagnosticEvents(report.plan.diagnostics));
  for (const why of report.plan.prune.refused) out.push({ event: 'refused', guard: 'prune', message: why });
  for (const b of report.plan.prune.blocked) out.push({ event: 'refused', guard: 'cascade', address: b.address, message: b.reason });
  return out;
}

/**
 * Drift: an owned object changed or deleted on the service (a manifest change is applied, not
 * drift); in plan mode, where nothing is applied, every change the run would make.
 */
function driftOf(step: PlanStep, mode: RunReport['mode'], ctx: RunContext): EventBody | null {
  if (step.action === 'noop') return null;
  const paths = step.changes.map((c) => c.path);
  if (!isServiceDrift(step, ctx.ownedBefore) && mode === 'apply') return null;
  if (step.reason === 'unchanged') return null;
  return { event: 'drift', address: step.address, action: step.action, reason: step.reason, paths };
}

function stepOutcome(step: PlanStep, result: StepResult | undefined, drifted: boolean): EventBody[] {
  if (!result) return [];
  const { address } = step;
  const id = result.id ?? step.id;
  const at = id === undefined ? {} : { id };
  const paths = step.changes.map((c) => c.path);
  const out: EventBody[] = [];
  if (result.outcome === 'failed')
    out.push({ event: 'failed', address, code: result.code ?? 'ERROR', message: result.message ?? 'the step failed' });
  if (result.outcome === 'refused')
    out.push({ event: 'refused', guard: 'saved-plan', address, message: result.message ?? 'the object moved since the plan' });
  const parts = result.movedParts ?? [];
  if ((result.movedFrom !== undefined || parts.length > 0) && (result.outcome === 'applied' || result.outcome === 'unchanged'))
    out.push({
      event: 'moved',
      address,
      ...(result.movedFrom === undefined ? {} : { from: result.movedFrom }),
      ...(parts.length > 0 ? { parts: parts.map((p) => ({ from: p.from, to: p.to })) } : {}),
      ...at,
    });
  if (result.outcome === 'applied' || (result.outcome === 'unchanged' && step.adopt)) {
    if (step.adopt && id !== undefined) out.push({ event: 'adopted', address, id, paths });
    if (result.outcome === 'applied') {
      if (step.action === 'create') out.push({ event: 'created', address, ...at });
      if (step.action === 'update') out.push({ event: 'updated', address, ...at, paths });
      if (step.action === 'delete') out.push({ event: 'deleted', address, ...at });
      if (drifted) out.push({ event: 'healed', address, ...at, paths });
    }
  }
  if (result.nonConvergent && result.nonConvergent.length > 0)
    out.push({ event: 'non-convergent', address, paths: result.nonConvergent.map((c) => c.path) });
  return out;
}

/** Objects the planner could not plan: refused by the adoption policy, or failed (a missing reference, an ambiguous match…). */
function diagnosticEvents(diagnostics: readonly Diagnostic[]): EventBody[] {
  return diagnostics
    .filter((d) => d.severity === 'error')
    .map((d): EventBody => {
      const address = d.address === undefined ? {} : { address: d.address };
      // A create a daemon stopped repeating (engine/repeated-creates.ts): the service does not keep the object at all.
      if (d.code === REPEATED_CREATE && d.address !== undefined) return { event: 'non-convergent', address: d.address, paths: [] };
      return d.code === ADOPTION_REFUSED || d.code === OWNED_ELSEWHERE
        ? { event: 'refused', guard: 'adoption', ...address, message: d.message }
        : { event: 'failed', ...address, code: d.code, message: d.message };
    });
}

/** What the run did (apply) or found to do (plan). */
export function runCounts(report: RunReport): {
  create: number;
  update: number;
  delete: number;
  unchanged: number;
  adopted: number;
  failed: number;
} {
  const { plan, apply } = report;
  const errors = plan.diagnostics.filter((d) => d.severity === 'error').length;
  const counts = { create: 0, update: 0, delete: 0, unchanged: 0, adopted: 0, failed: errors + (apply?.summary.failed ?? 0) };
  // Each object once, as every output counts it (countKey); a rename alone is unchanged here.
  const add = (step: PlanStep, action: PlanStep['action']) => {
    const key = countKey(action, step.adopt === true, isMove(step));
    counts[key === 'adopt' ? 'adopted' : key === 'noop' || key === 'move' ? 'unchanged' : key] += 1;
  };
  if (!apply) {
    for (const step of plan.steps) add(step, step.action);
    return counts;
  }
  const steps = new Map(plan.steps.map((step) => [step.address, step]));
  for (const r of apply.results) {
    const step = steps.get(r.address);
    if (step && (r.outcome === 'applied' || r.outcome === 'unchanged')) add(step, r.outcome === 'applied' ? step.action : 'noop');
  }
  return counts;
}

/** The first failure of a run, for the run-finished event, readiness and notifications. */
export function firstFailure(events: readonly EventBody[]): string | undefined {
  for (const e of events) {
    if (e.event === 'failed') return e.address ? `${e.address}: ${e.message}` : e.message;
    if (e.event === 'refused' && e.guard !== 'prune') return e.address ? `${e.address}: ${e.message}` : e.message;
  }
  return undefined;
}
