/**
 * Terraform-like text of one or more targets' plans: per target the errors first, then each
 * object (`+ ~ -`) with every changed field — nested and wrapped, never cut — and adoptions
 * loudly; "No changes." only when there is nothing to do and nothing went wrong; one summary line
 * at the end.
 */
import { formatDiagnostic } from '../core/diagnostics.js';
import { policyTextLines } from './policy.js';
import type { Impact } from '../core/backtest.js';
import { joinLines } from '../core/printable.js';
import { isMove, type Action, type CascadeItem, type Change, type Plan, type PlanStep } from '../core/plan.js';
import { backtestRunSentence, backtestSentence, impactHeadline, impactObject } from './backtest.js';
import {
  alongText,
  deletedAlong,
  ignoredOnlySteps,
  ignoredSentence,
  isAdoption,
  moveLines,
  planErrorCount,
  planSummary,
  reviewedSteps,
  stepForms,
} from './forms.js';
import { makeStyle, type Style } from './style.js';
import { inlineValue, textLines, valueLines } from './value.js';

const SYMBOL: Record<Action, string> = { create: '+', update: '~', delete: '-', noop: ' ' };
const COLOR: Record<Action, Parameters<Style>[0]> = { create: 'green', update: 'yellow', delete: 'red', noop: 'gray' };
/** Where a step's fields start, and the width they are laid out in. */
const FIELD_INDENT = 6;
export const DEFAULT_WIDTH = 80;

export interface TextOptions {
  color: boolean;
  /** Columns to lay values out in (default 80). */
  width?: number;
  /** Also list unchanged objects. */
  showNoop?: boolean;
}

export function renderPlansText(plans: readonly Plan[], opts: TextOptions, notPlanned: readonly string[] = []): string {
  const style = makeStyle(opts.color);
  const width = opts.width ?? DEFAULT_WIDTH;
  const several = plans.length > 1;
  const lines: string[] = [];
  for (const plan of plans) {
    const rule = '─'.repeat(Math.max(3, width - plan.target.length - plan.variant.length - 17));
    if (several) lines.push(style('bold', `── target '${plan.target}' (${plan.variant}) ${rule}`), '');
    lines.push(...targetLines(plan, style, width, opts.showNoop === true));
  }
  lines.push(summaryLine(plans, notPlanned));
  // One string per line: a line break inside one came from data (a cascade's name, a note) and is shown escaped.
  return joinLines(lines) + '\n';
}

function targetLines(plan: Plan, style: Style, width: number, showNoop: boolean): string[] {
  const lines = errorLines(plan, style);
  const reviewed = reviewedSteps(plan);
  const changing = reviewed.some((s) => s.action !== 'noop' || isMove(s));
  if (changing) lines.push(`obsync will perform these actions on target '${plan.target}' (${plan.variant}):`, '');
  for (const step of reviewed) lines.push(...stepLines(step, style, width), '');
  for (const step of ignoredOnlySteps(plan))
    lines.push(
      style('gray', `    ${step.address} (unchanged: its differences are at fields ignore rules leave to the UI)`),
      ...ignoredLines(step, style, width),
      '',
    );
  if (!changing && planErrorCount(plan) === 0) {
    // Adoptions that change nothing on the service are still announced, above the verdict.
    const owning = reviewed.length > 0 ? `; apply takes ownership of the ${reviewed.length} existing object(s) above` : '';
    lines.push(`No changes. Target '${plan.target}' (${plan.variant}) matches the manifests${owning}.`, '');
  }
  if (showNoop)
    for (const step of plan.steps.filter((s) => s.action === 'noop' && !isAdoption(s))) lines.push(`    ${step.address} (unchanged)`);
  const backtest = plan.backtest ? backtestRunSentence(plan.backtest) : null;
  if (backtest) lines.push(style('gray', backtest), '');
  const policy = policyTextLines(plan.policy ?? []);
  if (policy.length > 0) lines.push(...policy.slice(1), '');
  lines.push(...pruneNotes(plan, style));
  return lines;
}

/** Everything that makes the run fail, before any change: what could not be planned, a refused prune, deletes kept back. */
function errorLines(plan: Plan, style: Style): string[] {
  const lines: string[] = [];
  for (const d of plan.diagnostics) lines.push(style(d.severity === 'error' ? 'red' : 'yellow', formatDiagnostic(d)));
  if (lines.length > 0) lines.push('');
  const p = plan.prune;
  if (p.refused.length > 0)
    lines.push(
      style('red', `Prune refused (${p.candidates.length} owned object(s) no longer declared, nothing deleted):`),
      ...p.refused.map((r) => `  - ${r}`),
      '',
    );
  if (p.blocked.length > 0)
    lines.push(
      style('red', `Prune kept ${p.blocked.length} object(s) back:`),
      ...p.blocked.map((b) => `  - ${b.address}: ${b.reason}`),
      '',
    );
  return lines;
}

/**
 * The one-line summary of all targets; `notPlanned`: the targets that could not be planned. A plan
 * with any error, or without a target, says it is incomplete (every format: text, markdown).
 */
export function summaryLine(plans: readonly Plan[], notPlanned: readonly string[] = []): string {
  const s = planSummary(plans);
  const along = plans.reduce((n, p) => n + deletedAlong(p), 0);
  const errors = plans.reduce((n, p) => n + planErrorCount(p), 0);
  const targets = plans.length + notPlanned.length;
  const where = targets > 1 ? ` (${targets} targets)` : '';
  const adopt = s.adopt > 0 ? `, ${s.adopt} to ADOPT` : '';
  const move = s.move > 0 ? `, ${s.move} to move` : '';
  const missing = notPlanned.map((t) => `'${t}'`).join(', ');
  const gaps = [
    ...(errors > 0 ? [`${errors} error(s), listed above${plans.some((p) => p.errored) ? ': some objects could not be planned' : ''}`] : []),
    ...(notPlanned.length > 0 ? [`target${notPlanned.length > 1 ? 's' : ''} ${missing} could not be planned`] : []),
  ];
  const incomplete = gaps.length > 0 ? ` Incomplete: ${gaps.join('; ')}.` : '';
  if (plans.length === 0) return `Plan${where}: nothing was planned.${incomplete}`;
  return (
    `Plan${where}: ${s.create} to create, ${s.update} to update, ${s.delete} to ` +
    `delete${alongText(along, 'deletes')}${adopt}${move}, ${s.noop} unchanged.${incomplete}`
  );
}

function stepLines(step: PlanStep, style: Style, width: number): string[] {
  const out: string[] = [];
  if (isAdoption(step)) {
    const banner =
      `${step.address} will be ADOPTED: it exists on the service (id ${step.id ?? '?'}) and obsync did not ` +
      `create it; from this apply on, obsync owns ` +
      `it${step.action === 'noop' ? ' (it already matches the manifest)' : ', with the changes below'}`;
    out.push(...textLines(banner, 4, width).map((l, i) => style(['bold', 'magenta'], i === 0 ? `  !${l.slice(3)}` : l)));
  }
  const moves = moveLines(step).map((m) => style('cyan', `      moved: ${m}`));
  if (step.action === 'noop') {
    if (moves.length > 0)
      out.push(
        style('cyan', style('bold', `  > ${step.address}`)) +
          style('gray', `  (moved${step.id ? `, id ${step.id}` : ''}; the object is unchanged)`),
        ...moves,
      );
    return out;
  }
  const tags = [
    step.action,
    step.reason,
    isAdoption(step) ? 'adopting' : '',
    moves.length > 0 ? 'moved' : '',
    step.id ? `id ${step.id}` : '',
  ]
    .filter(Boolean)
    .join(', ');
  out.push(style(COLOR[step.action], style('bold', `  ${SYMBOL[step.action]} ${step.address}`)) + style('gray', `  (${tags})`));
  out.push(...moves);
  const fields = step.action === 'delete' ? deletedFields(step) : step.changes;
  for (const change of fields) out.push(...changeLines(change, step.action, style, width));
  for (const path of step.nonConvergent ?? [])
    out.push(style('gray', `      ! ${path}: ignored — the service did not keep this value last time (non-convergent)`));
  out.push(...ignoredLines(step, style, width));
  for (const note of step.notes ?? []) out.push(style('cyan', `      note: ${note}`));
  for (const item of step.cascade ?? []) out.push(renderCascade(item, style));
  if (step.backtest) out.push(...sentenceLines(backtestSentence(step.backtest), FIELD_INDENT, width).map((l) => style('cyan', l)));
  for (const impact of step.impact ?? []) out.push(...impactLines(impact, style, width));
  return out;
}

/** Each difference an ignore rule left out: `= path: ignored by rule …`. */
function ignoredLines(step: PlanStep, style: Style, width: number): string[] {
  return (step.ignored ?? []).flatMap((c) => sentenceLines(`= ${ignoredSentence(c)}`, FIELD_INDENT, width).map((l) => style('gray', l)));
}

/** What else the change touches: a headline, then each object (with its backtest when it has one). */
function impactLines(impact: Impact, style: Style, width: number): string[] {
  const head = sentenceLines(`! ${impactHeadline(impact)}:`, FIELD_INDENT, width).map((l) => style('yellow', l));
  const items = impact.objects.flatMap((item) =>
    sentenceLines(`- ${impactObject(item)}${item.backtest ? `: ${backtestSentence(item.backtest)}` : ''}`, FIELD_INDENT + 2, width),
  );
  return [...head, ...items];
}

/** A sentence at `indent`, wrapped at `width`; its continuation lines two columns further in. */
function sentenceLines(text: string, indent: number, width: number): string[] {
  const [first = '', ...rest] = textLines(text, 0, width - indent - 2);
  return [`${' '.repeat(indent)}${first}`, ...rest.map((l) => `${' '.repeat(indent + 2)}${l}`)];
}

/** A delete lists what goes: the object's fields as last read. */
function deletedFields(step: PlanStep): Change[] {
  const before = stepForms(step).before?.value;
  if (before === undefined || before === null || typeof before !== 'object' || Array.isArray(before)) return [];
  return Object.entries(before).map(([path, value]) => ({ path, before: value }));
}

/** What the service deletes along with the step: loud, and louder for what obsync does not own. */
function renderCascade(item: CascadeItem, style: Style): string {
  const what = item.address ?? `${item.kind}${item.name ? ` '${item.name}'` : ''}`;
  const whose = !item.owned ? 'NOT owned by obsync' : item.declared ? 'owned, declared by a manifest' : 'owned';
  return style(
    item.owned && !item.declared ? 'yellow' : 'red',
    `      ! the service also deletes ${what} (id ${item.id}, ${whose}); it is backed up first`,
  );
}

/** One changed field: `+ path: value`, `- path: value`, `~ path: before → after`, nested under the path when it does not fit. */
function changeLines(change: Change, action: Action, style: Style, width: number): string[] {
  const path = change.path === '' ? '(object)' : change.path;
  const field = (marker: string, color: Parameters<Style>[0], value: Change['after']) =>
    marked(marker, valueLines(path, value, FIELD_INDENT, width)).map((l) => style(color, l));
  if (action === 'delete' || change.after === undefined) return field('-', 'red', change.before);
  if (change.before === undefined) return field('+', 'green', change.after);
  const oneLine = `${' '.repeat(FIELD_INDENT)}~ ${path}: ${inlineValue(change.before)} → ${inlineValue(change.after)}`;
  if (oneLine.length <= width) return [style('yellow', oneLine)];
  return [
    style('yellow', `${' '.repeat(FIELD_INDENT)}~ ${path}:`),
    ...valueLines('before', change.before, FIELD_INDENT + 4, width).map((l) => style('red', l)),
    ...valueLines('after', change.after, FIELD_INDENT + 4, width).map((l) => style('green', l)),
  ];
}

/** `marker` before the first line (in the indent's last two columns), the others kept in line under it. */
function marked(marker: string, lines: string[]): string[] {
  return lines.map((line, i) => (i === 0 ? `${line.slice(0, FIELD_INDENT)}${marker} ${line.slice(FIELD_INDENT)}` : `  ${line}`));
}

function pruneNotes(plan: Plan, style: Style): string[] {
  const p = plan.prune;
  const out: string[] = [];
  if (!p.requested && p.candidates.length > 0)
    out.push(
      style(
        'gray',
        `${p.candidates.length} owned object(s) are no longer declared; run with --prune to delete them: ${p.candidates.join(', ')}`,
      ),
      '',
    );
  if (plan.forget.length > 0)
    out.push(
      style(
        'gray',
        `Forgetting ${plan.forget.length} unfinished create(s) no manifest declares any more (they never ` +
          `owned anything): ${plan.forget.join(', ')}`,
      ),
      '',
    );
  return out;
}
