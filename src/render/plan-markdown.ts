/** Markdown for a pull-request comment: summary first, details folded, sized for GitHub's limit. */
import { formatDiagnostic } from '../core/diagnostics.js';
import type { Plan, PlanStep } from '../core/plan.js';
import { summaryLine } from './plan-text.js';
import { inlineValue } from './value.js';

/** GitHub refuses comments over 65,536 characters; leave room for a header added by CI. */
const MAX_LENGTH = 60_000;
const ICON = { create: '🟢 create', update: '🟡 update', delete: '🔴 delete', noop: 'unchanged' } as const;

export function renderPlanMarkdown(plan: Plan): string {
  const head: string[] = [`### obsync plan for \`${plan.target}\` (${plan.variant})`, '', `**${summaryLine(plan)}**`, ''];
  const changed = plan.steps.filter((s) => s.action !== 'noop');
  if (changed.length > 0) {
    head.push('| | object | reason | fields |', '|---|---|---|---|');
    for (const s of changed) head.push(`| ${ICON[s.action]} | \`${s.address}\` | ${s.reason}${s.adopt ? ' (adopt)' : ''} | ${s.changes.length} |`);
    head.push('');
  }
  if (plan.prune.refused.length > 0) head.push(`> **Prune refused:** ${plan.prune.refused.join('; ')}`, '');
  for (const b of plan.prune.blocked) head.push(`> **Not deleted:** \`${b.address}\` ${escape(b.reason)}`, '');
  if (plan.diagnostics.length > 0) head.push('**Errors**', '', ...plan.diagnostics.map((d) => `- ${escape(formatDiagnostic(d))}`), '');
  let out = head.join('\n');
  const details = changed.map(stepDetails);
  for (let i = 0; i < details.length; i += 1) {
    const block = details[i] ?? '';
    if (out.length + block.length > MAX_LENGTH) {
      out += `\n_${details.length - i} more object(s) not shown: the plan is too large for a comment; see the JSON plan artifact._\n`;
      break;
    }
    out += block;
  }
  return out;
}

function stepDetails(step: PlanStep): string {
  const lines = step.changes.map((c) => {
    if (c.before === undefined) return `+ ${c.path || '(object)'}: ${inlineValue(c.after, 200)}`;
    if (c.after === undefined) return `- ${c.path || '(object)'}: ${inlineValue(c.before, 200)}`;
    return `~ ${c.path}: ${inlineValue(c.before, 200)} → ${inlineValue(c.after, 200)}`;
  });
  for (const note of step.notes ?? []) lines.push(`# note: ${note}`);
  for (const item of step.cascade ?? []) lines.push(`! the service also deletes ${item.address ?? `${item.kind} ${item.name ?? ''}`.trim()} (id ${item.id}${item.owned ? '' : ', NOT owned by obsync'})`);
  return `<details><summary>${ICON[step.action]} <code>${step.address}</code> (${step.reason})</summary>\n\n\`\`\`diff\n${lines.join('\n').replaceAll('```', "'''")}\n\`\`\`\n</details>\n`;
}

function escape(text: string): string {
  return text.replace(/[<>]/g, (c) => (c === '<' ? '&lt;' : '&gt;'));
}
