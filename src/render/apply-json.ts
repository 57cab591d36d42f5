/**
 * The apply report as JSON: the same envelope and summary keys as the plan document
 * (src/render/plan-json.ts), counting what was done; each step's outcome per target. Its JSON
 * Schema is docs/schema/apply-report.schema.json.
 */
import * as z from 'zod';
import type { StepOutcomeKind, StepResult } from '../applier/context.js';
import type { RunReport } from '../engine/reconcile.js';
import { applySummary, isAdoption } from './forms.js';
import { OUTPUT_FORMAT_VERSION } from './plan-schema.js';
import { summarySchema } from './plan-schema-parts.js';
import { setOwn } from '../core/json.js';

const change = z.object({ path: z.string(), before: z.json().optional(), after: z.json().optional(), sensitive: z.boolean().optional() });

const outcomes = z
  .object({
    applied: z.number().int(),
    unchanged: z.number().int(),
    failed: z.number().int(),
    skipped: z.number().int(),
    refused: z.number().int(),
  })
  .describe('Steps per outcome: failed, skipped and refused make the exit code 1');

const result = z.object({
  address: z.string(),
  action: z.enum(['create', 'update', 'delete', 'noop']),
  outcome: z.enum(['applied', 'unchanged', 'failed', 'skipped', 'refused']),
  adopted: z.boolean().optional().describe('An existing object obsync did not create is now owned by it'),
  moved_from: z.string().optional().describe('A rename recorded by this apply: the object was owned under this address before'),
  moved_parts: z
    .array(z.object({ from: z.string(), to: z.string() }))
    .optional()
    .describe('Tile keys renamed by this apply (previousKeys): each tile kept its id'),
  id: z.string().optional(),
  message: z.string().optional().describe('Why it failed, was skipped or refused'),
  non_convergent: z.array(change).optional().describe('Fields the service did not keep (re-read after the write)'),
  resolved_ambiguous: z
    .boolean()
    .optional()
    .describe('A create whose answer was lost, resolved by adopting the object found by natural key'),
  backup: z.string().optional(),
  cascade_backups: z.array(z.string()).optional(),
  duration_ms: z.number(),
  rate_limit_wait_ms: z
    .number()
    .optional()
    .describe("Of duration_ms, the time the step's requests waited for the rate limit (obsync's pacing, a 429's pause); absent when none"),
  not_started: z
    .boolean()
    .optional()
    .describe('Skipped because the run stopped (Ctrl-C, shutdown, the writer lease lost) before it started'),
});

const targetReport = z.object({
  target: z.string(),
  variant: z.string(),
  errored: z.boolean(),
  interrupted: z
    .boolean()
    .optional()
    .describe('A Ctrl-C (or a shutdown) stopped the apply: the steps not started are skipped (not_started)'),
  summary: summarySchema,
  outcomes,
  prune_skipped: z.string().optional().describe('Why the deletes were skipped (something failed earlier in the run)'),
  results: z.array(result),
});

export const applyReportSchema = z
  .object({
    format_version: z.string().regex(/^\d+\.\d+$/),
    obsync_version: z.string(),
    generated_at: z.string(),
    errored: z.boolean().describe('Some step failed, was skipped or refused, or some object could not be planned (the exit code is 1)'),
    summary: summarySchema,
    outcomes,
    targets: z.array(targetReport).min(1),
  })
  .describe('What an obsync apply did (obsync apply --output json)');

export type ApplyReportDocument = z.output<typeof applyReportSchema>;
type TargetReport = z.output<typeof targetReport>;
type Outcomes = z.output<typeof outcomes>;

export interface ReportOrigin {
  generatedAt: Date;
  obsyncVersion: string;
  /** A Ctrl-C stopped the apply. */
  interrupted?: boolean;
}

export function applyReportDocument(reports: readonly RunReport[], origin: ReportOrigin): ApplyReportDocument {
  const targets = reports.flatMap((r) => (r.apply ? [targetReportOf(r, origin.interrupted === true)] : []));
  return {
    format_version: OUTPUT_FORMAT_VERSION,
    obsync_version: origin.obsyncVersion,
    generated_at: origin.generatedAt.toISOString(),
    errored: targets.some((t) => t.errored),
    summary: sum(
      { create: 0, update: 0, delete: 0, noop: 0, adopt: 0, move: 0 },
      targets.map((t) => t.summary),
    ),
    outcomes: sum(
      { applied: 0, unchanged: 0, failed: 0, skipped: 0, refused: 0 },
      targets.map((t) => t.outcomes),
    ),
    targets,
  };
}

export function renderApplyJson(doc: ApplyReportDocument): string {
  return JSON.stringify(doc, null, 2) + '\n';
}

function targetReportOf(report: RunReport, interrupted: boolean): TargetReport {
  const apply = report.apply;
  const adopting = new Set(report.plan.steps.filter(isAdoption).map((s) => s.address));
  const results = (apply?.results ?? []).map((r) => resultOf(r, adopting.has(r.address)));
  const summary = applySummary(apply?.results ?? [], report.plan);
  const outcomes: Outcomes = { applied: 0, unchanged: 0, failed: 0, skipped: 0, refused: 0, ...apply?.summary };
  return {
    target: report.target,
    variant: report.variant,
    errored: report.plan.errored || outcomes.failed + outcomes.skipped + outcomes.refused > 0,
    ...(interrupted || apply?.interrupted ? { interrupted: true } : {}),
    summary,
    outcomes,
    ...(apply?.pruneSkipped ? { prune_skipped: apply.pruneSkipped } : {}),
    results,
  };
}

const DONE: ReadonlySet<StepOutcomeKind> = new Set(['applied', 'unchanged']);

function resultOf(r: StepResult, adopting: boolean): TargetReport['results'][number] {
  return {
    address: r.address,
    action: r.action as TargetReport['results'][number]['action'],
    outcome: r.outcome,
    ...(adopting && DONE.has(r.outcome) ? { adopted: true } : {}),
    ...(r.movedFrom !== undefined ? { moved_from: r.movedFrom } : {}),
    ...(r.movedParts !== undefined && r.movedParts.length > 0 && DONE.has(r.outcome) ? { moved_parts: r.movedParts } : {}),
    ...(r.id !== undefined ? { id: r.id } : {}),
    ...(r.message !== undefined ? { message: r.message } : {}),
    ...(r.nonConvergent && r.nonConvergent.length > 0 ? { non_convergent: r.nonConvergent } : {}),
    ...(r.resolvedAmbiguous ? { resolved_ambiguous: true } : {}),
    ...(r.backup !== undefined ? { backup: r.backup } : {}),
    ...(r.cascadeBackups && r.cascadeBackups.length > 0 ? { cascade_backups: r.cascadeBackups } : {}),
    duration_ms: r.durationMs,
    ...(r.rateLimitWaitMs !== undefined ? { rate_limit_wait_ms: r.rateLimitWaitMs } : {}),
    ...(r.notStarted ? { not_started: true } : {}),
  };
}

function sum<T extends Record<string, number>>(zero: T, items: readonly T[]): T {
  const out: Record<string, number> = { ...zero };
  for (const item of items) for (const [k, v] of Object.entries(item)) setOwn(out, k, (out[k] ?? 0) + v);
  return out as T;
}
