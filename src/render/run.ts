/**
 * Renders a run report (src/engine/reconcile.ts) in today's formats: the plan as text, as a
 * pull-request comment (markdown) or as the saved-plan JSON document; an apply's results as text
 * or JSON.
 */
import type { RunReport } from '../engine/reconcile.js';
import type { ApplyReport } from '../applier/context.js';
import { summarize } from '../core/plan.js';
import { renderApplyText } from './apply-text.js';
import { renderPlanJson, type PlanDocument } from './plan-json.js';
import { renderPlanMarkdown } from './plan-markdown.js';
import { renderPlanText } from './plan-text.js';
import { makeStyle } from './style.js';

export type PlanFormat = 'text' | 'json' | 'markdown';

/** Where a plan came from, for its JSON document. */
export interface PlanOrigin {
  generatedAt: Date;
  obsyncVersion: string;
  manifests: string[];
  config?: string;
}

export function planDocument(report: Pick<RunReport, 'plan'>, origin: PlanOrigin): PlanDocument {
  const plan = report.plan;
  return {
    ...plan,
    summary: summarize(plan.steps),
    generatedAt: origin.generatedAt.toISOString(),
    obsyncVersion: origin.obsyncVersion,
    manifests: origin.manifests,
    ...(origin.config ? { config: origin.config } : {}),
  };
}

export function renderRunPlan(report: Pick<RunReport, 'plan'>, format: PlanFormat, opts: { color: boolean; origin: PlanOrigin }): string {
  if (format === 'json') return renderPlanJson(planDocument(report, opts.origin));
  if (format === 'markdown') return renderPlanMarkdown(report.plan);
  return renderPlanText(report.plan, { color: opts.color });
}

export function renderRunApply(report: ApplyReport, format: 'text' | 'json', opts: { color: boolean }): string {
  return format === 'json' ? JSON.stringify(report, null, 2) + '\n' : renderApplyText(report, makeStyle(opts.color));
}
