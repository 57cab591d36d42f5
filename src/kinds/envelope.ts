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
    'Identity of the object within its kind and target: lowercase letters, digits and "-". Other manifests refer to it by this name; renaming it makes a new object.',
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

export const metadataSchema = z
  .strictObject({
    name: metadataName,
    labels: labelsSchema.optional(),
  })
  .meta({ id: 'Metadata', description: "The object's identity (name) and labels." });

export const envelopeSchema = z.strictObject({
  apiVersion: z.literal(API_VERSION, { error: `apiVersion must be '${API_VERSION}'` }),
  kind: z.enum(KINDS),
  metadata: metadataSchema,
  spec: z.unknown(),
});

export type Envelope = z.output<typeof envelopeSchema>;
