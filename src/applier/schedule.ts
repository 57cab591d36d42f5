/**
 * Runs plan steps with a concurrency cap, each as soon as the steps it depends on succeeded.
 * A step whose dependency failed (or was skipped) is skipped with the reason; others go on.
 */
import type { Address, PlanStep } from '../core/plan.js';

export type StepOutcome = { status: 'done' } | { status: 'failed'; error: unknown } | { status: 'skipped'; reason: string };

export interface ScheduleOptions {
  concurrency: number;
  signal?: AbortSignal;
}

export async function runScheduled(
  steps: readonly PlanStep[],
  execute: (step: PlanStep) => Promise<void>,
  opts: ScheduleOptions,
): Promise<Map<Address, StepOutcome>> {
  const outcomes = new Map<Address, StepOutcome>();
  const inPlan = new Set(steps.map((s) => s.address));
  const pending = [...steps];
  const running = new Set<Promise<void>>();

  const blockedBy = (step: PlanStep): Address | 'wait' | null => {
    for (const dep of step.dependsOn) {
      if (!inPlan.has(dep)) continue;
      const o = outcomes.get(dep);
      if (!o) return 'wait';
      if (o.status !== 'done') return dep;
    }
    return null;
  };

  while (pending.length > 0 || running.size > 0) {
    let started = false;
    for (let i = 0; i < pending.length && running.size < opts.concurrency; ) {
      const step = pending[i] as PlanStep;
      if (opts.signal?.aborted) {
        outcomes.set(step.address, { status: 'skipped', reason: 'the run was interrupted' });
        pending.splice(i, 1);
        continue;
      }
      const blocker = blockedBy(step);
      if (blocker === 'wait') {
        i += 1;
        continue;
      }
      pending.splice(i, 1);
      if (blocker !== null) {
        outcomes.set(step.address, { status: 'skipped', reason: `depends on ${blocker}, which did not apply` });
        started = true;
        continue;
      }
      const job: Promise<void> = execute(step).then(
        () => void outcomes.set(step.address, { status: 'done' }),
        (error: unknown) => void outcomes.set(step.address, { status: 'failed', error }),
      );
      const tracked = job.finally(() => running.delete(tracked));
      running.add(tracked);
      started = true;
    }
    if (running.size > 0) await Promise.race(running);
    else if (!started && pending.length > 0) {
      // Remaining steps wait on addresses that will never complete (a cycle): skip them.
      for (const step of pending.splice(0)) outcomes.set(step.address, { status: 'skipped', reason: 'dependency cycle' });
    }
  }
  return outcomes;
}
