/** The folded section of one object in a plan comment: moves, the kind's sentences, backtest, impact, parts and the field diff. */
import { joinLines } from '../core/printable.js';
import { isMove, type PlanStep } from '../core/plan.js';
import type { ChangeSummary } from '../kinds/summary.js';
import { backtestSentence, impactHeadline, impactObject } from './backtest.js';
import { ignoredSentence, isAdoption, moveLines } from './forms.js';
import { cell, code, escape, fenced, html } from './markdown-text.js';
import { inlineValue, valueLines } from './value.js';

const REASON = {
  missing: 'new',
  drifted: 'drifted: changed on the service, put back',
  'spec-changed': 'manifest changed',
  'not-declared': 'no longer declared: pruned',
  unchanged: 'unchanged',
} as const;
const ICON = { create: '🟢 create', update: '🟡 update', delete: '🔴 delete', noop: '⚪ no change' } as const;
/** A renamed object with no other change is a move; anything else shows its action. */
export function icon(step: PlanStep): string {
  return step.action === 'noop' && isMove(step) ? '🔵 move' : ICON[step.action];
}

export function stepDetails(step: PlanStep, sum: ChangeSummary): string {
  const head =
    `<details><summary>${icon(step)}${isAdoption(step) ? ' <b>ADOPT</b>' : ''} ` +
    `<code>${html(step.address)}</code> (${REASON[step.reason]})</summary>\n\n`;
  let body = moveLines(step)
    .map((m) => `- moved: ${escape(m)}\n`)
    .join('');
  if (body !== '') body += '\n';
  if (sum.sentences.length > 0) body += sum.sentences.map((s) => `- ${escape(s)}\n`).join('') + '\n';
  if (step.backtest) body += `- ${escape(backtestSentence(step.backtest))}\n\n`;
  for (const impact of step.impact ?? [])
    body +=
      `- **${escape(impactHeadline(impact))}:**\n` +
      impact.objects
        .map((o) => `  - ${escape(impactObject(o))}${o.backtest ? `: ${escape(backtestSentence(o.backtest))}` : ''}\n`)
        .join('') +
      '\n';
  if (sum.parts && sum.parts.rows.length > 0) {
    body += `| ${escape(sum.parts.noun)} | change | details |\n|---|---|---|\n`;
    for (const row of sum.parts.rows)
      body +=
        `| ${code(row.key)}${row.name ? ` ${cell(row.name)}` : ''} | ${cell(row.changes.join(', '))} | ` +
        `${cell(row.details.filter(Boolean).join('; '))} |\n`;
    body += '\n';
  }
  const diff = diffLines(step);
  if (diff.length > 0) body += fenced('diff', joinLines(diff));
  return `${head}${body}</details>\n\n`;
}

/** Every changed field, nested and in full (the comment's budget decides what is shown, not a cut per value). */
function diffLines(step: PlanStep): string[] {
  const lines: string[] = [];
  for (const c of step.changes) {
    const path = c.path || '(object)';
    if (c.before !== undefined && c.after !== undefined) {
      const one = `~ ${path}: ${inlineValue(c.before)} → ${inlineValue(c.after)}`;
      if (one.length <= 100) lines.push(one);
      else
        lines.push(
          `~ ${path}:`,
          ...valueLines('before', c.before, 2, 100).map((l) => `-${l.slice(1)}`),
          ...valueLines('after', c.after, 2, 100).map((l) => `+${l.slice(1)}`),
        );
      continue;
    }
    const [marker, value] = c.before === undefined ? ['+', c.after] : ['-', c.before];
    lines.push(...valueLines(path, value, 2, 100).map((l, i) => (i === 0 ? `${marker} ${l.slice(2)}` : `${marker}${l.slice(1)}`)));
  }
  for (const c of step.ignored ?? []) lines.push(`# ${ignoredSentence(c)}`);
  for (const note of step.notes ?? []) lines.push(`# note: ${note}`);
  for (const item of step.cascade ?? [])
    lines.push(
      `! the service also deletes ${item.address ?? `${item.kind} ${item.name ?? ''}`.trim()} (id ` +
        `${item.id}${item.owned ? '' : ', NOT owned by obsync'})`,
    );
  return lines;
}
