/**
 * What is drift (issue 41): an owned object changed or deleted on the service while its manifest
 * did not change. A manifest change is applied, not drift. `drift: report | propose` holds these
 * steps back from the apply; the event vocabulary reports them as `drift`.
 */
import type { PlanStep } from './plan.js';

export function isServiceDrift(step: PlanStep, ownedBefore: ReadonlySet<string>): boolean {
  if (step.action === 'noop') return false;
  return step.reason === 'drifted' || (step.reason === 'missing' && ownedBefore.has(step.address));
}
