/**
 * What the daemon knows about each target, as `/api/status` serves it and the status page shows
 * it (issue 25). Built from in-memory state only: reading it never calls the service. The zod
 * schema is the contract (docs/schema/status.schema.json). `role` is open to what replicas sharing
 * the targets will add (a target assigned to another replica).
 */
import * as z from 'zod';
import { eventSchema } from './vocabulary.js';
import { ignoreSuggestionFields } from './event-fields.js';

const time = z.iso.datetime();

export const TARGET_STATES = [
  'starting',
  'in-sync',
  'drifted',
  'applying',
  'planning',
  'queued',
  'failing',
  'standby',
  'stopping',
] as const;
export type TargetState = (typeof TARGET_STATES)[number];

export const roleSchema = z
  .strictObject({
    kind: z
      .enum(['single', 'leader', 'standby', 'electing'])
      .describe(
        'single: plan mode, no election; leader: this replica holds the lease and writes; standby: another replica leads; electing: ' +
          'not decided yet.',
      ),
    detail: z.string().describe('Who leads, as the lease names it.'),
  })
  .meta({ id: 'Role', description: "This replica's part in the target." });

export const lastRunSchema = z
  .strictObject({
    startedAt: time,
    finishedAt: time,
    result: z.enum(['success', 'failure', 'invalid-manifests']),
    durationMs: z.number().int(),
    trigger: z.array(z.string()),
    counts: z.strictObject({
      create: z.number().int(),
      update: z.number().int(),
      delete: z.number().int(),
      unchanged: z.number().int(),
      adopted: z.number().int(),
      failed: z.number().int(),
    }),
    requests: z.number().int().describe('HTTP requests to the service.'),
    planned: z.boolean().describe('The run read the service and planned (false: it failed before, and its counts say nothing).'),
    error: z.string().optional().describe('Why it failed.'),
  })
  .meta({ id: 'LastRun', description: 'The last finished run (counts: plan mode, what it found to do; apply mode, what it did).' });

export const targetStatusSchema = z
  .strictObject({
    name: z.string(),
    variant: z.enum(['hosted', 'self-hosted']),
    embedded: z.boolean().describe('The embedded sandbox (a simulator), not a real service.'),
    endpoint: z
      .strictObject({
        baseUrl: z.string().describe('The API it talks to: scheme, host, port and path, never a credential.'),
        organizationId: z.string().optional().describe('Hosted: the organisation.'),
        serviceId: z.string().optional().describe('Hosted: the service it writes to.'),
      })
      .describe('Where the target points.'),
    mode: z.enum(['apply', 'plan']),
    drift: z
      .enum(['revert', 'report', 'propose'])
      .optional()
      .describe('Apply mode: what the daemon does with drift (drift: of obsync.yaml); absent in plan mode, where nothing is applied.'),
    role: roleSchema,
    state: z
      .enum(TARGET_STATES)
      .describe(
        'starting (no run finished yet); in-sync; drifted (plan mode: changes not applied); applying / planning (a run is under ' +
          'way); queued (a run waits for one of the --parallel-runs slots of its process); failing (the last run failed, retrying); ' +
          'standby; stopping.',
      ),
    reason: z.string().describe('Why, in words (the error of a failing target).'),
    since: time.describe('When the target entered this state.'),
    ready: z.boolean().describe('What /readyz says for this target.'),
    readyReason: z.string(),
    failing: z
      .strictObject({
        since: time.describe('The first failed run of this streak.'),
        runs: z.number().int().describe('Failed runs since.'),
        error: z.string().describe('Why the last one failed.'),
      })
      .nullable()
      .describe('Every run since `since` failed (null: the last run did not fail).'),
    lastRun: lastRunSchema.nullable(),
    nextRun: z
      .strictObject({ at: time, why: z.enum(['schedule', 'retry']) })
      .nullable()
      .describe(
        "The next run the daemon has planned (a file change may come first): a scheduled run's time includes its jitter. Null while " +
          'another replica leads the target (a standby runs when it leads) and while stopping.',
      ),
    owned: z.record(z.string(), z.number().int()).describe('Objects obsync owns on the target, by kind.'),
    manifests: z.strictObject({
      valid: z.boolean().describe('The manifests loaded without errors at the last run.'),
      errors: z.number().int(),
    }),
    recentEvents: z.array(eventSchema).describe('The newest events of the target, newest first (at most 20).'),
    proposal: z
      .strictObject({
        status: z.enum(['opened', 'updated', 'unchanged', 'conflicted']).describe('What the last run made of it.'),
        branch: z.string(),
        url: z.string().optional().describe('The pull or merge request (absent with forge type none).'),
        openedAt: time.optional(),
        ageSeconds: z.number().int().optional(),
        objects: z.array(z.string()).describe('The objects it carries: not put back while it is open.'),
        conflicts: z.number().int().describe('Conflicts obsync did not decide.'),
      })
      .nullable()
      .optional()
      .describe('drift: propose — the open proposal of changes made on the service (null: none). Absent for other targets.'),
    ignoreSuggestions: z
      .array(
        z.strictObject({
          ...ignoreSuggestionFields,
          since: time.describe('The first drift counted (within the window).'),
          last: time.describe('The last drift counted.'),
        }),
      )
      .optional()
      .describe(
        'Ignore rules suggested for fields that keep changing on the service and not yet ignored, oldest first (ignoreSuggestions). ' +
          'Absent when turned off.',
      ),
    previews: z
      .array(
        z.union([
          z.strictObject({
            address: z.string(),
            title: z.string().describe("The dashboard's or the alert's display name."),
            url: z.string().describe('The SVG on this daemon (/targets/NAME/previews/FILE.svg), behind the same token as this document.'),
          }),
          z.strictObject({ address: z.string(), title: z.string(), skipped: z.string().describe('Why there is no picture.') }),
        ]),
      )
      .optional()
      .describe(
        'The pictures of the last plan (issue 42): a preview of each dashboard it creates or updates, a chart of each alert it ' +
          'backtested (at most 12, 2 MiB of SVG). Absent when the last plan has none.',
      ),
  })
  .meta({ id: 'TargetStatus', description: 'One target as the daemon sees it.' });

export const sharingSchema = z
  .strictObject({
    replicas: z
      .array(
        z.strictObject({
          id: z.string(),
          leads: z.array(z.string()).describe('The targets it leads, as it told at its last heartbeat.'),
          targets: z.number().int().describe('How many targets its config runs.'),
          heartbeatAgeMs: z.number().int(),
          late: z.boolean().describe('Its last heartbeat is older than two heartbeat intervals: it may be stuck or gone.'),
          version: z.string(),
        }),
      )
      .describe('The live replicas at the last heartbeat (this one included).'),
    assigned: z.array(z.string()).describe('The targets assigned to this replica.'),
    disagreements: z
      .array(z.string())
      .describe('What differs between this replica and the others (target lists, versions, lease settings).'),
    heartbeatAt: time.nullable().describe('The last heartbeat that reached the registry.'),
  })
  .meta({ id: 'Sharing', description: 'Replicas sharing the targets over the PostgreSQL state (issue 28).' });

export const replicaSchema = z
  .strictObject({
    id: z.string().describe('This process: host name and pid.'),
    leads: z.array(z.string()).optional().describe('The targets this replica leads now (apply mode).'),
    sharing: sharingSchema
      .optional()
      .describe('Absent on the file state (one leader per target, every replica competes for all) and in plan mode.'),
  })
  .meta({ id: 'Replica', description: 'This replica and, on the PostgreSQL state, how the targets are shared.' });

export const statusSchema = z
  .strictObject({
    version: z.string().describe('obsync version.'),
    generatedAt: time,
    ready: z.boolean().describe('What /readyz says: every target ready.'),
    replica: replicaSchema,
    targets: z.array(targetStatusSchema),
  })
  .meta({ id: 'Status', description: 'GET /api/status: every target of this daemon.' });

export type TargetStatus = z.output<typeof targetStatusSchema>;
export type StatusDocument = z.output<typeof statusSchema>;
export type LastRun = z.output<typeof lastRunSchema>;
export type Sharing = z.output<typeof sharingSchema>;
