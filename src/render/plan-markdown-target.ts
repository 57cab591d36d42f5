/** One target's section of a plan comment, as blocks the budget chooses from: adoptions, summary, table rows, details, notes. */
import { formatDiagnostic } from '../core/diagnostics.js';
import { joinLines } from '../core/printable.js';
import type { Plan, PlanStep } from '../core/plan.js';
import type { ChangeSummary } from '../kinds/summary.js';
import { policyMarkdown } from './policy.js';
import { membershipMarkdown } from './membership.js';
import { backtestCell, backtestRunSentence } from './backtest.js';
import { backtestMermaid } from './backtest-mermaid.js';
import { domainSummary } from './domain.js';
import { ignoredOnlySteps, ignoredSentence, isAdoption, moveLines, planErrorCount, reviewedSteps } from './forms.js';
import type { Block } from './markdown-budget.js';
import { cell, code, escape, fenced } from './markdown-text.js';
import { icon, stepDetails } from './plan-markdown-details.js';
import { summaryLine } from './plan-text.js';

export function targetBlocks(plan: Plan, several: boolean): Block[] {
  const essential = (text: string): Block => ({ text, kind: 'essential' });
  const title = `obsync plan for ${code(plan.target)} (${escape(plan.variant)})`;
  const blocks: Block[] = [essential(several ? `### Target ${code(plan.target)} (${escape(plan.variant)})\n\n` : `### ${title}\n\n`)];
  const adoptions = plan.steps.filter(isAdoption);
  if (adoptions.length > 0) {
    const lines = adoptions.map(
      (s) =>
        `> - ${code(s.address)} (existing id ${code(s.id ?? '?')}): ` +
        `${s.action === 'noop' ? 'already matches the manifest' : `${s.changes.length} field(s) change`}\n`,
    );
    blocks.push(
      essential(
        `> [!WARNING]\n> **${adoptions.length} object(s) will be ADOPTED**: they exist on the service and ` +
          `obsync did not create them; from this apply on, obsync owns them (it may update them, and delete ` +
          `them with \`--prune\`).\n${lines.join('')}\n`,
      ),
    );
  }
  const reviewed = reviewedSteps(plan);
  const summary = summaryLine([plan]);
  if (reviewed.length === 0)
    blocks.push(essential(planErrorCount(plan) === 0 ? `**No changes.** ${escape(summary)}\n\n` : `**${escape(summary)}**\n\n`));
  else {
    // Alerts backtested: a column for how often each would have fired (issue 26).
    const backtested = plan.backtest && reviewed.some((s) => s.backtest) ? plan.backtest.window : null;
    const column = backtested ? { head: ` backtest ${escape(backtested)} |`, rule: '---|' } : { head: '', rule: '' };
    blocks.push(essential(`**${escape(summary)}**\n\n`));
    blocks.push({ text: `| | object | what changes |${column.head}\n|---|---|---|${column.rule}\n`, kind: 'head' });
    const summaries = reviewed.map((s) => [s, domainSummary(s)] as const);
    for (const [step, sum] of summaries)
      blocks.push({
        text:
          `| ${icon(step)}${isAdoption(step) ? ' **ADOPT**' : ''} | ${code(step.address)} | ` +
          `${cell(headline(step, sum))} ` +
          `|${backtested ? ` ${step.backtest ? cell(backtestCell(step.backtest)) : ''} |` : ''}\n`,
        kind: 'row',
        address: step.address,
      });
    blocks.push(essential('\n'));
    for (const [step, sum] of summaries) {
      blocks.push({ text: stepDetails(step, sum), kind: 'details', address: step.address });
      // A chart is the first thing left out when the comment is too long (./markdown-budget.ts).
      const chart = step.backtest ? backtestMermaid(step.address, stepName(step), step.backtest) : '';
      if (chart) blocks.push({ text: chart, kind: 'chart', address: step.address });
    }
  }
  const members = membershipMarkdown(plan, escape);
  if (members) blocks.push(essential(members));
  const ignoredOnly = ignoredOnlySteps(plan);
  if (ignoredOnly.length > 0)
    blocks.push(
      essential(
        'Unchanged, with differences at fields ignore rules leave to the UI:\n' +
          ignoredOnly.map((s) => `- ${code(s.address)}\n${fenced('text', joinLines(s.ignored?.map(ignoredSentence) ?? []))}`).join('') +
          '\n',
      ),
    );
  const run = plan.backtest ? backtestRunSentence(plan.backtest) : null;
  if (run) blocks.push(essential(`${escape(run)}\n\n`));
  const policy = policyMarkdown(plan.policy ?? [], escape);
  if (policy) blocks.push(essential(policy));
  const notes = pruneNotes(plan);
  if (notes) blocks.push(essential(notes));
  return blocks;
}

function pruneNotes(plan: Plan): string {
  const lines: string[] = [];
  for (const d of plan.diagnostics.filter((x) => x.severity === 'warning')) lines.push(`- ${escape(formatDiagnostic(d))}`);
  if (!plan.prune.requested && plan.prune.candidates.length > 0)
    lines.push(
      `- ${plan.prune.candidates.length} owned object(s) no longer declared; \`--prune\` would delete them: ` +
        `${plan.prune.candidates.map((a) => code(a)).join(', ')}`,
    );
  if (plan.forget.length > 0)
    lines.push(
      `- forgetting ${plan.forget.length} unfinished create(s) no manifest declares any more: ` +
        `${plan.forget.map((a) => code(a)).join(', ')}`,
    );
  return lines.length > 0 ? `${lines.join('\n')}\n\n` : '';
}

/** The table's one-cell summary: renames, then the kind's sentences, or a count of its parts' changes. */
function headline(step: PlanStep, sum: ChangeSummary): string {
  const moved = moveLines(step).map((m) => `moved: ${m}`);
  const parts = sum.parts && sum.parts.rows.length > 0 ? partCounts(sum) : '';
  const words = sum.sentences.slice(0, 3).join('; ') + (sum.sentences.length > 3 ? `; ${sum.sentences.length - 3} more` : '');
  if (step.action === 'noop')
    return moved.length > 0 ? `${moved.join('; ')} (no change to the object)` : 'ownership only (no change to the object)';
  const touched = (step.impact ?? []).reduce((n, i) => n + i.objects.length, 0);
  const impact = touched > 0 ? `touches ${touched} other object(s), listed below` : '';
  return [...moved, [words, parts, impact].filter(Boolean).join('; ') || `${step.changes.length} field(s)`].join('; ');
}

/** `2 tiles added, 1 moved`. */
function partCounts(sum: ChangeSummary): string {
  const counts = new Map<string, number>();
  for (const row of sum.parts?.rows ?? []) for (const c of row.changes) counts.set(c, (counts.get(c) ?? 0) + 1);
  return [...counts].map(([c, n], i) => `${n} ${i === 0 ? `${sum.parts?.noun ?? 'part'}(s) ` : ''}${c}`).join(', ');
}

/** The alert's name as the plan leaves it, else its manifest name. */
function stepName(step: PlanStep): string {
  return typeof step.payload?.name === 'string' ? step.payload.name : step.name;
}
