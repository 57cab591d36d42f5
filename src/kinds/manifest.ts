/** Every manifest kind's spec schema, and the whole-document schemas (for `obsync schema`), from the registry. */
import * as z from 'zod';
import type { Kind } from '../core/plan.js';
import { API_VERSION, metadataSchema } from './envelope.js';
import { MANAGED } from './registry.js';

function manifestOf(kind: Kind, spec: z.ZodType, description: string) {
  return z
    .strictObject({
      apiVersion: z.literal(API_VERSION).describe(`Version of the manifest format: always ${API_VERSION}.`),
      kind: z.literal(kind).describe(`The kind of object: ${kind}.`),
      metadata: metadataSchema.describe('Identity (name) and labels.'),
      spec: spec.describe(`The desired state of the ${kind}.`),
    })
    .meta({ id: kind, description });
}

export type ManifestSchema = ReturnType<typeof manifestOf>;

export const specSchemas = Object.fromEntries(MANAGED.map((d) => [d.kind, d.spec])) as Record<Kind, z.ZodType>;

export const manifestSchemas = Object.fromEntries(MANAGED.map((d) => [d.kind, manifestOf(d.kind, d.spec, d.description)])) as Record<Kind, ManifestSchema>;

/** The document schemas in registry order (a discriminated union needs at least one). */
export const manifestSchemaList = MANAGED.map((d) => manifestSchemas[d.kind]) as [ManifestSchema, ...ManifestSchema[]];

/** Any manifest document, discriminated by `kind`. */
export const anyManifestSchema = z.discriminatedUnion('kind', manifestSchemaList);
