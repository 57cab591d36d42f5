/**
 * Several targets' runs in one output (one repository, several environments). The plan renderers
 * (plan-text, plan-markdown, plan-json) already take the plans of several targets; this adds the
 * targets whose run failed (their API down, their lease held): a section saying so, an overview
 * line naming each target, and `failed` in the JSON document (a saved plan with failed targets
 * is incomplete and is not applied).
 */
import { ObsyncError } from '../core/errors.js';
import { printable } from '../core/printable.js';
import type { Plan } from '../core/plan.js';
import { alongText, deletedAlong, planErrorCount, planSummary } from './forms.js';
import { planDocument, renderPlanJson, type PlanOrigin } from './plan-json.js';
import { parsePlanDocument, type SavedPlan } from './plan-json-read.js';
import { MAX_MARKDOWN_LENGTH, renderPlansMarkdown } from './plan-markdown.js';
import { renderPlansText } from './plan-text.js';
import type { PlanFormat } from './run.js';

/** One target's run: its plan, or why it has none. */
export type TargetOutcome = { target: string; plan: Plan; manifests?: string[] } | { target: string; error: string };

/** The plans of one or more targets (`plan`, and `apply` before it asks). */
export function renderTargetsPlan(
  outcomes: readonly TargetOutcome[],
  format: PlanFormat,
  opts: { color: boolean; origin: PlanOrigin; width?: number },
): string {
  const planned = outcomes.flatMap((o) => ('plan' in o ? [o] : []));
  const failed = outcomes.flatMap((o) => ('error' in o ? [o] : []));
  const plans = planned.map((o) => o.plan);
  if (format === 'json') {
    const manifestsByTarget = Object.fromEntries(planned.flatMap((o) => (o.manifests ? [[o.target, o.manifests]] : [])));
    return renderPlanJson(planDocument(plans, { ...opts.origin, manifestsByTarget }, failed));
  }
  // Markdown leads with what was not planned (a pull request's reviewer reads from the top); text ends with it, where a terminal shows it.
  if (format === 'markdown') {
    const body = renderPlansMarkdown(plans, MAX_MARKDOWN_LENGTH, failed);
    return outcomes.length === 1 ? body : `${body}\n${overview(outcomes, format)}`;
  }
  const notPlanned = failed.map((o) => o.target);
  const body =
    plans.length === 0 && outcomes.length === 1
      ? ''
      : renderPlansText(plans, { color: opts.color, ...(opts.width !== undefined ? { width: opts.width } : {}) }, notPlanned);
  if (outcomes.length === 1) return body;
  const sections = failed.map((o) => failedSection(o.target, o.error));
  return `${body}${sections.length > 0 ? `\n${sections.join('\n')}` : ''}\n${overview(outcomes, format)}`;
}

/** A saved plan read back for apply: refused when some target could not be planned when it was made. */
export function parseSavedPlans(text: string, file: string): SavedPlan {
  const saved = parsePlanDocument(text, file);
  if ((saved.document.failed ?? []).length > 0) {
    throw new ObsyncError('PLAN_FILE', `${file} is incomplete: some targets could not be planned when it was made`, {
      hint: 'plan again when every target is reachable, or plan the others with --target',
    });
  }
  return saved;
}

function failedSection(target: string, error: string): string {
  // obsync lays a long error out in indented lines (a config error's diagnostics); those line
  // breaks stay, any other is data and is escaped, so no text of a server starts a line of its own.
  return `Target '${target}' could not be planned: ${error
    .split(/\n(?= {2})/)
    .map(printable)
    .join('\n')}\n`;
}

/** One line per target at the end: where the changes are at a glance. */
function overview(outcomes: readonly TargetOutcome[], format: PlanFormat): string {
  const states = outcomes.map((o) => ({ target: o.target, state: 'plan' in o ? targetSummary(o.plan) : 'not planned' }));
  if (format === 'markdown') return `**Targets:** ${states.map((s) => `\`${s.target}\`: ${s.state}`).join(' · ')}\n`;
  return `Targets: ${states.map((s) => `${s.target}: ${s.state}`).join('; ')}\n`;
}

function targetSummary(plan: Plan): string {
  const s = planSummary([plan]);
  if (s.create + s.update + s.delete + s.adopt + s.move === 0 && planErrorCount(plan) === 0) return 'no changes';
  const errors = planErrorCount(plan);
  return (
    `${s.create} to create, ${s.update} to update, ${s.delete} to ` +
    `delete${alongText(deletedAlong(plan), 'deletes')}` +
    `${s.adopt > 0 ? `, ${s.adopt} to adopt` : ''}${s.move > 0 ? `, ${s.move} to move` : ''}, ` +
    `${s.noop} unchanged${errors > 0 ? `, ${errors} error(s)` : ''}`
  );
}
