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

const ABOUT: Record<Kind, string> = {
  Dashboard: 'A dashboard of the service: its tiles and filters. obsync creates, updates and (with --prune) deletes it.',
  Alert: 'An alert on a dashboard tile or a saved search, notifying webhooks. obsync creates, updates and (with --prune) deletes it.',
  Pipe: 'Settings of an existing data-ingestion pipe (hosted variant). obsync never creates or deletes pipes: it owns only the fields declared here.',
};

function manifestOf<K extends Kind>(kind: K) {
  return z
    .strictObject({
      apiVersion: z.literal(API_VERSION).describe(`Version of the manifest format: always ${API_VERSION}.`),
      kind: z.literal(kind).describe(`The kind of object: ${kind}.`),
      metadata: metadataSchema.describe('Identity (name) and labels.'),
      spec: specSchemas[kind].describe(`The desired state of the ${kind}.`),
    })
    .meta({ id: kind, description: ABOUT[kind] });
}

export const manifestSchemas = {
  Dashboard: manifestOf('Dashboard'),
  Alert: manifestOf('Alert'),
  Pipe: manifestOf('Pipe'),
} as const;

/** Any manifest document, discriminated by `kind`. */
export const anyManifestSchema = z.discriminatedUnion('kind', [manifestSchemas.Dashboard, manifestSchemas.Alert, manifestSchemas.Pipe]);
