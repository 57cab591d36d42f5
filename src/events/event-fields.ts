/** The fields the events' bodies share (addresses, paths, counts, guards, diagnostics), each described for the event schema. */
import * as z from 'zod';

export const address = z.string().describe('The object, `Kind/name` (e.g. `Dashboard/checkout`).');

export const paths = z.array(z.string()).describe('Changed field paths in manifest terms (values are never carried).');

export const id = z.string().describe('Server id of the object.');

export const message = z.string().describe('What happened, for a person (scrubbed: a secret never appears).');

export const mode = z.enum(['apply', 'plan']).describe('apply heals drift; plan only reports it.');

export const runResult = z
  .enum(['success', 'failure', 'invalid-manifests'])
  .describe('success; failure (the run failed or a step did); invalid-manifests (kept the last good state, wrote nothing).');

export const counts = z
  .strictObject({
    create: z.number().int().describe('Objects created (plan mode: to create).'),
    update: z.number().int().describe('Objects updated (plan mode: to update).'),
    delete: z.number().int().describe('Objects deleted (plan mode: to delete).'),
    unchanged: z.number().int().describe('Objects already as declared.'),
    adopted: z.number().int().describe('Existing objects taken over by natural key.'),
    failed: z.number().int().describe('Objects that failed or could not be planned.'),
  })
  .meta({
    id: 'RunCounts',
    description:
      'What a run did (apply mode) or found to do (plan mode), each object counted once: an adopted one under adopted only, a ' +
      'rename with no other change under unchanged.',
  });

export const guard = z
  .enum(['prune', 'cascade', 'adoption', 'saved-plan'])
  .describe(
    'prune: a prune guard refused every delete; cascade: a delete kept back (the service would take along an object obsync does not ' +
      'own); adoption: adopt: explicit refused to take over an existing object; saved-plan: the object moved since the saved plan.',
  );

export const diagnostic = z.strictObject({
  file: z.string().optional(),
  line: z.number().int().optional(),
  col: z.number().int().optional(),
  path: z.string().optional().describe('YAML path in the document.'),
  code: z.string(),
  message,
});

/** What an `ignore-suggested` event tells (the target's status lists the same, daemon/drift-history.ts). */
export const ignoreSuggestionFields = {
  address,
  path: z.string().describe('The ignore rule suggested, in spec terms (`tiles[*].x`): a field that keeps changing on the service.'),
  times: z.number().int().describe('Runs that found the field changed on the service within the window.'),
  withinDays: z.number().int().describe('The window, in days (ignoreSuggestions.within).'),
  lines: z
    .strictObject({
      manifest: z.string().describe("YAML to add to the object's manifest (metadata.ignore: this object only)."),
      config: z.string().describe("YAML to add to obsync.yaml (the target's ignore: every object of the kind on the target)."),
    })
    .describe('The exact lines to add, either one; obsync never adds a rule itself.'),
};
