/**
 * The plan as JSON: one document for one or more targets, readable by the tools written for
 * `terraform show -json` (terraform-json, jq gates, policy scanners): Terraform's `format_version`,
 * top-level `resource_changes` and `resource_drift` with each target as a module (`module.<name>`)
 * and each object as a managed resource of it, `change.actions` with whole `before`/`after` forms,
 * their `*_sensitive` masks and `after_unknown`, `planned_values`, `prior_state` and
 * `configuration` (./plan-values.ts), `applyable`, `complete`, `errored` and `timestamp`. obsync's own version of the document is
 * `obsync_format_version`; per target it adds what apply needs. The same document is the
 * saved plan: `obsync apply plan.json` executes each target's `steps`, which carry everything
 * apply needs (payloads, recorded ids, expected forms) and never a secret. One format, so any
 * JSON plan a reviewer or a CI artifact holds can be applied exactly; its JSON Schema is
 * docs/schema/plan.schema.json (generated from the zod schemas below, which also parse it back).
 */
import { policySection, policySectionSchema } from './policy.js';
import * as z from 'zod';
import { ObsyncError } from '../core/errors.js';
import { isMove, PLAN_FORMAT_VERSION, summarize, type Address, type AnyKind, type Plan, type PlanStep } from '../core/plan.js';
import type { TargetIdentity } from '../core/target.js';
import type { Json } from '../core/wire.js';
import { KINDS, REGISTRY } from '../kinds/registry.js';
import { invertChanges } from './drift.js';
import { hasWrites, isAdoption, isDrift, planErrorCount, planSummary, stepForms, type Masked, type Sensitivity } from './forms.js';
import { documentForms, planValues, planValuesShape } from './plan-values.js';
import {
  knownAfterUnknown,
  moduleAddress,
  providerName,
  resourceAddress,
  resourceAddressPattern,
  TERRAFORM_PLAN_FORMAT_VERSION,
} from './terraform-address.js';
import { assignOwn } from '../core/json.js';

/**
 * obsync's version of the JSON documents it prints (plan: `obsync_format_version`; apply report:
 * `format_version`). A minor version only adds fields. 4.0: the plan's `format_version` is
 * Terraform's, `resource_changes`/`resource_drift` moved to the top level with module addresses
 * (kept from 3.x: 3.2's backtest and impact per change and each target's backtest summary, 3.3's
 * target_identity per target). 5.0: addresses in Terraform's grammar (`module.<target>`, was
 * `target.<target>`); planned_values, prior_state, configuration, complete and timestamp added;
 * an unchanged object's change carries its form as before and after (plans made for JSON). 5.1: a
 * backtest's notifications, resolutions, flapping, topGroups, suggestion and data.
 */
export const OUTPUT_FORMAT_VERSION = '5.1';

const json = z.json();
const object = z.record(z.string(), json);
const kind = z.enum(KINDS);
const anyKind = z.enum(REGISTRY.map((d) => d.kind) as [AnyKind, ...AnyKind[]]);
const address = z
  .string()
  .refine((a) => KINDS.some((k) => a.startsWith(`${k}/`) && a.length > k.length + 1), { error: 'not an address like Dashboard/checkout' })
  .describe('Kind/metadata.name, e.g. Dashboard/checkout') as unknown as z.ZodType<Address>;
const reason = z.enum(['missing', 'drifted', 'spec-changed', 'not-declared', 'unchanged']);
const absoluteAddress = z
  .string()
  .regex(resourceAddressPattern(KINDS))
  .describe('As Terraform: module.<target>.<Kind>.<metadata.name>, e.g. module.prod.Dashboard.checkout');
const change = z.object({
  path: z.string().describe("Path in the manifest's terms, e.g. tiles[p99].config.select[0].aggFn ('' for the whole object)"),
  before: json.optional(),
  after: json.optional(),
  sensitive: z.boolean().optional().describe('The value is secret: before/after are "(sensitive)"'),
});
const ignoredChange = change
  .extend({
    rule: z.string().describe('The ignore rule that left it out, e.g. tiles[*].x'),
    from: z.string().describe('Where the rule is declared: defaults.ignore.<Kind>, targets[<name>].ignore.<Kind> or metadata.ignore'),
  })
  .describe(
    "A difference an ignore rule left out (the UI owns the field): before is the service's value, after the manifest's; never applied",
  );
const cascadeItem = z.object({
  kind: anyKind,
  id: z.string(),
  name: z.string().nullable(),
  address: address.optional(),
  owned: z.boolean(),
  declared: z.boolean(),
  object,
});

const partMove = z
  .object({ from: z.string().describe('The key it had'), to: z.string().describe('Its key now') })
  .describe('A part (dashboard tile) whose key was renamed (previousKeys): it keeps its id, and the alerts on it');

const backtestCounts = {
  evaluated: z.number().int().optional().describe("Alert windows evaluated (the history ÷ the alert's interval)"),
  firing: z.number().int().optional().describe('Windows in which the checker would have put the alert in ALERT (any group, with groupBy)'),
  episodes: z.number().int().optional().describe('Runs of consecutive firing windows: what would have paged'),
  firstFiringAt: z.string().nullable().optional().describe('Start of the first firing window (ISO 8601), null when none fired'),
  lastFiringAt: z.string().nullable().optional().describe('Start of the last firing window (ISO 8601), null when none fired'),
  groups: z.number().int().optional().describe('Distinct groups that fired (groupBy alerts)'),
  notifications: z
    .number()
    .int()
    .optional()
    .describe(
      'ALERT notifications the checker would have sent: one per group per firing window (hyperdx b52a6fa notifies again on every evaluation while a group stays in ALERT)',
    ),
  resolutions: z.number().int().optional().describe('Resolution notifications: a group that had notified going back to OK'),
  flapping: z.number().int().optional().describe('Episodes shorter than 3 windows (paged, then cleared at once)'),
  topGroups: z
    .array(
      z.object({
        group: z.string().describe("The group as the checker names it (column:value, …); '' for the alert's no-data group"),
        notifications: z.number().int(),
        resolutions: z.number().int(),
      }),
    )
    .optional()
    .describe('groupBy alerts: the groups that notified most, most first (at most 5)'),
  suggestion: z
    .object({
      threshold: z.number().describe('The nearest threshold that would have stayed within the episode budget'),
      episodes: z.number().int().describe('Episodes with it over the same history'),
      firing: z.number().int(),
      notifications: z.number().int(),
      budget: z.object({ episodes: z.number().int(), per: z.string() }).describe('defaults.backtest.episodeBudget'),
      allowed: z.number().describe('Episodes the budget allows over this history (episodes × history ÷ per)'),
    })
    .optional()
    .describe('More episodes than defaults.backtest.episodeBudget allows: a suggestion computed from the same series, never applied'),
  data: z
    .object({
      matched: z.number().int().describe('Buckets in which the query matched something (0: nothing over the history)'),
      groups: z.number().int().optional().describe('Distinct groups in its rows (groupBy alerts)'),
      noDataSince: z
        .string()
        .nullable()
        .optional()
        .describe('Its source has had no data since then; null: none over the history; absent: fresh or not asked (budget)'),
    })
    .optional()
    .describe('What the data says of the query and source (policy rules empty-query, stale-source, group-cardinality)'),
};
const backtestStatus = z
  .enum(['ok', 'unavailable', 'skipped'])
  .describe('ok: evaluated; unavailable: the service cannot answer it (see reason); skipped: not asked (budget or cap)');
const backtestSide = z.object({
  status: backtestStatus,
  reason: z.string().optional().describe('Why it is not ok; with ok, a note (a history shortened to fit the cap)'),
  ...backtestCounts,
});
const backtest = z
  .object({
    status: backtestStatus,
    reason: z.string().optional().describe('Why it is not ok; with ok, a note (a history shortened to fit the cap)'),
    window: z.string().describe('The history asked for, e.g. 7d'),
    granularity: z.string().optional().describe("The alert's interval: one evaluation window, one series bucket"),
    requests: z.number().int().optional().describe('Series requests this alert made (queries shared with another alert are counted there)'),
    ...backtestCounts,
    before: backtestSide.optional().describe('An update (or an alert on a changed tile or search): the same counts for it as it is now'),
  })
  .describe('How often the alert would have fired over the history, as the service’s alert checker evaluates it');
const impactItem = z.object({
  kind: anyKind,
  id: z.string().optional().describe('Absent for an object this plan creates'),
  name: z.string().nullable(),
  address: address.optional(),
  owned: z.boolean(),
  declared: z.boolean(),
  backtest: backtest.optional(),
});
const impact = z
  .array(
    z.object({
      kind: z
        .enum(['tile-alerts', 'search-alerts', 'readers', 'webhook-users'])
        .describe(
          'tile-alerts: alerts on a tile whose query changes; search-alerts: alerts on a saved search whose query changes; readers: what reads a changed or deleted source or connection; webhook-users: alerts notifying a webhook whose destination changes or that goes',
        ),
      what: z.string(),
      objects: z.array(impactItem),
    }),
  )
  .describe('Other objects this change touches');
const backtestRun = z
  .object({
    window: z.string(),
    budget: z.number().int().describe('Series requests the plan may make for backtests'),
    perAlert: z.number().int().describe('Series requests one alert may make'),
    needed: z.number().int().describe('Series requests the backtests needed (identical queries once)'),
    requests: z.number().int().describe('Series requests made'),
    deduplicated: z.number().int().describe('Queries several alerts asked, made once'),
    alerts: z.number().int(),
    skipped: z.number().int().describe('Alerts not evaluated: budget spent, or more than the cap'),
    unavailable: z.string().optional().describe('Why no alert can be backtested on this target (hosted)'),
  })
  .describe("The plan's backtests as a whole (present when backtests are on)");

/** A step as the applier executes it (src/core/plan.ts). */
const step = z.object({
  address,
  kind,
  name: z.string(),
  action: z.enum(['create', 'update', 'delete', 'noop']),
  reason,
  id: z.string().optional(),
  adopt: z.boolean().optional(),
  movedFrom: address.optional(),
  movedParts: z.array(partMove).optional(),
  changes: z.array(change),
  payload: object.optional(),
  calls: z.array(z.object({ call: z.string(), body: object })).optional(),
  settle: z.boolean().optional(),
  liveVersion: z.string().optional(),
  dependsOn: z.array(address),
  nonConvergent: z.array(z.string()).optional(),
  ignored: z.array(ignoredChange).optional(),
  notes: z.array(z.string()).optional(),
  record: z
    .object({
      naturalKey: z.string().optional(),
      labels: z.record(z.string(), z.string()).optional(),
      specHash: z.string().optional(),
      secrets: z.record(z.string(), z.string()).optional(),
      source: z.string().optional(),
    })
    .optional(),
  parts: z.array(z.object({ key: z.string(), id: z.string().optional() })).optional(),
  expected: z.object({ value: json, names: z.array(z.object({ kind: anyKind, id: z.string(), token: json })) }).optional(),
  current: json.optional(),
  cascade: z.array(cascadeItem).optional(),
  backup: object.optional(),
  backtest: backtest.optional(),
  impact: impact.optional(),
});

const diagnostic = z.object({
  severity: z.enum(['error', 'warning']),
  code: z.string(),
  message: z.string(),
  file: z.string().optional(),
  line: z.number().optional(),
  col: z.number().optional(),
  path: z.string().optional(),
  address: z.string().optional(),
});

const sensitivity: z.ZodType<Sensitivity> = z.lazy(() => z.union([z.boolean(), z.array(sensitivity), z.record(z.string(), sensitivity)]));

export const summarySchema = z
  .object({
    create: z.number().int(),
    update: z.number().int(),
    delete: z.number().int(),
    noop: z.number().int().describe('unchanged objects: not changed, adopted or moved'),
    adopt: z.number().int().describe('existing objects obsync takes over (not created by it), whatever else changes in them'),
    move: z
      .number()
      .int()
      .optional()
      .describe('renamed objects (previousNames) or tile keys (previousKeys) with no other change: apply records their new address'),
  })
  .describe(
    'Objects per action, each counted once (the counts add up to the objects): adoptions under adopt, renames with no other change under move, the rest by action; the apply report has the same keys, counting what was done',
  );

const resourceChange = z
  .object({
    address: absoluteAddress,
    module_address: z.string().describe('The target as a Terraform module: module.<target>'),
    mode: z.literal('managed'),
    type: kind.describe("The kind, as Terraform's resource type"),
    name: z.string().describe('metadata.name'),
    provider_name: z.string().describe('obsync/<variant> of the target (obsync/hosted, obsync/self-hosted)'),
    target: z.string(),
    obsync_address: address.describe('Kind/metadata.name within the target: what --only, obsync import and obsync state take'),
    kind,
    id: z.string().optional().describe('Server id of the object (absent for a create)'),
    reason: reason.describe(
      'missing: not on the service; drifted: changed on the service, not in the manifest; spec-changed: the manifest changed; not-declared: owned but no longer declared (prune); unchanged',
    ),
    action_reason: z
      .literal('delete_because_no_resource_config')
      .optional()
      .describe('As Terraform: a delete because no manifest declares the object any more (prune)'),
    change: z.object({
      actions: z
        .array(z.enum(['create', 'update', 'delete', 'no-op']))
        .min(1)
        .max(2)
        .describe('As Terraform: ["create"], ["update"], ["delete"], ["no-op"]'),
      before: json
        .optional()
        .describe('The whole object before (null for a create); for a no-op the same as after, absent in a plan made for text output'),
      after: json.optional().describe('The whole object after (null for a delete); see before for a no-op'),
      after_unknown: json
        .optional()
        .describe(
          "As Terraform: where `after` holds values known only after apply (none: obsync's forms are known at plan time); absent for no-op",
        ),
      before_sensitive: sensitivity.optional().describe('true where before holds a masked secret, false where nothing is'),
      after_sensitive: sensitivity.optional(),
      importing: z
        .object({ id: z.string() })
        .optional()
        .describe('ADOPTION: an existing object obsync did not create is taken over (Terraform import); its changes are the ones listed'),
    }),
    previous_address: absoluteAddress
      .optional()
      .describe("A rename (metadata.previousNames): the address the object is owned under until this apply, as Terraform's moved"),
    moved_parts: z.array(partMove).optional().describe('Tiles whose key was renamed (previousKeys): from → to'),
    changes: z.array(change).describe('The changed fields, before and after (sensitive values masked)'),
    depends_on: z.array(address).describe('obsync addresses (Kind/name) in the same target'),
    cascade: z
      .array(
        z.object({
          kind: anyKind,
          id: z.string(),
          name: z.string().nullable(),
          address: address.optional(),
          owned: z.boolean(),
          declared: z.boolean(),
        }),
      )
      .optional()
      .describe('What the service deletes along with this change'),
    notes: z.array(z.string()).optional(),
    non_convergent: z.array(z.string()).optional().describe('Paths left out: the service did not keep them last time'),
    ignored: z.array(ignoredChange).optional().describe('Differences ignore rules left out: shown, never planned (also on a no-op)'),
    backtest: backtest.optional().describe('A created or updated alert: how often it would have fired over the history'),
    impact: impact.optional(),
  })
  .describe('One object of one target');

export type ResourceChange = z.output<typeof resourceChange>;
/** What a step alone says of its object; its place (target, module, provider) is added by `placed`. */
type StepChange = Omit<
  ResourceChange,
  'address' | 'module_address' | 'mode' | 'type' | 'name' | 'provider_name' | 'target' | 'previous_address'
>;

const targetIdentity = z
  .object({
    name: z.string(),
    variant: z.enum(['hosted', 'self-hosted']),
    base_url: z.string().describe('The API base URL (no credentials); the embedded sandbox: its data directory'),
    organization_id: z.string().optional().describe('Hosted: the organisation'),
    service_id: z.string().optional().describe('Hosted: the service'),
  })
  .describe('The service the plan was made for: `obsync apply` refuses the plan for any other (since format 3.3, per target in 4.0)');

const targetPlan = z.object({
  target: z.string(),
  variant: z.string(),
  module_address: z.string().describe("The target's module address in resource_changes: module.<target>"),
  target_identity: targetIdentity.optional(),
  manifests: z
    .array(z.string())
    .optional()
    .describe("This target's own manifest paths, when several targets with their own trees are planned"),
  applyable: z.boolean().describe('An apply would change the service or what obsync owns, and no guard refuses it'),
  errored: z.boolean().describe('Some objects could not be planned (see diagnostics); the rest can be applied, prune is off'),
  summary: summarySchema,
  prune: z.object({
    requested: z.boolean(),
    cascade: z.boolean(),
    allowEmptyKinds: z.array(kind).optional().describe('Kinds whose last owned objects may be pruned (--allow-empty-kind)'),
    candidates: z.array(address).describe('Owned objects no longer declared'),
    refused: z.array(z.string()).describe('Why prune was refused as a whole (an error)'),
    blocked: z
      .array(
        z.object({
          address,
          reason: z.string(),
          usedBy: z
            .array(impactItem)
            .optional()
            .describe('What makes the service refuse the delete (alerts still notifying a webhook: 409)'),
        }),
      )
      .describe('Deletes kept back (an error)'),
  }),
  forget: z.array(address).describe('Unfinished creates no manifest declares any more: apply forgets them'),
  diagnostics: z.array(diagnostic),
  steps: z.array(step).describe('What `obsync apply plan.json` executes; for tools, resource_changes is the stable view'),
  backtest: backtestRun.optional(),
  policy: policySectionSchema.optional(),
});

export type TargetPlanDocument = z.output<typeof targetPlan>;

export const planDocumentSchema = z
  .object({
    format_version: z
      .literal(TERRAFORM_PLAN_FORMAT_VERSION)
      .describe("Terraform's JSON plan format version this document follows (for terraform-json and similar readers)"),
    obsync_format_version: z
      .string()
      .regex(/^\d+\.\d+$/)
      .describe("obsync's version of this document (major.minor)"),
    obsync_version: z.string(),
    generated_at: z.string().describe('ISO 8601 time the plan was made'),
    manifests: z.array(z.string()).describe('Manifest paths the plan was made from (apply reads the secret values from them)'),
    config: z.string().optional().describe('The obsync.yaml used'),
    applyable: z
      .boolean()
      .describe(
        '`obsync apply` of this document would change something: some target is applyable, and every target was planned (see failed)',
      ),
    errored: z
      .boolean()
      .describe('Some target has errors, or could not be planned at all (see failed): the plan is incomplete and the exit code is 1'),
    complete: z
      .boolean()
      .describe(
        'As Terraform: applying this plan leaves nothing for the next plan — every target planned, every object, no --only/--selector, no prune refused or delete blocked',
      ),
    timestamp: z.string().describe('As Terraform: when the plan was made (RFC 3339, the same time as generated_at)'),
    summary: summarySchema,
    resource_changes: z
      .array(resourceChange)
      .describe('Every declared or pruned object of every target and what apply does to it (drifted objects too: their correction)'),
    resource_drift: z
      .array(resourceChange)
      .describe('Objects changed on the service while their manifest did not: before = as obsync last applied it, after = as it is now'),
    ...planValuesShape,
    targets: z.array(targetPlan),
    failed: z
      .array(z.object({ target: z.string(), error: z.string() }))
      .optional()
      .describe('Targets that could not be planned: errored is then true and applyable false (a saved plan with any is not applied)'),
  })
  .describe('An obsync plan (obsync plan --output json / --out FILE)');

export type PlanDocument = z.output<typeof planDocumentSchema>;

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

function identityOf(doc: z.output<typeof targetIdentity>): TargetIdentity {
  return {
    name: doc.name,
    variant: doc.variant,
    baseUrl: doc.base_url,
    ...(doc.organization_id !== undefined ? { organizationId: doc.organization_id } : {}),
    ...(doc.service_id !== undefined ? { serviceId: doc.service_id } : {}),
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
