/**
 * A target's last plan on its status page, in the same domain terms as the markdown plan (the
 * kinds' own summaries: tile rows, alert sentences): errors, adoptions, the summary line, a row
 * per changed object with a folded section of its fields. Bounded: past MAX_ROWS objects a
 * notice says how many were left out. Every text goes through `text()`.
 */
import { formatDiagnostic } from '../core/diagnostics.js';
import type { Plan, PlanStep } from '../core/plan.js';
import type { ChangeSummary } from '../kinds/summary.js';
import { domainSummary } from './domain.js';
import { isAdoption, planErrorCount, reviewedSteps } from './forms.js';
import { text } from './html.js';
import { summaryLine } from './plan-text.js';
import { inlineValue } from './value.js';

export const MAX_ROWS = 200;
const ACTION = { create: 'create', update: 'update', delete: 'delete', noop: 'no change' } as const;
const REASON = {
  missing: 'new',
  drifted: 'drifted: changed on the service',
  'spec-changed': 'manifest changed',
  'not-declared': 'no longer declared',
  unchanged: 'unchanged',
} as const;

export function renderPlanHtml(plan: Plan): string {
  const parts: string[] = [];
  const errors = [
    ...plan.diagnostics.filter((d) => d.severity === 'error').map((d) => formatDiagnostic(d)),
    ...plan.prune.refused.map((r) => `Prune refused (nothing deleted): ${r}`),
    ...plan.prune.blocked.map((b) => `Not deleted: ${b.address}: ${b.reason}`),
  ];
  if (errors.length > 0)
    parts.push(
      `<div class="callout error"><p><strong>${errors.length} ` +
        `error(s)</strong></p><ul>${errors.map((e) => `<li>${text(e)}</li>`).join('')}</ul></div>`,
    );
  const adoptions = plan.steps.filter(isAdoption);
  if (adoptions.length > 0)
    parts.push(
      `<div class="callout warning"><p><strong>${adoptions.length} object(s) adopted</strong>: ` +
        `they existed on the service and obsync did not create them.</p><ul>${adoptions
          .map((s) => `<li><code>${text(s.address)}</code> (existing id <code>${text(s.id ?? '?')}</code>)</li>`)
          .join('')}</ul></div>`,
    );
  const reviewed = reviewedSteps(plan);
  const summary = summaryLine([plan]);
  parts.push(`<p class="summary">${text(reviewed.length === 0 && planErrorCount(plan) === 0 ? `No changes. ${summary}` : summary)}</p>`);
  if (reviewed.length === 0) return parts.join('\n');
  const shown = reviewed.slice(0, MAX_ROWS);
  const rows = shown.map((step) => row(step, domainSummary(step)));
  parts.push(
    `<table class="plan"><caption>Objects in the last plan</caption><thead><tr><th ` +
      `scope="col">Change</th><th scope="col">Object</th><th scope="col">What ` +
      `changes</th></tr></thead><tbody>${rows.join('')}</tbody></table>`,
  );
  if (reviewed.length > shown.length)
    parts.push(
      `<p class="notice">${reviewed.length - shown.length} more object(s) not shown; <code>obsync plan</code> lists them all.</p>`,
    );
  return parts.join('\n');
}

function row(step: PlanStep, sum: ChangeSummary): string {
  const adopt = isAdoption(step) ? ' <strong>ADOPT</strong>' : '';
  return (
    `<tr ` +
    `class="action-${step.action}"><td>${ACTION[step.action]}${adopt}</td><td><code>${text(step.address)}</code><br><span ` +
    `class="muted">${text(REASON[step.reason])}</span></td><td>${details(step, sum)}</td></tr>`
  );
}

function details(step: PlanStep, sum: ChangeSummary): string {
  const sentences = sum.sentences.length > 0 ? `<ul>${sum.sentences.map((s) => `<li>${text(s)}</li>`).join('')}</ul>` : '';
  const partRows = sum.parts?.rows ?? [];
  const parts =
    partRows.length > 0
      ? `<table class="parts"><caption>${text(sum.parts?.noun ?? 'part')}s</caption><thead><tr>` +
        `<th scope="col">${text(sum.parts?.noun ?? 'part')}</th><th scope="col">change</th><th scope="col">details</th></tr></thead>` +
        `<tbody>${partRows
          .map(
            (r) =>
              `<tr><td><code>${text(r.key)}</code>${r.name ? ` ${text(r.name)}` : ''}</td>` +
              `<td>${text(r.changes.join(', '))}</td><td>${text(r.details.filter(Boolean).join('; '))}</td></tr>`,
          )
          .join('')}</tbody></table>`
      : '';
  const fields = step.changes.map((c) => fieldLine(c.path, c.before, c.after));
  const diff =
    fields.length > 0 ? `<details><summary>${fields.length} field(s)</summary><pre>${fields.map(text).join('\n')}</pre></details>` : '';
  return `${sentences}${parts}${diff}` || text(`${step.changes.length} field(s)`);
}

function fieldLine(path: string, before: Parameters<typeof inlineValue>[0], after: Parameters<typeof inlineValue>[0]): string {
  const at = path || '(object)';
  if (before !== undefined && after !== undefined) return `~ ${at}: ${inlineValue(before)} → ${inlineValue(after)}`;
  return before === undefined ? `+ ${at}: ${inlineValue(after)}` : `- ${at}: ${inlineValue(before)}`;
}
