/**
 * Renders an apply's run reports (src/engine/reconcile.ts) of one or more targets, as text or as
 * the JSON apply report. Plans are rendered by src/render/targets.ts.
 */
import type { RunReport } from '../engine/reconcile.js';
import { renderApplyText } from './apply-text.js';
import { applyReportDocument, renderApplyJson, type ReportOrigin } from './apply-json.js';
import type { PlanOrigin } from './plan-json.js';
import { makeStyle } from './style.js';

export type { PlanOrigin, ReportOrigin };
export type PlanFormat = 'text' | 'json' | 'markdown';

export function renderRunApply(
  reports: readonly RunReport[],
  format: 'text' | 'json',
  opts: { color: boolean; origin: ReportOrigin },
): string {
  if (format === 'json') return renderApplyJson(applyReportDocument(reports, opts.origin));
  const style = makeStyle(opts.color);
  return reports
    .flatMap((r) => (r.apply ? [renderApplyText(r.apply, r.plan, style, reports.length > 1 ? r.target : undefined)] : []))
    .join('');
}
