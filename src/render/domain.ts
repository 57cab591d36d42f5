/**
 * The domain-level summary of a step for reviewers: the kind's own `summarise` when its
 * definition has one (dashboards: tile rows; alerts: sentences), else the changed fields in
 * short words. New kinds contribute theirs on their definition; nothing here names a kind.
 */
import type { PlanStep } from '../core/plan.js';
import { managedDefinition } from '../kinds/registry.js';
import { leafText, type ChangeSummary } from '../kinds/summary.js';
import { stepForms } from './forms.js';

export function domainSummary(step: PlanStep): ChangeSummary {
  const { before, after } = stepForms(step);
  const summarise = managedDefinition(step.kind)?.summarise;
  if (summarise && (before !== null || after !== null)) return summarise(before?.value ?? null, after?.value ?? null);
  return fieldByField(step);
}

function fieldByField(step: PlanStep): ChangeSummary {
  if (step.action === 'create')
    return { sentences: [`new ${step.kind} with ${step.changes.map((c) => c.path).join(', ') || 'no fields'}`] };
  if (step.action === 'delete') return { sentences: [`${step.kind} deleted`] };
  return { sentences: step.changes.map((c) => leafText({ path: c.path, before: c.before, after: c.after })) };
}
