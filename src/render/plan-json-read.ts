/** A JSON plan read back as a saved plan: its version checked, parsed with the plan's schema, each target's plan for the applier. */
import { ObsyncError } from '../core/errors.js';
import { PLAN_FORMAT_VERSION, summarize, type Plan } from '../core/plan.js';
import type { TargetIdentity } from '../core/target.js';
import type * as z from 'zod';
import {
  OUTPUT_FORMAT_VERSION,
  planDocumentSchema,
  type PlanDocument,
  type TargetPlanDocument,
  type targetIdentity,
} from './plan-schema.js';

/** A saved plan read back: the document, each target's plan as the applier takes it. */
export interface SavedPlan {
  document: PlanDocument;
  plans: Plan[];
}

export function parsePlanDocument(text: string, file: string): SavedPlan {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new ObsyncError('PLAN_FILE', `${file} is not a saved plan: invalid JSON`, { cause: err });
  }
  checkVersion(raw, file);
  const parsed = planDocumentSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ObsyncError(
      'PLAN_FILE',
      `${file} is not a saved plan of this obsync version: ${issue ? `${issue.path.join('.')}: ${issue.message}` : 'invalid'}`,
      {
        hint: 'create it again with `obsync plan --out FILE`',
      },
    );
  }
  const document = parsed.data;
  return { document, plans: document.targets.map(planOf) };
}

/**
 * Same major version, and no newer minor than this obsync writes (a newer one may carry steps it
 * does not know). The version is `obsync_format_version`; before 4.0 it was `format_version`.
 */
function checkVersion(raw: unknown, file: string): void {
  const record = typeof raw === 'object' && raw !== null ? (raw as Record<string, unknown>) : {};
  const version = record.obsync_format_version ?? olderVersion(record);
  const [major, minor] = OUTPUT_FORMAT_VERSION.split('.').map(Number);
  const match = typeof version === 'string' ? /^(\d+)\.(\d+)$/.exec(version) : null;
  if (match && Number(match[1]) === major && Number(match[2]) <= (minor ?? 0)) return;
  const made =
    version === undefined
      ? 'no obsync plan format version (is it a plan of obsync?)'
      : `plan format version ${typeof version === 'string' || typeof version === 'number' ? String(version) : JSON.stringify(version)}`;
  throw new ObsyncError('PLAN_VERSION', `${file} has ${made}; this obsync applies version ${OUTPUT_FORMAT_VERSION} plans only`, {
    hint: 'make the plan again with this obsync: `obsync plan --out FILE`',
  });
}

/**
 * The version a plan of obsync before 4.0 carried in `format_version` (2, 3.0 … 3.3: obsync's own
 * then). Terraform's plan formats are below 2.0 (0.1 … 1.2): such a document is no obsync plan.
 */
function olderVersion(record: Record<string, unknown>): unknown {
  const version = record.format_version ?? record.formatVersion;
  return typeof version === 'string' && /^[01]\./.test(version) ? undefined : version;
}

function identityOf(doc: z.output<typeof targetIdentity>): TargetIdentity {
  return {
    name: doc.name,
    variant: doc.variant,
    baseUrl: doc.base_url,
    ...(doc.organization_id !== undefined ? { organizationId: doc.organization_id } : {}),
    ...(doc.service_id !== undefined ? { serviceId: doc.service_id } : {}),
  };
}

function planOf(t: TargetPlanDocument): Plan {
  return {
    formatVersion: PLAN_FORMAT_VERSION,
    target: t.target,
    variant: t.variant,
    ...(t.target_identity ? { identity: identityOf(t.target_identity) } : {}),
    steps: t.steps,
    summary: summarize(t.steps),
    prune: t.prune,
    forget: t.forget,
    diagnostics: t.diagnostics,
    errored: t.diagnostics.some((d) => d.severity === 'error'),
    ...(t.backtest ? { backtest: t.backtest } : {}),
    ...(t.policy ? { policy: t.policy.findings } : {}),
  };
}

/** The plan of one target of a saved plan: the one named, or the only one. */
export function savedPlanFor(saved: SavedPlan, target: string | undefined, file: string): Plan {
  const names = saved.plans.map((p) => p.target);
  const found =
    target === undefined ? (saved.plans.length === 1 ? saved.plans[0] : undefined) : saved.plans.find((p) => p.target === target);
  if (found) return found;
  throw new ObsyncError(
    'PLAN_TARGET',
    target === undefined
      ? `${file} holds the plans of several targets (${names.join(', ')}); name the one to apply with --target`
      : `${file} has no plan for target '${target}' (it has: ${names.join(', ')})`,
    { hint: 'apply each target of the plan with its own --target, or make a plan for that target' },
  );
}
