/**
 * Runs plan steps with a concurrency cap, each as soon as the steps it depends on succeeded.
 * A step whose dependency failed (or was skipped) is skipped with the reason; others go on.
 * Steps start in plan order as they become ready; the bookkeeping is linear in the steps and
 * their dependencies (a plan of 20,000 mostly unchanged objects must not cost a scan per step).
 */
import { pushTo } from '../core/collections.js';
import { LeaseLostError } from '../core/errors.js';
import type { Address, PlanStep } from '../core/plan.js';

/** `stopped`: skipped because the run stopped (Ctrl-C, the writer lease lost), not because of a dependency. */
export type StepOutcome = { status: 'done' } | { status: 'failed'; error: unknown } | { status: 'skipped'; reason: string; stopped?: true };

export interface ScheduleOptions {
  concurrency: number;
  signal?: AbortSignal;
}

const INTERRUPTED: StepOutcome = { status: 'skipped', reason: 'the run was interrupted', stopped: true };

/** Why the steps not started were not: a lost writer lease says so, anything else is an interruption. */
function stoppedOutcome(signal: AbortSignal | undefined): StepOutcome {
  const reason: unknown = signal?.reason;
  return reason instanceof LeaseLostError ? { status: 'skipped', reason: `not started: ${reason.message}`, stopped: true } : INTERRUPTED;
}

/** `settled`: outcomes of steps run before (a dependency on one that did not apply skips). */
export async function runScheduled(
  steps: readonly PlanStep[],
  execute: (step: PlanStep) => Promise<void>,
  opts: ScheduleOptions,
  settled: ReadonlyMap<Address, StepOutcome> = new Map(),
): Promise<Map<Address, StepOutcome>> {
  const outcomes = new Map<Address, StepOutcome>();
  const inPlan = new Set(steps.map((s) => s.address));
  const waitingOn = new Map<Address, number>();
  const dependants = new Map<Address, PlanStep[]>();
  const ready: PlanStep[] = [];
  const blockedBefore: [PlanStep, Address][] = [];
  for (const step of steps) {
    const failedBefore = step.dependsOn.find((d) => settled.has(d) && settled.get(d)?.status !== 'done');
    if (failedBefore) blockedBefore.push([step, failedBefore]);
    const deps = new Set(step.dependsOn.filter((d) => inPlan.has(d)));
    waitingOn.set(step.address, deps.size);
    for (const dep of deps) pushTo(dependants, dep, step);
    if (deps.size === 0 && !failedBefore) ready.push(step);
  }

  // Settles one step; its dependants become ready, or are skipped when it did not apply.
  const settle = (address: Address, outcome: StepOutcome): void => {
    outcomes.set(address, outcome);
    for (const next of dependants.get(address) ?? []) {
      if (outcomes.has(next.address)) continue;
      if (outcome.status !== 'done') {
        settle(
          next.address,
          outcome.status === 'skipped' && outcome.stopped
            ? outcome
            : { status: 'skipped', reason: `depends on ${address}, which did not apply` },
        );
        continue;
      }
      const left = (waitingOn.get(next.address) ?? 1) - 1;
      waitingOn.set(next.address, left);
      if (left === 0) ready.push(next);
    }
  };

  for (const [step, dep] of blockedBefore) {
    if (!outcomes.has(step.address)) settle(step.address, { status: 'skipped', reason: `depends on ${dep}, which did not apply` });
  }

  const running = new Set<Promise<void>>();
  let next = 0;
  while (next < ready.length || running.size > 0) {
    while (next < ready.length && running.size < opts.concurrency) {
      const step = ready[next++] as PlanStep;
      if (outcomes.has(step.address)) continue;
      if (opts.signal?.aborted) {
        settle(step.address, stoppedOutcome(opts.signal));
        continue;
      }
      const job: Promise<void> = execute(step).then(
        () => settle(step.address, { status: 'done' }),
        (error: unknown) => settle(step.address, { status: 'failed', error }),
      );
      const tracked = job.finally(() => running.delete(tracked));
      running.add(tracked);
    }
    if (running.size > 0) await Promise.race(running);
  }
  // What never became ready waits on itself through a cycle.
  for (const step of steps) {
    if (!outcomes.has(step.address))
      outcomes.set(step.address, opts.signal?.aborted ? stoppedOutcome(opts.signal) : { status: 'skipped', reason: 'dependency cycle' });
  }
  return outcomes;
}
