/**
 * `kind: Policy` manifests (issue 43.2): custom rules in CEL, kept in the repository. A Policy is
 * read with the manifests but is never an object on the service: the loader hands it to the
 * rules (LoadResult.policies), never to the planner.
 */
import * as z from 'zod';
import { API_VERSION, metadataSchema } from '../kinds/envelope.js';
import type { Severity } from './model.js';

export const POLICY_KIND = 'Policy';

const ruleId = z
  .string()
  .regex(/^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/, { error: 'a rule id is lowercase letters, digits and "-"' })
  .max(128);

export const policyRuleSchema = z.strictObject({
  id: ruleId.describe('Stable id of the rule: what findings, waivers and SARIF name.'),
  severity: z.enum(['error', 'warning']).describe('error blocks apply (and fails obsync lint); warning reports.'),
  kinds: z
    .array(z.enum(['Dashboard', 'Alert', 'Pipe', 'Source', 'Webhook', 'SavedSearch', 'Connection']))
    .min(1)
    .describe('The kinds of objects the rule reads.'),
  targets: z.array(z.string().min(1)).min(1).optional().describe('Only on these targets (default: every target, and lint).'),
  expression: z.string().min(1).max(4096).describe('CEL over object, change and target: true means the object passes.'),
  message: z.string().min(1).max(1024).describe('What a failing object is told.'),
});

export const policySpecSchema = z.strictObject({
  rules: z.array(policyRuleSchema).min(1).max(200).describe('The rules (ids unique across every Policy manifest).'),
});

export const policyDocumentSchema = z
  .strictObject({
    apiVersion: z.literal(API_VERSION, { error: `apiVersion must be '${API_VERSION}'` }).describe(`Always ${API_VERSION}.`),
    kind: z.literal(POLICY_KIND).describe('A Policy: custom rules, never an object on the service.'),
    metadata: metadataSchema,
    spec: policySpecSchema.describe('The rules.'),
  })
  .meta({
    id: 'PolicyManifest',
    description: 'Custom rules in CEL, checked by obsync lint, plan and apply (docs/policy.md). Never an object on the service.',
  });

/** A custom rule as loaded, with where it is written. */
export interface PolicyRule {
  id: string;
  severity: Severity;
  kinds: readonly string[];
  targets?: readonly string[];
  expression: string;
  message: string;
  /** The Policy manifest's metadata.name. */
  policy: string;
  file: string;
  line: number;
  col: number;
}
