/** The zod form of a reference (DESIGN §2): a name, or `{id: ...}` for an object obsync does not manage. */
import * as z from 'zod';
import type { NameOrId } from './refs.js';

const byName = z
  .string()
  .min(1, { error: 'a name must not be empty' })
  .describe('The name of the object (for manifests: its metadata.name), resolved to its id at plan time.');
const byId = z.strictObject({
  id: z.string().min(1, { error: 'an id must not be empty' }).describe('Server id of an object obsync does not manage.'),
});

export const nameOrId: z.ZodType<NameOrId> = z
  .union([byName, byId], {
    error: () => 'expected a name (string) or {id: "..."}',
  })
  .meta({ id: 'Reference', description: 'A reference to another object: its name, or {id: "..."} for one obsync does not manage.' });

/** A reference whose object kind is named in the JSON Schema description (editors show it). */
export function refTo(what: string): z.ZodType<NameOrId> {
  return nameOrId.meta({ description: `${what} by name, or {id: "..."} for one obsync does not manage` });
}
