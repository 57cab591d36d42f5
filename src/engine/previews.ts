/**
 * What `plan --preview-dir` draws (issue 42): each dashboard the plan creates or updates, as the
 * plan leaves it and, for an update, as it is on the target now. Read from the plan and the live
 * state already read: no request.
 */
import type { LiveState } from '../core/live.js';
import type { Plan } from '../core/plan.js';
import type { JsonObject } from '../core/wire.js';
import type { DashboardPreviewInput } from '../core/preview.js';

export function dashboardPreviewInputs(plan: Plan, live: LiveState): DashboardPreviewInput[] {
  const dashboards = new Map((live.objects('Dashboard') ?? []).map((o) => [o.id, o]));
  return plan.steps.flatMap((step) => {
    if (step.kind !== 'Dashboard' || (step.action !== 'create' && step.action !== 'update') || !step.payload) return [];
    const before = step.action === 'update' && step.id !== undefined ? (dashboards.get(step.id) as JsonObject | undefined) : undefined;
    const name = typeof step.payload.name === 'string' ? step.payload.name : step.name;
    return [{ address: step.address, name, after: step.payload, ...(before ? { before } : {}) }];
  });
}
