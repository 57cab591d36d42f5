/**
 * What a `generic` sink receives (issue 25): obsync's own JSON document, whose schema is
 * docs/schema/notification.schema.json (generated from `genericPayloadSchema`), as it is or as the
 * data of a CloudEvent (./cloudevents.ts). A notification about objects carries each object's
 * event and its field changes in words (masked where sensitive); what a run found of one class is
 * one document. The other sinks' forms: ./slack.ts, ./alertmanager.ts.
 */
import * as z from 'zod';
import { eventSchema, NOTIFICATION_CLASSES, type ObsyncEvent } from '../events/vocabulary.js';
import type { Notification } from './policy.js';

export const NOTIFICATION_SCHEMA_ID = 'obsync.notification/v1';

/** Objects a notification lists at most (its count says how many there were). */
export const MAX_OBJECTS = 100;

const notifiedObjectSchema = z.strictObject({
  event: eventSchema.describe('The per-object event (the same as /api/events serves).'),
  changes: z
    .array(z.string())
    .describe(
      'An update: what changed, in words, as the status page shows it (`threshold 1500 → 900`); a sensitive value reads (sensitive).',
    ),
});

export const genericPayloadSchema = z
  .strictObject({
    schema: z.literal(NOTIFICATION_SCHEMA_ID).describe('The format of this document.'),
    id: z
      .string()
      .describe(
        'Unique per notification, the same in every sink and every retry (the webhook-id header of a signed ' +
          'sink, the CloudEvents id): deduplicate by it.',
      ),
    kind: z
      .enum(NOTIFICATION_CLASSES)
      .describe(
        'The state change: drift, healed, failed, recovered, adopted, refused, non-convergent, leader, proposal or ignore-suggested.',
      ),
    target: z.string().describe('The target it is about.'),
    time: z.iso.datetime().describe('When it happened (UTC).'),
    severity: z.enum(['info', 'warning', 'error']),
    summary: z.string().describe('One line for people (plain text).'),
    since: z.iso.datetime().optional().describe('failed and recovered: since when the target has been failing.'),
    dropped: z
      .number()
      .int()
      .min(0)
      .describe('Notifications to this sink left out by its rate limit (or a full queue) since the last one delivered.'),
    source: z.strictObject({ version: z.string().describe('obsync version.'), replica: z.string().describe('Host name and pid.') }),
    event: eventSchema.describe('The event behind it (the same as /api/events serves); the first of objects when there are several.'),
    count: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe(
        'drift, healed, adopted, refused, non-convergent: how many objects (or refusals) the run told of, objects left out included.',
      ),
    objects: z
      .array(notifiedObjectSchema)
      .max(MAX_OBJECTS)
      .optional()
      .describe(`The first ${MAX_OBJECTS} of them, in the order found; every one is also in the event stream.`),
  })
  .meta({ id: 'Notification', description: 'What a notification sink of type generic receives (HTTP POST, application/json).' });

export type GenericPayload = z.output<typeof genericPayloadSchema>;

/** An object a notification tells of, with its field changes in words. */
export interface NotifiedObject {
  event: ObsyncEvent;
  changes: readonly string[];
}

/** A notification as the sinks take it: its id, how many objects it tells of, and the first MAX_OBJECTS with their changes. */
export interface PreparedNotification extends Omit<Notification, 'objects'> {
  id: string;
  /** Objects the notification tells of (0: it is about none). */
  count: number;
  items: readonly NotifiedObject[];
}

export interface PayloadContext {
  version: string;
  replica: string;
  dropped: number;
}

export function genericPayload(n: PreparedNotification, ctx: PayloadContext): GenericPayload {
  return {
    schema: NOTIFICATION_SCHEMA_ID,
    id: n.id,
    kind: n.kind,
    target: n.target,
    time: n.time,
    severity: n.severity,
    summary: n.summary,
    ...(n.since ? { since: n.since } : {}),
    dropped: ctx.dropped,
    source: { version: ctx.version, replica: ctx.replica },
    event: n.event,
    ...(n.count > 0
      ? { count: n.count, objects: n.items.slice(0, MAX_OBJECTS).map((o) => ({ event: o.event, changes: [...o.changes] })) }
      : {}),
  };
}
