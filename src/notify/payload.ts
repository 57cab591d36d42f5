/**
 * What a sink receives (issue 25). `generic`: obsync's own JSON document, whose schema is
 * docs/schema/notification.schema.json (generated from `genericPayloadSchema`). `slack`: a
 * Slack-compatible message, `text` (the fallback and what notifications show) and `blocks`.
 * Text from the service or the manifests is escaped for Slack (`<`, `>` and `&` would make
 * mentions and links), control characters are shown escaped, and no field value ever travels.
 */
import * as z from 'zod';
import { printable } from '../core/printable.js';
import { eventSchema, NOTIFICATION_CLASSES } from '../events/vocabulary.js';
import type { Notification } from './policy.js';

export const NOTIFICATION_SCHEMA_ID = 'obsync.notification/v1';

export const genericPayloadSchema = z
  .strictObject({
    schema: z.literal(NOTIFICATION_SCHEMA_ID).describe('The format of this document.'),
    kind: z
      .enum(NOTIFICATION_CLASSES)
      .describe('The state change: drift, healed, failed, recovered, adopted, refused, non-convergent or leader.'),
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
    event: eventSchema.describe('The event behind it (the same as /api/events serves).'),
  })
  .meta({ id: 'Notification', description: 'What a notification sink of type generic receives (HTTP POST, application/json).' });

export type GenericPayload = z.output<typeof genericPayloadSchema>;

export interface PayloadContext {
  version: string;
  replica: string;
  dropped: number;
}

export function genericPayload(n: Notification, ctx: PayloadContext): GenericPayload {
  return {
    schema: NOTIFICATION_SCHEMA_ID,
    kind: n.kind,
    target: n.target,
    time: n.time,
    severity: n.severity,
    summary: n.summary,
    ...(n.since ? { since: n.since } : {}),
    dropped: ctx.dropped,
    source: { version: ctx.version, replica: ctx.replica },
    event: n.event,
  };
}

const TITLE: Record<Notification['kind'], string> = {
  drift: 'Drift',
  healed: 'Healed',
  failed: 'Target failing',
  recovered: 'Target recovered',
  adopted: 'Object adopted',
  refused: 'Refused',
  'non-convergent': 'Not converging',
  leader: 'Leadership',
};
const ICON: Record<Notification['severity'], string> = { info: ':white_check_mark:', warning: ':warning:', error: ':rotating_light:' };
/** Slack's limit for a section's text is 3,000 characters. */
const MAX_TEXT = 2_900;

export interface SlackPayload {
  text: string;
  blocks: (
    | { type: 'section'; text: { type: 'mrkdwn'; text: string } }
    | { type: 'context'; elements: { type: 'mrkdwn'; text: string }[] }
  )[];
}

export function slackPayload(n: Notification, ctx: PayloadContext): SlackPayload {
  const title = `${TITLE[n.kind]} on ${n.target}`;
  const summary = cut(slackText(n.summary));
  const dropped = ctx.dropped > 0 ? ` · ${ctx.dropped} earlier notification(s) left out by the rate limit` : '';
  return {
    text: `${ICON[n.severity]} ${slackText(title)}: ${summary}`,
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text: `${ICON[n.severity]} *${slackText(title)}*\n${summary}` } },
      {
        type: 'context',
        elements: [
          { type: 'mrkdwn', text: `obsync ${slackText(ctx.version)} · ${slackText(ctx.replica)} · ${slackText(n.time)}${dropped}` },
        ],
      },
    ],
  };
}

/** Slack mrkdwn from hostile text: no mentions, links or markup can be made, control characters shown escaped. */
export function slackText(value: string): string {
  return printable(value).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function cut(text: string): string {
  return text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT - 1)}…` : text;
}
