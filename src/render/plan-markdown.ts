/**
 * Markdown for a pull-request comment. Anything that makes the plan incomplete leads it, in one
 * banner: targets that could not be planned, objects that could not be, a refused prune (the
 * summary line then says "Incomplete"). Then one section per target: adoptions called
 * out, the summary, a table of objects with a domain-level summary each, then a folded section
 * per object (dashboards: a row per tile added/removed/moved/resized/query changed; alerts in
 * words; every changed field below). GitHub refuses comments over 65,536 characters: past the
 * budget, details and then table rows are left out, the room shared fairly between targets,
 * always with a notice per target naming what it left out.
 */
import { formatDiagnostic } from '../core/diagnostics.js';
import { joinLines } from '../core/printable.js';
import { isMove, type Plan, type PlanStep } from '../core/plan.js';
import type { ChangeSummary } from '../kinds/summary.js';
import { policyMarkdown } from './policy.js';
import { membershipMarkdown } from './membership.js';
import { backtestCell, backtestRunSentence, backtestSentence, impactHeadline, impactObject } from './backtest.js';
import { domainSummary } from './domain.js';
import { ignoredOnlySteps, ignoredSentence, isAdoption, moveLines, planErrorCount, reviewedSteps } from './forms.js';
import type { FailedTarget } from './plan-json.js';
import { summaryLine } from './plan-text.js';
import { inlineValue, valueLines } from './value.js';

/** GitHub refuses comments over 65,536 characters; leave room for a header added by CI. */
export const MAX_MARKDOWN_LENGTH = 60_000;
const REASON = {
  missing: 'new',
  drifted: 'drifted: changed on the service, put back',
  'spec-changed': 'manifest changed',
  'not-declared': 'no longer declared: pruned',
  unchanged: 'unchanged',
} as const;
const ICON = { create: '🟢 create', update: '🟡 update', delete: '🔴 delete', noop: '⚪ no change' } as const;
/** Room kept for the notice of what was left out, per target (its fixed words, a target name, NAMES_ROOM). */
const NOTICE_ROOM = 640;

/**
 * A piece of the comment: essentials always go in; table rows and details while there is room.
 * A table's head is reserved like an essential and shown only above at least one row.
 */
interface Block {
  text: string;
  kind: 'essential' | 'head' | 'row' | 'details';
  /** The object of a row or details block: named when it is left out. */
  address?: string;
}

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
 * Which blocks fit: every essential, then the rows, then the details. Each of the last two is
 * shared fairly between the targets (a target needing less than an equal share leaves the rest to
 * the others), so a large first target never leaves the next with an empty table; what a target
 * cannot use of its share (blocks do not split) goes to the first blocks that still fit.
 */
function choose(sections: readonly Block[][], budget: number): Set<number>[] {
  const chosen = sections.map(() => new Set<number>());
  let used = 0;
  const take = (t: number, i: number, b: Block) => {
    chosen[t]?.add(i);
    used += b.text.length;
  };
  sections.forEach((blocks, t) => blocks.forEach((b, i) => (b.kind === 'essential' || b.kind === 'head' ? take(t, i, b) : undefined)));
  for (const kind of ['row', 'details'] as const) {
    const demands = sections.map((blocks) => blocks.reduce((n, b) => n + (b.kind === kind ? b.text.length : 0), 0));
    const shares = fairShares(demands, budget - used);
    sections.forEach((blocks, t) => {
      let spent = 0;
      blocks.forEach((b, i) => {
        if (b.kind !== kind || spent + b.text.length > (shares[t] ?? 0)) return;
        spent += b.text.length;
        take(t, i, b);
      });
    });
    sections.forEach((blocks, t) =>
      blocks.forEach((b, i) => (b.kind === kind && !chosen[t]?.has(i) && used + b.text.length <= budget ? take(t, i, b) : undefined)),
    );
  }
  return chosen;
}

/**
 * Max-min fair shares of `available` between `demands`: each gets what it needs if that is no
 * more than an equal share of what is left; the others split the rest equally.
 */
export function fairShares(demands: readonly number[], available: number): number[] {
  const shares = demands.map(() => 0);
  let left = Math.max(0, available);
  const open = demands.map((_, i) => i).sort((a, b) => (demands[a] ?? 0) - (demands[b] ?? 0));
  while (open.length > 0) {
    const equal = Math.floor(left / open.length);
    const smallest = open[0] ?? 0;
    const need = demands[smallest] ?? 0;
    if (need > equal) {
      // eslint-disable-next-line no-restricted-syntax -- an array by index
      for (const i of open) shares[i] = equal;
      break;
    }
    // eslint-disable-next-line no-restricted-syntax -- an array by index
    shares[smallest] = need;
    left -= need;
    open.shift();
  }
  return shares;
}

/** Room for the names of objects left out of a table (the rest are counted). */
const NAMES_ROOM = 200;

function omissionNotice(blocks: readonly Block[], taken: ReadonlySet<number>, target: string | undefined): string {
  const left = (kind: Block['kind']) => blocks.filter((b, i) => b.kind === kind && !taken.has(i));
  const rows = left('row');
  const details = left('details').length;
  if (rows.length + details === 0) return '';
  const what = [
    rows.length > 0 ? `${rows.length} object(s) left out of the table${names(rows.map((b) => b.address ?? '?'))}` : '',
    details > 0 ? `the details of ${details} object(s) not shown` : '',
  ]
    .filter(Boolean)
    .join(', ');
  const where = target === undefined ? '' : ` in target ${code(target)}`;
  return `\n> [!NOTE]\n> **Truncated${where}:** ${what}: the plan is too large for one comment. The JSON plan (\`obsync plan --out plan.json\`) and the text plan have everything.\n\n`;
}

/** ` (`a`, `b` and 3 more)`: as many names as fit in NAMES_ROOM; none when not even the first fits. */
function names(addresses: readonly string[]): string {
  const shown: string[] = [];
  let length = 0;
  for (const a of addresses) {
    const item = code(a);
    if (length + item.length > NAMES_ROOM) break;
    shown.push(item);
    length += item.length + 2;
  }
  const more = addresses.length - shown.length;
  return shown.length === 0 ? '' : ` (${shown.join(', ')}${more > 0 ? ` and ${more} more` : ''})`;
}

function targetBlocks(plan: Plan, several: boolean): Block[] {
  const essential = (text: string): Block => ({ text, kind: 'essential' });
  const title = `obsync plan for ${code(plan.target)} (${escape(plan.variant)})`;
  const blocks: Block[] = [essential(several ? `### Target ${code(plan.target)} (${escape(plan.variant)})\n\n` : `### ${title}\n\n`)];
  const adoptions = plan.steps.filter(isAdoption);
  if (adoptions.length > 0) {
    const lines = adoptions.map(
      (s) =>
        `> - ${code(s.address)} (existing id ${code(s.id ?? '?')}): ${s.action === 'noop' ? 'already matches the manifest' : `${s.changes.length} field(s) change`}\n`,
    );
    blocks.push(
      essential(
        `> [!WARNING]\n> **${adoptions.length} object(s) will be ADOPTED**: they exist on the service and obsync did not create them; from this apply on, obsync owns them (it may update them, and delete them with \`--prune\`).\n${lines.join('')}\n`,
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
        text: `| ${icon(step)}${isAdoption(step) ? ' **ADOPT**' : ''} | ${code(step.address)} | ${cell(headline(step, sum))} |${backtested ? ` ${step.backtest ? cell(backtestCell(step.backtest)) : ''} |` : ''}\n`,
        kind: 'row',
        address: step.address,
      });
    blocks.push(essential('\n'));
    for (const [step, sum] of summaries) blocks.push({ text: stepDetails(step, sum), kind: 'details', address: step.address });
  }
  const members = membershipMarkdown(plan, escape);
  if (members) blocks.push(essential(members));
  const ignoredOnly = ignoredOnlySteps(plan);
  if (ignoredOnly.length > 0)
    blocks.push(
      essential(
        `Unchanged, with differences at fields ignore rules leave to the UI:\n${ignoredOnly.map((s) => `- ${code(s.address)}\n${fenced('text', joinLines(s.ignored?.map(ignoredSentence) ?? []))}`).join('')}\n`,
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
  return `> [!CAUTION]\n> **Incomplete plan: ${what}** — nothing is applied for these (the changes below can be):\n${items.map((e) => `> - ${e}\n`).join('')}\n`;
}

function errorItems(plan: Plan): string[] {
  const p = plan.prune;
  return [
    ...plan.diagnostics.filter((d) => d.severity === 'error').map((d) => escape(formatDiagnostic(d))),
    ...p.refused.map((r) => `**Prune refused** (nothing deleted): ${escape(r)}`),
    ...p.blocked.map((b) => `**Not deleted:** ${code(b.address)}: ${escape(b.reason)}`),
  ];
}

function pruneNotes(plan: Plan): string {
  const lines: string[] = [];
  for (const d of plan.diagnostics.filter((x) => x.severity === 'warning')) lines.push(`- ${escape(formatDiagnostic(d))}`);
  if (!plan.prune.requested && plan.prune.candidates.length > 0)
    lines.push(
      `- ${plan.prune.candidates.length} owned object(s) no longer declared; \`--prune\` would delete them: ${plan.prune.candidates.map((a) => code(a)).join(', ')}`,
    );
  if (plan.forget.length > 0)
    lines.push(
      `- forgetting ${plan.forget.length} unfinished create(s) no manifest declares any more: ${plan.forget.map((a) => code(a)).join(', ')}`,
    );
  return lines.length > 0 ? `${lines.join('\n')}\n\n` : '';
}

/** A renamed object with no other change is a move; anything else shows its action. */
function icon(step: PlanStep): string {
  return step.action === 'noop' && isMove(step) ? '🔵 move' : ICON[step.action];
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

function stepDetails(step: PlanStep, sum: ChangeSummary): string {
  const head = `<details><summary>${icon(step)}${isAdoption(step) ? ' <b>ADOPT</b>' : ''} <code>${html(step.address)}</code> (${REASON[step.reason]})</summary>\n\n`;
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
      body += `| ${code(row.key)}${row.name ? ` ${cell(row.name)}` : ''} | ${cell(row.changes.join(', '))} | ${cell(row.details.filter(Boolean).join('; '))} |\n`;
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
      `! the service also deletes ${item.address ?? `${item.kind} ${item.name ?? ''}`.trim()} (id ${item.id}${item.owned ? '' : ', NOT owned by obsync'})`,
    );
  return lines;
}

/** A code block whose fence is longer than any run of backticks inside. */
function fenced(lang: string, text: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}${lang}\n${text}\n${fence}\n`;
}

/**
 * Text from manifests and servers, inert in markdown: on one line, punctuation escaped, and every
 * word that GitHub could turn into a notification or a link — `@user`, `@org/team` (and a chat's
 * `@everyone`), `#123`, `owner/repo#123`, `GH-123`, and the bare URLs GFM links by itself
 * (`https://…`, `www.…`, `mailto:`, `xmpp:`) — set as code, where GitHub leaves it alone.
 * Whole words, not the references alone: `@a#1` must not leave a `#1` that starts a text of its own.
 */
export function escape(text: string): string {
  return text
    .replace(/\r?\n/g, ' ')
    .split(/(\s+)/)
    .map((word) => (REFERENCE.test(word) ? `<code>${html(word)}</code>` : word.replace(/[\\`*_[\]|~<>&]/g, (c) => `\\${c}`)))
    .join('');
}

const REFERENCE = /@|#\d|GH-\d|:\/\/|www\.|mailto:|xmpp:/i;

/** An inline code span of server or manifest text (HTML when backticks or pipes would break it). */
function code(text: string): string {
  return /[`|\r\n]/.test(text) ? `<code>${html(text.replace(/\r?\n/g, ' '))}</code>` : `\`${text}\``;
}

function cell(text: string): string {
  return escape(text);
}

function html(text: string): string {
  return text.replace(/[&<>"|]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', '|': '&#124;' })[c] ?? c);
}
