/** Every manifest kind's spec schema, and the whole-document schemas (for `obsync schema`), from the registry. */
import * as z from 'zod';
import type { Kind } from '../core/plan.js';
import { API_VERSION, metadataSchema } from './envelope.js';
import { MANAGED } from './registry.js';

function manifestOf(kind: Kind, spec: z.ZodType) {
  return z.strictObject({ apiVersion: z.literal(API_VERSION), kind: z.literal(kind), metadata: metadataSchema, spec });
}

export type ManifestSchema = ReturnType<typeof manifestOf>;

export const specSchemas = Object.fromEntries(MANAGED.map((d) => [d.kind, d.spec])) as Record<Kind, z.ZodType>;

export const manifestSchemas = Object.fromEntries(MANAGED.map((d) => [d.kind, manifestOf(d.kind, d.spec)])) as Record<Kind, ManifestSchema>;

/** The document schemas in registry order (a discriminated union needs at least one). */
export const manifestSchemaList = MANAGED.map((d) => manifestSchemas[d.kind]) as [ManifestSchema, ...ManifestSchema[]];

/** Any manifest document, discriminated by `kind`. */
export const anyManifestSchema = z.discriminatedUnion('kind', manifestSchemaList);
