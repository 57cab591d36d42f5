/**
 * The plan as JSON: one document for one or more targets, readable by the tools written for
 * `terraform show -json` (terraform-json, jq gates, policy scanners): Terraform's `format_version`,
 * top-level `resource_changes` and `resource_drift` with each target as a module (`module.<name>`)
 * and each object as a managed resource of it, `change.actions` with whole `before`/`after` forms,
 * their `*_sensitive` masks and `after_unknown`, `planned_values`, `prior_state` and
 * `configuration` (./plan-values.ts), `applyable`, `complete`, `errored` and `timestamp`. obsync's
 * own version of the document is `obsync_format_version`; per target it adds what apply needs. The same document is the
 * saved plan: `obsync apply plan.json` executes each target's `steps`, which carry everything
 * apply needs (payloads, recorded ids, expected forms) and never a secret. One format, so any
 * JSON plan a reviewer or a CI artifact holds can be applied exactly; its JSON Schema is
 * docs/schema/plan.schema.json (generated from the zod schemas of ./plan-schema.ts, which also
 * parse it back: ./plan-json-read.ts). This file renders the document.
 */
import type * as z from 'zod';
import { policySection } from './policy.js';
import { isMove, type Plan, type PlanStep } from '../core/plan.js';
import type { TargetIdentity } from '../core/target.js';
import type { Json } from '../core/wire.js';
import { invertChanges } from './drift.js';
import { hasWrites, isAdoption, isDrift, planErrorCount, planSummary, stepForms, type Masked, type Sensitivity } from './forms.js';
import { documentForms, planValues } from './plan-values.js';
import { knownAfterUnknown, moduleAddress, providerName, resourceAddress, TERRAFORM_PLAN_FORMAT_VERSION } from './terraform-address.js';
import { assignOwn } from '../core/json.js';
import type { ResourceChange, StepChange } from './plan-schema-changes.js';
import { OUTPUT_FORMAT_VERSION, type PlanDocument, type TargetPlanDocument, type targetIdentity } from './plan-schema.js';

/** Where a plan came from. */
export interface PlanOrigin {
  generatedAt: Date;
  obsyncVersion: string;
  manifests: string[];
  config?: string;
  /** With several targets, each target's own manifest paths (apply of the saved plan reads each target's from them). */
  manifestsByTarget?: Readonly<Record<string, string[]>>;
  /** Only some objects were planned (--only, --selector): the plan is not complete. */
  narrowed?: boolean;
  /** The project: paths shown to a reader (not those apply reads again) are relative to it. */
  root?: string;
}

/** A target with no plan: its API down, its settings unresolved, its lease held. */
export interface FailedTarget {
  target: string;
  error: string;
}

/**
 * The document of the targets planned and of those that could not be (`failed`): the top-level
 * verdicts cover both, so a gate on `errored` or `applyable` alone never passes an incomplete plan.
 */
export function planDocument(plans: readonly Plan[], origin: PlanOrigin, failed: readonly FailedTarget[] = []): PlanDocument {
  const own = origin.manifestsByTarget ?? {};
  const targets = plans.map((plan) => {
    const manifests = own[plan.target];
    return { ...targetDocument(plan), ...(manifests ? { manifests } : {}) };
  });
  return {
    format_version: TERRAFORM_PLAN_FORMAT_VERSION,
    obsync_format_version: OUTPUT_FORMAT_VERSION,
    obsync_version: origin.obsyncVersion,
    generated_at: origin.generatedAt.toISOString(),
    manifests: [...new Set([...origin.manifests, ...Object.values(own).flat()])],
    ...(origin.config ? { config: origin.config } : {}),
    applyable: failed.length === 0 && targets.some((t) => t.applyable),
    errored: failed.length > 0 || targets.some((t) => t.errored),
    complete: failed.length === 0 && origin.narrowed !== true && plans.every((plan) => planErrorCount(plan) === 0),
    timestamp: origin.generatedAt.toISOString(),
    summary: planSummary(plans),
    resource_changes: plans.flatMap((plan) => plan.steps.map((step) => placed(plan, step, resourceChangeOf(step)))),
    resource_drift: plans.flatMap((plan) => plan.steps.filter(isDrift).map((step) => placed(plan, step, driftOf(step)))),
    ...planValues(plans, {
      obsyncVersion: origin.obsyncVersion,
      manifestsByTarget: own,
      ...(origin.root === undefined ? {} : { root: origin.root }),
    }),
    targets,
    ...(failed.length > 0 ? { failed: failed.map((f) => ({ target: f.target, error: f.error })) } : {}),
  };
}

export function renderPlanJson(doc: PlanDocument): string {
  return JSON.stringify(doc, null, 2) + '\n';
}

function targetDocument(plan: Plan): TargetPlanDocument {
  const ownershipChanges = plan.steps.some((s) => isAdoption(s) || isMove(s)) || plan.forget.length > 0;
  return {
    target: plan.target,
    variant: plan.variant,
    module_address: moduleAddress(plan.target),
    ...(plan.identity ? { target_identity: identityDocument(plan.identity) } : {}),
    applyable: (hasWrites(plan) || ownershipChanges) && plan.prune.refused.length === 0,
    errored: plan.errored || planErrorCount(plan) > 0,
    summary: planSummary([plan]),
    prune: plan.prune,
    forget: plan.forget,
    diagnostics: plan.diagnostics,
    steps: plan.steps.map(withoutForm),
    ...(plan.backtest ? { backtest: plan.backtest } : {}),
    ...(plan.policy ? { policy: policySection(plan.policy) } : {}),
  };
}

/** An unchanged object's form is shown in planned_values and prior_state; apply does not need it in its step. */
function withoutForm(step: PlanStep): PlanStep {
  if (step.form === undefined) return step;
  const { form: _shown, ...rest } = step;
  return rest;
}

function identityDocument(id: TargetIdentity): z.output<typeof targetIdentity> {
  return {
    name: id.name,
    variant: id.variant,
    base_url: id.baseUrl,
    ...(id.organizationId !== undefined ? { organization_id: id.organizationId } : {}),
    ...(id.serviceId !== undefined ? { service_id: id.serviceId } : {}),
  };
}

const ACTIONS = { create: ['create'], update: ['update'], delete: ['delete'], noop: ['no-op'] } as const;

/** A step's change placed in its target, as Terraform addresses a resource in a module. */
function placed(plan: Plan, step: PlanStep, change: StepChange): ResourceChange {
  return {
    address: resourceAddress(plan.target, step.address),
    module_address: moduleAddress(plan.target),
    mode: 'managed',
    type: step.kind,
    name: step.name,
    provider_name: providerName(plan.variant),
    target: plan.target,
    ...change,
    ...(step.movedFrom !== undefined ? { previous_address: resourceAddress(plan.target, step.movedFrom) } : {}),
  };
}

function resourceChangeOf(step: PlanStep): StepChange {
  const out: StepChange = {
    obsync_address: step.address,
    kind: step.kind,
    ...(step.id !== undefined ? { id: step.id } : {}),
    reason: step.reason,
    ...(step.action === 'delete' && step.reason === 'not-declared' ? { action_reason: 'delete_because_no_resource_config' as const } : {}),
    change: { actions: [...ACTIONS[step.action]] },
    ...(step.movedParts !== undefined && step.movedParts.length > 0 ? { moved_parts: step.movedParts } : {}),
    changes: step.changes,
    depends_on: step.dependsOn,
  };
  const known = documentForms(step);
  if (known) assignOwn(out.change, forms(known.before, known.after));
  if (isAdoption(step) && step.id !== undefined) out.change.importing = { id: step.id };
  if (step.cascade) out.cascade = step.cascade.map(({ object: _object, ...item }) => item);
  if (step.notes) out.notes = step.notes;
  if (step.nonConvergent) out.non_convergent = step.nonConvergent;
  if (step.ignored) out.ignored = step.ignored;
  if (step.backtest) out.backtest = step.backtest;
  if (step.impact) out.impact = step.impact;
  return out;
}

/** The drift itself: from the form obsync applied (the manifest's, unchanged since) to the form now on the service. */
function driftOf(step: PlanStep): StepChange {
  const { before, after } = stepForms(step);
  return {
    obsync_address: step.address,
    kind: step.kind,
    ...(step.id !== undefined ? { id: step.id } : {}),
    reason: step.reason,
    change: { actions: ['update'], ...forms(after, before) },
    changes: invertChanges(step.changes),
    depends_on: step.dependsOn,
  };
}

function forms(
  before: Masked | null,
  after: Masked | null,
): { before: Json; after: Json; after_unknown: Json; before_sensitive: Sensitivity; after_sensitive: Sensitivity } {
  return {
    before: before?.value ?? null,
    after: after?.value ?? null,
    after_unknown: knownAfterUnknown(after?.value ?? null),
    before_sensitive: before?.sensitive ?? false,
    after_sensitive: after?.sensitive ?? false,
  };
}
