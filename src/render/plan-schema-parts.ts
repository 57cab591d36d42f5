/** The small pieces of the JSON plan's schema: addresses, kinds, a field's change, diagnostics, masks, the summary. */
import * as z from 'zod';
import type { Address, AnyKind } from '../core/plan.js';
import { KINDS, REGISTRY } from '../kinds/registry.js';
import type { Sensitivity } from './forms.js';
import { resourceAddressPattern } from './terraform-address.js';

export const json = z.json();
export const object = z.record(z.string(), json);
export const kind = z.enum(KINDS);
export const anyKind = z.enum(REGISTRY.map((d) => d.kind) as [AnyKind, ...AnyKind[]]);
export const address = z
  .string()
  .refine((a) => KINDS.some((k) => a.startsWith(`${k}/`) && a.length > k.length + 1), { error: 'not an address like Dashboard/checkout' })
  .describe('Kind/metadata.name, e.g. Dashboard/checkout') as unknown as z.ZodType<Address>;
export const reason = z.enum(['missing', 'drifted', 'spec-changed', 'not-declared', 'unchanged']);
export const absoluteAddress = z
  .string()
  .regex(resourceAddressPattern(KINDS))
  .describe('As Terraform: module.<target>.<Kind>.<metadata.name>, e.g. module.prod.Dashboard.checkout');
export const change = z.object({
  path: z.string().describe("Path in the manifest's terms, e.g. tiles[p99].config.select[0].aggFn ('' for the whole object)"),
  before: json.optional(),
  after: json.optional(),
  sensitive: z.boolean().optional().describe('The value is secret: before/after are "(sensitive)"'),
});
export const ignoredChange = change
  .extend({
    rule: z.string().describe('The ignore rule that left it out, e.g. tiles[*].x'),
    from: z.string().describe('Where the rule is declared: defaults.ignore.<Kind>, targets[<name>].ignore.<Kind> or metadata.ignore'),
  })
  .describe(
    "A difference an ignore rule left out (the UI owns the field): before is the service's value, after the manifest's; never applied",
  );
export const cascadeItem = z.object({
  kind: anyKind,
  id: z.string(),
  name: z.string().nullable(),
  address: address.optional(),
  owned: z.boolean(),
  declared: z.boolean(),
  object,
});

export const partMove = z
  .object({ from: z.string().describe('The key it had'), to: z.string().describe('Its key now') })
  .describe('A part (dashboard tile) whose key was renamed (previousKeys): it keeps its id, and the alerts on it');

export const diagnostic = z.object({
  severity: z.enum(['error', 'warning']),
  code: z.string(),
  message: z.string(),
  file: z.string().optional(),
  line: z.number().optional(),
  col: z.number().optional(),
  path: z.string().optional(),
  address: z.string().optional(),
});

export const sensitivity: z.ZodType<Sensitivity> = z.lazy(() =>
  z.union([z.boolean(), z.array(sensitivity), z.record(z.string(), sensitivity)]),
);

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
    'Objects per action, each counted once (the counts add up to the objects): adoptions under adopt, ' +
      'renames with no other change under move, the rest by action; the apply report has the same keys, ' +
      'counting what was done',
  );
