/** Every manifest kind's spec schema, and the whole-document schemas (for `obsync schema`). */
import * as z from 'zod';
import type { Kind } from '../core/plan.js';
import { alertSpecSchema } from './alert/schema.js';
import { dashboardSpecSchema } from './dashboard/schema.js';
import { API_VERSION, metadataSchema } from './envelope.js';
import { pipeSpecSchema } from './pipe/schema.js';

export const specSchemas = {
  Dashboard: dashboardSpecSchema,
  Alert: alertSpecSchema,
  Pipe: pipeSpecSchema,
} as const satisfies Record<Kind, z.ZodType>;

function manifestOf<K extends Kind>(kind: K) {
  return z.strictObject({ apiVersion: z.literal(API_VERSION), kind: z.literal(kind), metadata: metadataSchema, spec: specSchemas[kind] });
}

export const manifestSchemas = {
  Dashboard: manifestOf('Dashboard'),
  Alert: manifestOf('Alert'),
  Pipe: manifestOf('Pipe'),
} as const;

/** Any manifest document, discriminated by `kind`. */
export const anyManifestSchema = z.discriminatedUnion('kind', [manifestSchemas.Dashboard, manifestSchemas.Alert, manifestSchemas.Pipe]);
