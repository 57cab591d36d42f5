/**
 * Renders the run reports (src/engine/reconcile.ts) of one or more targets: a plan as text, as a
 * pull-request comment (markdown) or as the JSON plan document (also the saved plan); an apply's
 * results as text or as the JSON apply report. Text and markdown have one section per target
 * (headed when there are several); JSON is one document for all targets.
 */
import type { RunReport } from '../engine/reconcile.js';
import { renderApplyText } from './apply-text.js';
import { applyReportDocument, renderApplyJson, type ReportOrigin } from './apply-json.js';
import { planDocument, renderPlanJson, type PlanDocument, type PlanOrigin } from './plan-json.js';
import { renderPlansMarkdown } from './plan-markdown.js';
import { renderPlansText } from './plan-text.js';
import { makeStyle } from './style.js';

export type { PlanOrigin, ReportOrigin };
export type PlanFormat = 'text' | 'json' | 'markdown';

export function runPlanDocument(reports: readonly RunReport[], origin: PlanOrigin): PlanDocument {
  return planDocument(
    reports.map((r) => r.plan),
    origin,
  );
}

export function renderRunPlan(reports: readonly RunReport[], format: PlanFormat, opts: { color: boolean; origin: PlanOrigin; width?: number }): string {
  const plans = reports.map((r) => r.plan);
  if (format === 'json') return renderPlanJson(planDocument(plans, opts.origin));
  if (format === 'markdown') return renderPlansMarkdown(plans);
  return renderPlansText(plans, { color: opts.color, ...(opts.width !== undefined ? { width: opts.width } : {}) });
}

export function renderRunApply(reports: readonly RunReport[], format: 'text' | 'json', opts: { color: boolean; origin: ReportOrigin }): string {
  if (format === 'json') return renderApplyJson(applyReportDocument(reports, opts.origin));
  const style = makeStyle(opts.color);
  return reports.flatMap((r) => (r.apply ? [renderApplyText(r.apply, style, reports.length > 1 ? r.target : undefined)] : [])).join('');
}
