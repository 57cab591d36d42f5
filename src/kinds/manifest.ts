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
      metadata: metadataSchema.describe('Identity (name), labels, and the names it had before a rename (previousNames).'),
      spec: spec.describe(
        `The desired state of the ${kind}. Strings may use \${env:NAME}, \${file:PATH} and \${var:NAME}; write $\${ for a literal ` +
          `\${ (export writes the service's text so).`,
      ),
    })
    .meta({ id: kind, description });
}

export type ManifestSchema = ReturnType<typeof manifestOf>;

export const specSchemas = Object.fromEntries(MANAGED.map((d) => [d.kind, d.spec])) as Record<Kind, z.ZodType>;

let documentSchemas: [ManifestSchema, ...ManifestSchema[]] | undefined;

/**
 * The document schemas in registry order (a discriminated union needs at least one). Built on
 * first use, once (their `meta` ids are registered globally): only `obsync schema` needs them,
 * and building them at import slowed every `obsync validate`.
 */
export function manifestSchemaList(): [ManifestSchema, ...ManifestSchema[]] {
  documentSchemas ??= MANAGED.map((d) => manifestOf(d.kind, d.spec, d.description)) as [ManifestSchema, ...ManifestSchema[]];
  return documentSchemas;
}
