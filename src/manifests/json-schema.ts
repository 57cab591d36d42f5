/** The JSON Schema editors use to autocomplete manifests and obsync.yaml (`obsync schema`). */
import * as z from 'zod';
import { configSchema } from '../config/schema.js';
import { manifestSchemaList } from '../kinds/manifest.js';
import { KINDS } from '../kinds/registry.js';

/** Draft-07, input types (defaulted fields optional): every manifest kind's documents and obsync.yaml. */
export function documentJsonSchema(): Record<string, unknown> {
  const any = z.discriminatedUnion('kind', [...manifestSchemaList, configSchema]);
  const schema = z.toJSONSchema(any, { target: 'draft-7', io: 'input', reused: 'ref' }) as Record<string, unknown>;
  const { $schema, ...rest } = schema;
  return { $schema, title: `obsync documents: ${KINDS.join(', ')} manifests and obsync.yaml (Config)`, ...rest };
}
