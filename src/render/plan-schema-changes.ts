/**
 * The JSON plan's schema of one object's change, twice: the step as the applier executes it
 * (`targets[].steps`), and the resource change as Terraform's readers see it (`resource_changes`).
 */
import * as z from 'zod';
import { backtest, impact } from './plan-schema-backtest.js';
import {
  absoluteAddress,
  address,
  anyKind,
  change,
  cascadeItem,
  ignoredChange,
  json,
  kind,
  object,
  partMove,
  reason,
  sensitivity,
} from './plan-schema-parts.js';

/** A step as the applier executes it (src/core/plan.ts). */
export const step = z.object({
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

export const resourceChange = z
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
      'missing: not on the service; drifted: changed on the service, not in the manifest; spec-changed: the ' +
        'manifest changed; not-declared: owned but no longer declared (prune); unchanged',
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
export type StepChange = Omit<
  ResourceChange,
  'address' | 'module_address' | 'mode' | 'type' | 'name' | 'provider_name' | 'target' | 'previous_address'
>;
