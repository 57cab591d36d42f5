/** The JSON Schema editors use to autocomplete manifests and obsync.yaml (`obsync schema`). */
import * as z from 'zod';
import { configSchema } from '../config/schema.js';
import { manifestSchemas } from '../kinds/manifest.js';

/** Draft-07, input types (defaulted fields optional): Dashboard, Alert, Pipe documents and obsync.yaml. */
export function documentJsonSchema(): Record<string, unknown> {
  const any = z.discriminatedUnion('kind', [manifestSchemas.Dashboard, manifestSchemas.Alert, manifestSchemas.Pipe, configSchema]);
  const schema = z.toJSONSchema(any, { target: 'draft-7', io: 'input', reused: 'ref' }) as Record<string, unknown>;
  const { $schema, ...rest } = schema;
  return { $schema, title: 'obsync documents: Dashboard, Alert, Pipe manifests and obsync.yaml (Config)', ...rest };
}
