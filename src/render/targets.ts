/**
 * Several targets' runs in one output (one repository, several environments): text and
 * markdown are one section per target in the order of obsync.yaml, JSON is one document with
 * `targets: [...]`. With one target, exactly that target's output. A target whose run failed
 * (its API down, its lease held) has a section saying so; the others are shown in full.
 */
import type { ApplyReport } from '../applier/context.js';
import { summarize, type Plan } from '../core/plan.js';
import type { RunReport } from '../engine/reconcile.js';
import { PLAN_FORMAT_VERSION } from '../core/plan.js';
import { planDocument, renderRunApply, renderRunPlan, type PlanFormat, type PlanOrigin } from './run.js';
import { ObsyncError } from '../core/errors.js';
import { parsePlanDocument, type PlanDocument } from './plan-json.js';
import { summaryLine } from './plan-text.js';
import { makeStyle } from './style.js';

/** One target's run: its report, or why it has none. */
export type TargetOutcome = { target: string; report: Pick<RunReport, 'plan'>; origin: PlanOrigin } | { target: string; error: string };

/** Several targets' saved plans (`plan --out` with several targets; `apply FILE` takes it back). */
export interface MultiPlanDocument {
  formatVersion: typeof PLAN_FORMAT_VERSION;
  generatedAt: string;
  obsyncVersion: string;
  targets: PlanDocument[];
  /** Targets that could not be planned. */
  failed?: { target: string; error: string }[];
}

export function multiPlanDocument(outcomes: readonly TargetOutcome[], origin: Pick<PlanOrigin, 'generatedAt' | 'obsyncVersion'>): MultiPlanDocument {
  const failed = outcomes.flatMap((o) => ('error' in o ? [{ target: o.target, error: o.error }] : []));
  return {
    formatVersion: PLAN_FORMAT_VERSION,
    generatedAt: origin.generatedAt.toISOString(),
    obsyncVersion: origin.obsyncVersion,
    targets: outcomes.flatMap((o) => ('report' in o ? [planDocument(o.report, o.origin)] : [])),
    ...(failed.length > 0 ? { failed } : {}),
  };
}

/** A saved plan file of one target (a PlanDocument) or of several (a MultiPlanDocument). */
export function parseSavedPlans(text: string, file: string): PlanDocument[] {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return [parsePlanDocument(text, file)];
  }
  const targets = typeof raw === 'object' && raw !== null ? (raw as { targets?: unknown }).targets : undefined;
  if (!Array.isArray(targets)) return [parsePlanDocument(text, file)];
  const version = (raw as { formatVersion?: unknown }).formatVersion;
  // The version check (and its message) of a one-target plan applies to the whole file.
  if (version !== PLAN_FORMAT_VERSION) parsePlanDocument(JSON.stringify({ formatVersion: version }), file);
  const failed = (raw as { failed?: unknown }).failed;
  if (Array.isArray(failed) && failed.length > 0) {
    throw new ObsyncError('PLAN_FILE', `${file} is incomplete: some targets could not be planned when it was made`, { hint: 'plan again when every target is reachable, or plan the others with --target' });
  }
  return targets.map((t: unknown, i) => parsePlanDocument(JSON.stringify(t), `${file} (targets[${i}])`));
}

/** The plans of one or more targets (`plan`, and `apply` before it asks). */
export function renderTargetsPlan(outcomes: readonly TargetOutcome[], format: PlanFormat, opts: { color: boolean }): string {
  const [only] = outcomes;
  if (outcomes.length === 1 && only && 'report' in only) return renderRunPlan(only.report, format, { color: opts.color, origin: only.origin });
  if (format === 'json') {
    const first = outcomes.find((o) => 'report' in o);
    const origin = first && 'report' in first ? first.origin : { generatedAt: new Date(), obsyncVersion: '' };
    return `${JSON.stringify(multiPlanDocument(outcomes, origin), null, 2)}\n`;
  }
  const sections = outcomes.map((o) => ('report' in o ? renderRunPlan(o.report, format, { color: opts.color, origin: o.origin }) : failedSection(o.target, o.error, format)));
  return `${sections.join('\n')}\n${overview(outcomes, format)}`;
}

/** The end of an apply on one or more targets. */
export function renderTargetsApply(reports: readonly ApplyReport[], format: 'text' | 'json', opts: { color: boolean }): string {
  const [only] = reports;
  if (reports.length === 1 && only) return renderRunApply(only, format, opts);
  if (format === 'json') return `${JSON.stringify({ targets: reports }, null, 2)}\n`;
  const style = makeStyle(opts.color);
  return reports.map((r) => `${style('bold', `Target '${r.target}':`)}${renderRunApply(r, 'text', opts)}`).join('');
}

function failedSection(target: string, error: string, format: PlanFormat): string {
  if (format === 'markdown') return `### obsync plan for \`${target}\`\n\n**Not planned:** ${error.replace(/[<>]/g, (c) => (c === '<' ? '&lt;' : '&gt;'))}\n`;
  return `Target '${target}' could not be planned: ${error}\n`;
}

/** One line per target at the end: where the changes are at a glance. */
function overview(outcomes: readonly TargetOutcome[], format: PlanFormat): string {
  const lines = outcomes.map((o) => ('report' in o ? `${o.target}: ${targetSummary(o.report.plan)}` : `${o.target}: not planned`));
  if (format === 'markdown') return `**Targets:** ${lines.map((l) => l.replace(/^([^:]+):/, '`$1`:')).join(' · ')}\n`;
  return `Targets: ${lines.join('; ')}\n`;
}

function targetSummary(plan: Plan): string {
  const s = summarize(plan.steps);
  return s.create + s.update + s.delete === 0 && !plan.errored ? 'no changes' : summaryLine(plan).replace(/^Plan: /, '').replace(/\.$/, '');
}
