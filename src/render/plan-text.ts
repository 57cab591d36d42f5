/** Terraform-like text rendering of a plan: `+ ~ -` per object with field-level before/after. */
import { formatDiagnostic } from '../core/diagnostics.js';
import type { Action, CascadeItem, Change, Plan, PlanStep } from '../core/plan.js';
import { makeStyle, type Style } from './style.js';
import { inlineValue } from './value.js';

const SYMBOL: Record<Action, string> = { create: '+', update: '~', delete: '-', noop: ' ' };
const COLOR: Record<Action, Parameters<Style>[0]> = { create: 'green', update: 'yellow', delete: 'red', noop: 'gray' };
const MAX_CHANGES_PER_STEP = 60;

export interface TextOptions {
  color: boolean;
  /** Also list unchanged objects. */
  showNoop?: boolean;
}

export function renderPlanText(plan: Plan, opts: TextOptions): string {
  const style = makeStyle(opts.color);
  const lines: string[] = [];
  const changed = plan.steps.filter((s) => s.action !== 'noop');
  if (changed.length === 0) {
    lines.push(`No changes. Target '${plan.target}' (${plan.variant}) matches the manifests.`);
  } else {
    lines.push(`obsync will perform these actions on target '${plan.target}' (${plan.variant}):`, '');
    for (const step of changed) lines.push(...renderStep(step, style), '');
  }
  if (opts.showNoop) for (const step of plan.steps.filter((s) => s.action === 'noop')) lines.push(`    ${step.address} (unchanged)`);
  lines.push(...renderPrune(plan, style));
  for (const d of plan.diagnostics) lines.push(style('red', formatDiagnostic(d)));
  lines.push(summaryLine(plan));
  return lines.join('\n') + '\n';
}

export function summaryLine(plan: Plan): string {
  const s = plan.summary;
  return `Plan: ${s.create} to create, ${s.update} to update, ${s.delete} to delete, ${s.noop} unchanged.${plan.errored ? ' Some objects could not be planned (see errors above).' : ''}`;
}

function renderStep(step: PlanStep, style: Style): string[] {
  const head = `${SYMBOL[step.action]} ${step.address}`;
  const tags = [step.action, step.reason, step.adopt ? 'adopting an existing object' : '', step.id ? `id ${step.id}` : ''].filter(Boolean).join(', ');
  const out = [style(COLOR[step.action], style('bold', `  ${head}`)) + style('gray', `  (${tags})`)];
  const shown = step.changes.slice(0, MAX_CHANGES_PER_STEP);
  for (const change of shown) out.push(`      ${renderChange(change, step.action, style)}`);
  if (step.changes.length > shown.length) out.push(style('gray', `      … ${step.changes.length - shown.length} more changes (use --output json for all)`));
  for (const path of step.nonConvergent ?? []) out.push(style('gray', `      ! ${path}: ignored — the service did not keep this value last time (non-convergent)`));
  for (const note of step.notes ?? []) out.push(style('cyan', `      note: ${note}`));
  for (const item of step.cascade ?? []) out.push(renderCascade(item, style));
  return out;
}

/** What the service deletes along with the step: loud, and louder for what obsync does not own. */
function renderCascade(item: CascadeItem, style: Style): string {
  const what = item.address ?? `${item.kind}${item.name ? ` '${item.name}'` : ''}`;
  const whose = !item.owned ? 'NOT owned by obsync' : item.declared ? 'owned, declared by a manifest' : 'owned';
  return style(item.owned && !item.declared ? 'yellow' : 'red', `      ! the service also deletes ${what} (id ${item.id}, ${whose}); it is backed up first`);
}

function renderChange(change: Change, action: Action, style: Style): string {
  const path = change.path === '' ? '(object)' : change.path;
  if (action === 'delete') return style('red', `- ${path}`);
  if (change.before === undefined) return style('green', `+ ${path}: ${inlineValue(change.after)}`);
  if (change.after === undefined) return style('red', `- ${path}: ${inlineValue(change.before)}`);
  return style('yellow', `~ ${path}: ${inlineValue(change.before)} → ${inlineValue(change.after)}`);
}

function renderPrune(plan: Plan, style: Style): string[] {
  const p = plan.prune;
  const forget = plan.forget.length > 0 ? [style('gray', `Forgetting ${plan.forget.length} unfinished create(s) no manifest declares any more (they never owned anything): ${plan.forget.join(', ')}`), ''] : [];
  if (p.refused.length > 0) {
    return [style('red', `Prune refused (${p.candidates.length} owned object(s) no longer declared, nothing deleted):`), ...p.refused.map((r) => `  - ${r}`), '', ...forget];
  }
  if (p.blocked.length > 0) {
    return [style('red', `Prune kept ${p.blocked.length} object(s) back:`), ...p.blocked.map((b) => `  - ${b.address}: ${b.reason}`), '', ...forget];
  }
  if (!p.requested && p.candidates.length > 0) {
    return [style('gray', `${p.candidates.length} owned object(s) are no longer declared; run with --prune to delete them: ${p.candidates.join(', ')}`), '', ...forget];
  }
  return forget;
}
