/**
 * The one vocabulary of what obsync does, per target (issue 25): the daemon and the CLI emit the
 * same events, each a pino line with an `event` field and a fixed message, a count in
 * `obsync_events_total{target,event}`, and (daemon) an entry in a bounded ring served at
 * `/api/events` and `/api/events/stream`. The zod schema here is the contract: it generates
 * docs/schema/event.schema.json. Events carry addresses, field paths, codes and messages —
 * never values of fields (a value may be a secret); messages pass the one scrubber.
 */
import * as z from 'zod';
import { address, paths, id, message, mode, runResult, counts, guard, diagnostic, ignoreSuggestionFields } from './event-fields.js';

/** What a `proposal` event tells of the target's proposal (drift: propose). */
export const PROPOSAL_OUTCOMES = ['opened', 'updated', 'closed', 'conflicted'] as const;

export type ProposalOutcome = (typeof PROPOSAL_OUTCOMES)[number];

/** Each event's own fields, by its `event` name. */
const BODIES = {
  'run-started': { mode, trigger: z.array(z.string()).describe('What started it: startup, schedule, watch, retry, leader, manual, cli.') },
  'run-finished': {
    mode,
    result: runResult,
    durationMs: z.number().int().describe('Wall time of the run.'),
    counts,
    requests: z.number().int().describe('HTTP requests the run made to the service.'),
    planned: z.boolean().describe('The run read the service and planned (false when it failed before).'),
    planTaken: z
      .literal(true)
      .optional()
      .describe(
        'Nothing the last plan was made from had changed (manifests, live objects, ownership, options): the run took that plan as ' +
          'it was instead of planning again.',
      ),
    error: z.string().optional().describe('Why it failed: the first failure of the run.'),
  },
  drift: {
    address,
    action: z.enum(['create', 'update', 'delete']).describe('What putting it back takes.'),
    reason: z
      .enum(['drifted', 'missing', 'spec-changed', 'not-declared'])
      .describe(
        'drifted: changed on the service; missing: not on the service (apply mode: an owned object deleted there); plan mode also ' +
          'reports what the manifests changed: spec-changed, not-declared (pruning would delete it).',
      ),
    paths,
  },
  healed: { address, id: id.optional(), paths },
  created: { address, id: id.optional() },
  updated: { address, id: id.optional(), paths },
  deleted: { address, id: id.optional() },
  adopted: { address, id, paths: paths.describe('Fields the adoption changed (empty: the object already matched).') },
  imported: { address, id, via: z.enum(['import', 'export --adopt']).describe('The command that bound it.') },
  moved: {
    address,
    from: address.optional().describe('The address it had (metadata.previousNames); absent when only parts moved.'),
    parts: z
      .array(z.strictObject({ from: z.string(), to: z.string() }))
      .optional()
      .describe('Part keys renamed (tile previousKeys): each kept its id and its alerts.'),
    id: id.optional(),
  },
  refused: { guard, address: address.optional(), message },
  failed: {
    address: address.optional(),
    code: z.string().describe('Stable short code (e.g. API, unresolved-reference, DEADLINE).'),
    message,
  },
  'non-convergent': {
    address,
    paths: paths.describe('Fields the service does not keep as sent; none: the object itself (a daemon stopped creating it).'),
  },
  'leader-acquired': { holder: z.string().describe('This replica, as the lease names it.') },
  'leader-lost': { holder: z.string().describe('Who leads now, when known.') },
  'replicas-disagree': {
    replicas: z.array(z.string()).describe('The other live replicas that disagree with this one.'),
    details: z.array(z.string()).describe('What differs: target lists, obsync versions, lease settings.'),
  },
  'manifests-invalid': {
    errors: z.number().int().describe('Errors found.'),
    diagnostics: z.array(diagnostic).describe('The first errors (at most 20).'),
  },
  'manifests-recovered': {},
  'target-unreachable': {
    code: z.string().describe('Error code (API, DEADLINE, TLS_CERTIFICATE, PROXY…).'),
    status: z.number().int().describe('HTTP status, 0 when no response arrived.'),
    message,
  },
  'target-recovered': { downSince: z.iso.datetime().describe('When it became unreachable.') },
  proposal: {
    outcome: z
      .enum(PROPOSAL_OUTCOMES)
      .describe(
        'opened, updated (what it carries changed), closed (nothing left to propose: the drift is gone or was merged; or expired), ' +
          'conflicted (Git and the service both changed an object: a person decides).',
      ),
    branch: z.string().describe("obsync's branch of the target: obsync/propose/<target>."),
    url: z.string().optional().describe('The pull or merge request (absent with forge type none).'),
    objects: z.array(address).describe('The objects it carries.'),
    conflicts: z.number().int().describe('Conflicts obsync did not decide (the request body lists them field by field).'),
    expired: z
      .literal(true)
      .optional()
      .describe('Closed because it was open longer than writeBack.proposalMaxAge: the objects were put back.'),
  },
  'ignore-suggested': ignoreSuggestionFields,
} as const;

export type EventName = keyof typeof BODIES;

export const EVENT_NAMES = Object.keys(BODIES) as [EventName, ...EventName[]];

const DESCRIPTIONS: Record<EventName, string> = {
  'run-started': 'A reconcile run started.',
  'run-finished': 'A reconcile run ended, with its result, duration and counts.',
  drift:
    'The service differs from the manifests: in apply mode, an owned object changed or deleted by hand (then healed); in plan mode, ' +
    'every change a run would make.',
  healed: 'A drifted object was put back as declared (apply mode).',
  created: 'An object was created.',
  updated: 'An object was updated.',
  deleted: 'An owned object no longer declared was deleted (prune).',
  adopted: 'An existing object matched by natural key is now owned by obsync (with the changes the adoption made).',
  imported: 'An existing object was bound to a manifest by `obsync import` or `obsync export --adopt`.',
  moved: 'A rename was recorded (metadata.previousNames, tile previousKeys): the object kept its id; nothing was created or deleted.',
  refused: 'A safety rule refused an action (prune guard, a delete kept back, adoption policy, a moved object).',
  failed: 'An object could not be planned or its write failed; or the run failed for another reason.',
  'non-convergent':
    'The service does not keep some fields as sent (reported once, then left out of later plans), or an object a daemon created run ' +
    'after run (not created again).',
  'leader-acquired': 'This replica leads the target: it writes.',
  'leader-lost': 'This replica no longer leads the target: it stands by.',
  'replicas-disagree':
    'Replicas sharing the PostgreSQL state run different target lists, obsync versions or lease settings (told on each target of ' +
    'this replica when what differs changes; an empty list: they agree again).',
  'manifests-invalid': 'The manifests became invalid: the last good state is kept, nothing is applied or pruned.',
  'manifests-recovered': 'The manifests are valid again.',
  'target-unreachable': 'The service could not be reached or failed (no response, 5xx, 429, deadline).',
  'target-recovered': 'The service answers again.',
  proposal:
    "The target's proposal of changes made on the service (drift: propose) was opened, updated, closed, or has a conflict a person " +
    'must decide.',
  'ignore-suggested':
    'A field of an object keeps changing on the service (ignoreSuggestions: by default 3 runs in 30 days): an ignore rule is ' +
    'suggested, with the lines to add (told once per object and field while it keeps drifting).',
};

const envelope = {
  seq: z.number().int().min(1).describe('Position in this process: increases by one per event, across targets (a cursor for `since`).'),
  time: z.iso.datetime().describe('When it happened (UTC).'),
  target: z.string().describe('The target it is about.'),
};

function variant<N extends EventName>(name: N) {
  return z.strictObject({ ...envelope, event: z.literal(name), ...BODIES[name] }).describe(DESCRIPTIONS[name]);
}

const VARIANTS = EVENT_NAMES.map(variant) as unknown as [ReturnType<typeof variant<EventName>>, ...ReturnType<typeof variant<EventName>>[]];

/** Typed by the union of the variants (the list above is built by a map, which loses each variant's type). */
export const eventSchema = z.discriminatedUnion('event', VARIANTS).meta({
  id: 'Event',
  description: 'One thing obsync did or found, on one target.',
}) as unknown as z.ZodType<ObsyncEvent>;

/** An event as recorded and served. */
export type EventOf<N extends EventName> = z.output<ReturnType<typeof variant<N>>>;

export type ObsyncEvent = { [N in EventName]: EventOf<N> }[EventName];

type WithoutEnvelope<E> = E extends unknown ? Omit<E, 'seq' | 'time' | 'target'> : never;

/** An event as emitted: its name and fields; the bus adds seq, time and target. */
export type EventBody = WithoutEnvelope<ObsyncEvent>;

/** The events documents: `/api/events` answers `{events, next}`. */
export const eventListSchema = z
  .strictObject({
    events: z.array(eventSchema).describe('Oldest first.'),
    next: z.number().int().describe('Pass as `since` to get only newer events.'),
  })
  .meta({ id: 'EventList', description: 'GET /api/events' });

/**
 * What a notification sink subscribes to (`notifications[].events`): each class is one kind of
 * state change (DESIGN §3), not one event — `failed` is a target starting to fail, `recovered`
 * its first good run after.
 */
export const NOTIFICATION_CLASSES = [
  'drift',
  'healed',
  'failed',
  'recovered',
  'adopted',
  'refused',
  'non-convergent',
  'leader',
  'proposal',
  'ignore-suggested',
] as const;

export type NotificationClass = (typeof NOTIFICATION_CLASSES)[number];
