/**
 * Markdown for a pull-request comment. Anything that makes the plan incomplete leads it, in one
 * banner: targets that could not be planned, objects that could not be, a refused prune (the
 * summary line then says "Incomplete"). Then one section per target: adoptions called
 * out, the summary, a table of objects with a domain-level summary each, then a folded section
 * per object (dashboards: a row per tile added/removed/moved/resized/query changed; alerts in
 * words; every changed field below). GitHub refuses comments over 65,536 characters: past the
 * budget, details and then table rows are left out, the room shared fairly between targets,
 * always with a notice per target naming what it left out. A target's section is
 * ./plan-markdown-target.ts, the budget ./markdown-budget.ts.
 */
import { formatDiagnostic } from '../core/diagnostics.js';
import type { Plan } from '../core/plan.js';
import { planErrorCount } from './forms.js';
import { choose, NOTICE_ROOM, omissionNotice } from './markdown-budget.js';
import { code, escape } from './markdown-text.js';
import type { FailedTarget } from './plan-json.js';
import { targetBlocks } from './plan-markdown-target.js';
import { summaryLine } from './plan-text.js';

/** GitHub refuses comments over 65,536 characters; leave room for a header added by CI. */
export const MAX_MARKDOWN_LENGTH = 60_000;
/** `failed`: the targets that could not be planned (their API down, their settings unresolved). */
export function renderPlansMarkdown(plans: readonly Plan[], maxLength = MAX_MARKDOWN_LENGTH, failed: readonly FailedTarget[] = []): string {
  const several = plans.length + failed.length > 1;
  const sections = plans.map((plan) => targetBlocks(plan, several));
  const summary = `**${escape(
    summaryLine(
      plans,
      failed.map((f) => f.target),
    ),
  )}**\n\n`;
  const title = several ? `## obsync plan (${plans.length + failed.length} targets)\n\n${summary}` : plans.length === 0 ? summary : '';
  const head = incompleteBanner(plans, failed, several) + title;
  const budget = maxLength - head.length - NOTICE_ROOM * plans.length;
  const chosen = choose(sections, budget);
  let out = head;
  sections.forEach((blocks, t) => {
    const taken = chosen[t] ?? new Set<number>();
    const anyRow = blocks.some((b, i) => b.kind === 'row' && taken.has(i));
    out += blocks
      .filter((b, i) => taken.has(i) && (b.kind !== 'head' || anyRow))
      .map((b) => b.text)
      .join('');
    out += omissionNotice(blocks, taken, several ? plans[t]?.target : undefined);
  });
  return out;
}

/**
 * What makes the plan incomplete, first in the comment, in one banner whatever it is: a target
 * not planned at all, an object not planned, a refused prune, a delete kept back.
 */
function incompleteBanner(plans: readonly Plan[], failed: readonly FailedTarget[], several: boolean): string {
  const where = (target: string) => (several ? `${code(target)}: ` : '');
  const items = [
    ...failed.map((f) => `**Target ${code(f.target)} was not planned:** ${escape(f.error)}`),
    ...plans.flatMap((plan) => errorItems(plan).map((e) => `${where(plan.target)}${e}`)),
  ];
  if (items.length === 0) return '';
  const errors = plans.reduce((n, p) => n + planErrorCount(p), 0);
  const what = [
    ...(failed.length > 0 ? [`${failed.length} target(s) not planned`] : []),
    ...(errors > 0 ? [`${errors} error(s)`] : []),
  ].join(', ');
  return (
    `> [!CAUTION]\n> **Incomplete plan: ${what}** — nothing is applied for these (the changes below can ` +
    `be):\n${items.map((e) => `> - ${e}\n`).join('')}\n`
  );
}

function errorItems(plan: Plan): string[] {
  const p = plan.prune;
  return [
    ...plan.diagnostics.filter((d) => d.severity === 'error').map((d) => escape(formatDiagnostic(d))),
    ...p.refused.map((r) => `**Prune refused** (nothing deleted): ${escape(r)}`),
    ...p.blocked.map((b) => `**Not deleted:** ${code(b.address)}: ${escape(b.reason)}`),
  ];
}
