/**
 * The JSON plan's shape (docs/schema/plan.schema.json is generated from it, and a saved plan is
 * parsed back with it): the document, each target's plan, and the target's identity.
 */
import * as z from 'zod';
import { policySectionSchema } from './policy.js';
import { planValuesShape } from './plan-values.js';
import { backtestRun, impactItem } from './plan-schema-backtest.js';
import { resourceChange, step } from './plan-schema-changes.js';
import { address, diagnostic, kind, summarySchema } from './plan-schema-parts.js';
import { TERRAFORM_PLAN_FORMAT_VERSION } from './terraform-address.js';

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

export const targetIdentity = z
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
        'As Terraform: applying this plan leaves nothing for the next plan — every target planned, every ' +
          'object, no --only/--selector, no prune refused or delete blocked',
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
