/**
 * The parts of `terraform show -json` beyond the changes: `planned_values` (every object as it is
 * after the apply), `prior_state` (every object as it is on the service now) and `configuration`
 * (what the manifests declare), each target a module call of the root module. Readers that scan
 * these (Checkov's plan scan, Regula, terraform-compliance, Rego policies) see the same objects
 * and values as `resource_changes`: one form per step (forms.ts, sensitive values masked) feeds all.
 */
import { relative } from 'node:path';
import * as z from 'zod';
import { isJsonObject, setOwn } from '../core/json.js';
import type { Plan, PlanStep } from '../core/plan.js';
import type { Json, JsonObject } from '../core/wire.js';
import { KINDS } from '../kinds/registry.js';
import { mask, stepForms, type Masked, type Sensitivity, type StepForms } from './forms.js';
import { localAddress, moduleAddress, providerConfigKey, providerName, resourceAddress } from './terraform-address.js';

/** Terraform's state format version `prior_state` follows: what every terraform-json release reads (as the plan's). */
const STATE_FORMAT_VERSION = '0.1';

const json = z.json();
const values = z.record(z.string(), json);
const sensitivity: z.ZodType<Sensitivity> = z.lazy(() => z.union([z.boolean(), z.array(sensitivity), z.record(z.string(), sensitivity)]));
const kind = z.enum(KINDS);

const stateResource = z.object({
  address: z.string().describe('module.<target>.<Kind>.<metadata.name>, as in resource_changes'),
  mode: z.literal('managed'),
  type: kind,
  name: z.string(),
  provider_name: z.string(),
  schema_version: z.literal(0),
  values: values
    .optional()
    .describe('The object\'s whole form, sensitive values "(sensitive)" (absent only in a plan made for text output)'),
  sensitive_values: z.record(z.string(), sensitivity).describe('true where values holds a masked secret ({} when none does)'),
});
const stateValues = z.object({
  root_module: z.object({
    child_modules: z.array(z.object({ address: z.string().describe('module.<target>'), resources: z.array(stateResource) })),
  }),
});
const configResource = z.object({
  address: z.string().describe('<Kind>.<metadata.name>, within its module'),
  mode: z.literal('managed'),
  type: kind,
  name: z.string(),
  provider_config_key: z.string(),
  expressions: z
    .record(z.string(), z.object({ constant_value: json }))
    .optional()
    .describe('Each top-level field of the declared form as a constant (references are by name, so nothing is left to evaluate)'),
  schema_version: z.literal(0),
  depends_on: z.array(z.string()).optional().describe('What it refers to, within its module'),
});

/** The sections' schemas, part of the plan document's (plan-json.ts). */
export const planValuesShape = {
  planned_values: stateValues.describe('Every object of every target as it is after the apply (not the deleted ones)'),
  prior_state: z
    .object({
      format_version: z.literal(STATE_FORMAT_VERSION),
      obsync_version: z.string().describe('The obsync that read it (no Terraform made this state: there is no terraform_version)'),
      values: stateValues,
    })
    .describe('Every object the plan found on the service, as it is now (not the ones to create)'),
  configuration: z
    .object({
      provider_config: z.record(z.string(), z.object({ name: z.literal('obsync'), full_name: z.string(), module_address: z.string() })),
      root_module: z.object({
        module_calls: z.record(
          z.string(),
          z.object({
            source: z.string().describe("The target's manifest paths"),
            module: z.object({ resources: z.array(configResource) }),
          }),
        ),
      }),
    })
    .describe('What the manifests declare for each target (the objects to create, update or keep)'),
};

type StateResource = z.output<typeof stateResource>;
type ConfigResource = z.output<typeof configResource>;
export type PlanValues = { [K in keyof typeof planValuesShape]: z.output<(typeof planValuesShape)[K]> };

/**
 * The forms a JSON plan shows of a step: before and after, masked; an unchanged object's one form
 * as both (Terraform's no-op). Undefined for an unchanged object whose plan kept no form.
 */
export function documentForms(step: PlanStep): StepForms | undefined {
  if (step.action !== 'noop') return stepForms(step);
  if (step.form === undefined) return undefined;
  const form = mask(step.form);
  return { before: form, after: form };
}

export function planValues(
  plans: readonly Plan[],
  origin: { obsyncVersion: string; manifestsByTarget?: Readonly<Record<string, string[]>>; root?: string },
): PlanValues {
  const { root } = origin;
  const shown = (path: string) => (root === undefined ? path : relative(root, path) || '.');
  const planned: PlanValues['planned_values']['root_module']['child_modules'] = [];
  const prior: PlanValues['planned_values']['root_module']['child_modules'] = [];
  const providers: PlanValues['configuration']['provider_config'] = {};
  const calls: PlanValues['configuration']['root_module']['module_calls'] = {};
  for (const plan of plans) {
    const after: StateResource[] = [];
    const before: StateResource[] = [];
    const declared: ConfigResource[] = [];
    for (const step of plan.steps) {
      const forms = documentForms(step);
      if (step.action !== 'delete') after.push(stateResourceOf(plan, step, forms ? forms.after : undefined));
      if (step.action !== 'create') before.push(stateResourceOf(plan, step, forms ? forms.before : undefined));
      if (step.action !== 'delete') declared.push(configResourceOf(plan, step, forms?.after ?? undefined));
    }
    const address = moduleAddress(plan.target);
    planned.push({ address, resources: after });
    prior.push({ address, resources: before });
    setOwn(providers, providerConfigKey(plan.target), { name: 'obsync', full_name: providerName(plan.variant), module_address: address });
    setOwn(calls, plan.target, {
      source: (origin.manifestsByTarget?.[plan.target] ?? []).map(shown).join(', '),
      module: { resources: declared },
    });
  }
  return {
    planned_values: { root_module: { child_modules: planned } },
    prior_state: {
      format_version: STATE_FORMAT_VERSION,
      obsync_version: origin.obsyncVersion,
      values: { root_module: { child_modules: prior } },
    },
    configuration: { provider_config: providers, root_module: { module_calls: calls } },
  };
}

/** `masked`: the side's form; null never reaches here (a create has no prior object, a delete no planned one). */
function stateResourceOf(plan: Plan, step: PlanStep, masked: Masked | null | undefined): StateResource {
  const known = masked && isJsonObject(masked.value) ? masked : undefined;
  return {
    address: resourceAddress(plan.target, step.address),
    mode: 'managed',
    type: step.kind,
    name: step.name,
    provider_name: providerName(plan.variant),
    schema_version: 0,
    ...(known ? { values: known.value as JsonObject } : {}),
    sensitive_values: known ? sensitiveValues(known.sensitive) : {},
  };
}

/** Terraform's `sensitive_values`: the object of where the values are masked, `{}` when nowhere. */
function sensitiveValues(where: Sensitivity): Record<string, Sensitivity> {
  return typeof where === 'object' && !Array.isArray(where) ? where : {};
}

function configResourceOf(plan: Plan, step: PlanStep, masked: Masked | undefined): ConfigResource {
  let expressions: Record<string, { constant_value: Json }> | undefined;
  if (masked && isJsonObject(masked.value)) {
    expressions = {};
    for (const [key, value] of Object.entries(masked.value)) setOwn(expressions, key, { constant_value: value });
  }
  return {
    address: localAddress(step.address),
    mode: 'managed',
    type: step.kind,
    name: step.name,
    provider_config_key: providerConfigKey(plan.target),
    ...(expressions ? { expressions } : {}),
    schema_version: 0,
    ...(step.dependsOn.length > 0 ? { depends_on: step.dependsOn.map(localAddress) } : {}),
  };
}
