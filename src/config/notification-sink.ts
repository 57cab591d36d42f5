/**
 * A sink of `notifications:` (issues 25, 51): where the daemon tells people of state changes — a
 * Slack webhook, a generic webhook (obsync's JSON document, or the same as a CloudEvent; signed
 * and with custom headers if asked), or an Alertmanager (its API, so its routes deliver). The URL,
 * the headers and the signing secret are secrets: never printed, masked wherever they appear.
 */
import { HTTP_URL, urlSetting } from './url-setting.js';
import * as z from 'zod';
import { NOTIFICATION_CLASSES } from '../events/vocabulary.js';
import { targetName } from './target-name.js';

const SIGNING_SECRET = /^whsec_[A-Za-z0-9+/]+={0,2}$/;
/** What Standard Webhooks asks of a secret: 24 to 64 random bytes. */
const SIGNING_KEY_BYTES = { min: 24, max: 64 };
/** Headers obsync sets itself: a custom header may not replace them. */
const RESERVED_HEADERS = new Set([
  'content-type',
  'content-length',
  'transfer-encoding',
  'host',
  'connection',
  'user-agent',
  'webhook-id',
  'webhook-timestamp',
  'webhook-signature',
]);
// eslint-disable-next-line no-control-regex -- the point: header values cannot carry them
const CONTROL = /[\x00-\x1f\x7f]/;

function headerNameProblem(name: string): string | null {
  if (!/^[!#$%&'*+\-.^_`|~0-9A-Za-z]{1,256}$/.test(name)) return "a header name is 1-256 letters, digits and !#$%&'*+-.^_`|~";
  if (RESERVED_HEADERS.has(name.toLowerCase())) return `obsync sets the ${name.toLowerCase()} header itself`;
  return null;
}

function signingSecretProblem(secret: string): string | null {
  if (!SIGNING_SECRET.test(secret)) return 'a signing secret is whsec_ and base64 (e.g. "whsec_$(openssl rand -base64 32)")';
  const bytes = Buffer.from(secret.slice('whsec_'.length), 'base64').length;
  if (bytes < SIGNING_KEY_BYTES.min || bytes > SIGNING_KEY_BYTES.max)
    return (
      `a signing secret holds ${SIGNING_KEY_BYTES.min} to ${SIGNING_KEY_BYTES.max} random bytes (e.g. "whsec_$(openssl rand ` +
      `-base64 32)")`
    );
  return null;
}

export const notificationSinkConfig = z
  .strictObject({
    type: z
      .enum(['slack', 'generic', 'alertmanager'])
      .describe(
        "slack: a Slack incoming webhook (text and blocks); generic: obsync's JSON document (format: cloudevents for a CloudEvent); " +
          "alertmanager: alerts posted to an Alertmanager's API, routed by its configuration (docs/notifications.md).",
      ),
    url: urlSetting('the sink url', HTTP_URL, '"${env:SLACK_WEBHOOK_URL}"').meta({
      sensitive: true,
      description:
        'Where to POST, usually "${env:SLACK_WEBHOOK_URL}"; alertmanager: its base URL (obsync adds api/v2/alerts). A secret: never ' +
        'printed or logged; the sink is named by its position, notifications[0].',
    }),
    format: z
      .enum(['obsync', 'cloudevents'])
      .optional()
      .describe(
        'generic only: obsync (default: the document as it is) or cloudevents (the document as the data of a CloudEvent 1.0, ' +
          'structured mode, application/cloudevents+json).',
      ),
    headers: z
      .record(
        z.string(),
        z
          .string()
          .max(4096)
          .refine((v) => !CONTROL.test(v), 'header values cannot contain control characters'),
      )
      .superRefine((headers, ctx) => {
        if (Object.keys(headers).length > 20) ctx.addIssue({ code: 'custom', message: 'at most 20 headers' });
        for (const name of Object.keys(headers)) {
          const problem = headerNameProblem(name);
          if (problem) ctx.addIssue({ code: 'custom', path: [name], message: problem });
        }
      })
      .optional()
      .meta({
        sensitive: true,
        description:
          'generic and alertmanager: request headers sent with every POST, name → value (at most 20), e.g. Authorization for an ' +
          'Alertmanager behind a proxy. The values are secrets: never printed or logged.',
      }),
    signingSecret: z
      .string()
      .superRefine((secret, ctx) => {
        const problem = signingSecretProblem(secret);
        if (problem) ctx.addIssue({ code: 'custom', message: problem });
      })
      .optional()
      .meta({
        sensitive: true,
        description:
          'generic only: sign every POST in the Standard Webhooks form (webhook-id, webhook-timestamp, webhook-signature: ' +
          'v1,<HMAC-SHA256>) with this whsec_… secret (24-64 random bytes, base64), usually "${env:OBSYNC_WEBHOOK_SECRET}". A ' +
          'secret: never printed.',
      }),
    events: z
      .array(z.enum(NOTIFICATION_CLASSES))
      .min(1)
      .optional()
      .describe(
        'What to tell (default: all): drift (an owned object changed on the service), healed, failed (a target starts failing), ' +
          'recovered (its first good run after), adopted, refused, non-convergent, leader (leadership gained or lost), proposal ' +
          '(drift: propose), ignore-suggested (a field keeps changing on the service: an ignore rule is suggested).',
      ),
    targets: z.array(targetName).min(1).optional().describe('Only these targets (default: every target of the daemon).'),
    maxPerMinute: z
      .number()
      .int()
      .min(1)
      .max(600)
      .optional()
      .describe(
        'At most this many notifications a minute to this sink (default 20; what one run finds of one class is one notification); ' +
          'more are dropped, counted and announced with the next one.',
      ),
  })
  .superRefine((sink, ctx) => {
    const only = (key: 'format' | 'signingSecret' | 'headers', types: readonly string[], why = '') => {
      if (sink[key] !== undefined && !types.includes(sink.type))
        ctx.addIssue({ code: 'custom', path: [key], message: `${key} is for type ${types.join(' or ')}, not ${sink.type}${why}` });
    };
    only('format', ['generic']);
    only('signingSecret', ['generic']);
    only('headers', ['generic', 'alertmanager'], sink.type === 'slack' ? ' (a Slack webhook URL is its own credential)' : '');
    const events = sink.events;
    if (sink.type === 'alertmanager' && events && events.includes('failed') !== events.includes('recovered'))
      ctx.addIssue({
        code: 'custom',
        path: ['events'],
        message: 'an alertmanager sink takes failed and recovered together: recovered resolves the alert failed fires',
      });
  })
  .meta({ id: 'NotificationSink', description: 'A notification sink of obsync run: told once per state change.' });
