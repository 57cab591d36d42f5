/**
 * The manifest envelope (DESIGN §2): `apiVersion`, `kind`, `metadata`, `spec`. The spec is
 * checked by the kind's own schema (./manifest.ts), so its errors carry `spec.` paths.
 */
import * as z from 'zod';
import { KINDS } from './registry.js';

export const API_VERSION = 'obsync/v1';

export const metadataName = z
  .string()
  .min(1, { error: 'metadata.name must not be empty' })
  .max(253)
  .regex(/^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/, {
    error: 'metadata.name is lowercase letters, digits and "-" (starting and ending with a letter or digit)',
  })
  .describe(
    'Identity of the object within its kind and target: lowercase letters, digits and "-". Other manifests refer to it by this ' +
      'name; to rename it without making a new object, list the old name in previousNames.',
  );

export const labelsSchema = z
  .record(
    z.string().regex(/^[A-Za-z0-9]([A-Za-z0-9._/-]*[A-Za-z0-9])?$/, { error: 'a label key is letters, digits, ".", "_", "/" and "-"' }),
    z.string().max(63),
  )
  .meta({
    id: 'Labels',
    description: 'Labels for `--selector key=value` (plan, apply, run). Kept in the manifests only: they are not sent to the service.',
  });

/** Renames (like Terraform's `moved` blocks): the names this object was owned under before. */
export const previousNamesSchema = z
  .array(metadataName)
  .min(1)
  .max(20)
  .superRefine((names, ctx) => {
    names.forEach((n, i) => {
      if (names.indexOf(n) !== i) ctx.addIssue({ code: 'custom', path: [i], message: `'${n}' is listed twice in previousNames` });
    });
  })
  .describe(
    'Names this object had before (a rename): an object obsync owns under Kind/<previous name> is taken over by this name instead ' +
      'of being re-created, and the objects referring to it keep it. Harmless once the move is applied (the plan says when it can ' +
      'be removed).',
  );

/** Policy rules waived for this object (src/policy), each with a reason shown wherever the finding is. */
export const waiversSchema = z
  .array(
    z.strictObject({
      rule: z.string().min(1).max(128).describe('The id of the rule waived: a built-in rule or a Policy rule.'),
      reason: z.string().trim().min(1, { error: 'a waiver needs a reason' }).max(1024).describe('Why: shown in the plan and lint output.'),
    }),
  )
  .min(1)
  .max(50)
  .describe('Policy rules waived for this object only, each with its reason (docs/policy.md). A waived finding is reported, not enforced.');
/** Fields of this object the people at the screen own (issue 48), checked against the kind's spec schema when the document is loaded. */
export const ignoreSchema = z
  .array(z.string().min(1).max(256))
  .min(1)
  .max(50)
  .describe(
    "Fields of this object that the service's UI owns, as paths in spec terms (tiles[*].x, savedFilterValues): a difference there " +
      "is neither planned, reverted, pulled nor proposed; the plan shows it as ignored. A create still sends the manifest's value. " +
      'Added to the ignore rules of obsync.yaml (defaults.ignore, targets[].ignore).',
  );

export const metadataSchema = z
  .strictObject({
    name: metadataName,
    labels: labelsSchema.optional(),
    previousNames: previousNamesSchema.optional(),
    waivers: waiversSchema.optional(),
    ignore: ignoreSchema.optional(),
  })
  .superRefine((m, ctx) => {
    const i = m.previousNames?.indexOf(m.name) ?? -1;
    if (i >= 0)
      ctx.addIssue({ code: 'custom', path: ['previousNames', i], message: `previousNames lists the object's own name '${m.name}'` });
  })
  .meta({
    id: 'Metadata',
    description:
      "The object's identity (name), labels, the names it had before (previousNames), the fields the UI owns (ignore) and the " +
      'policy rules it waives (waivers).',
  });

export const envelopeSchema = z.strictObject({
  apiVersion: z.literal(API_VERSION, { error: `apiVersion must be '${API_VERSION}'` }),
  kind: z.enum(KINDS),
  metadata: metadataSchema,
  spec: z.unknown(),
});

export type Envelope = z.output<typeof envelopeSchema>;
