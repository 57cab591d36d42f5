/**
 * The Webhook manifest spec (selfhosted-api §3.3; hosted-api §2.1): where alerts send their
 * notifications. The URL (Slack URLs carry a token), the headers, the query parameters and the
 * body template are sensitive: never printed, compared by keyed fingerprints. The service's own
 * rules are checked here, so a bad webhook fails at validate time, not at apply time.
 */
import * as z from 'zod';
import type { WebhookSpecView } from './model.js';
import { WEBHOOK_SERVICES } from './model.js';
import { checkWhen, httpUrl, NO_CONTROL_PATTERN, NOT_BLANK_PATTERN, type WhenRule } from '../rules.js';

const SECRET = 'Sensitive: never printed, logged or exported; compared by a keyed fingerprint. Use ${env:NAME} or ${file:PATH}.';
const secret = (description: string) => ({ sensitive: true, description: `${description} ${SECRET}` });

// eslint-disable-next-line no-control-regex
const CONTROL = /[\r\n\t\x00-\x1F\x7F]/;
const noControl = (what: string) => [new RegExp(NO_CONTROL_PATTERN), { error: `${what} cannot contain control characters` }] as const;

/** HTTP token characters, not starting with a digit (the service's rule). */
function headerNameProblem(name: string): string | null {
  if (name === '') return 'a header name cannot be empty';
  if (name.length > 256) return 'a header name has at most 256 characters';
  if (!/^[!#$%&'*+\-.0-9A-Z^_`a-z|~]+$/.test(name)) return "a header name is letters, digits and !#$%&'*+-.^_`|~";
  return /^\d/.test(name) ? 'a header name cannot start with a digit' : null;
}
const headerValue = z
  .string()
  .max(4096)
  .regex(...noControl('header values'));
const queryValue = z
  .string()
  .max(4096)
  .regex(...noControl('query parameter values'));
const atMost100 = (what: string) =>
  [(m: Record<string, string>) => Object.keys(m).length <= 100, { error: `a webhook has at most 100 ${what}` }] as const;

/**
 * The service's rules for a slack webhook: its URL on a host ending in slack.com (any letter case;
 * user info and port allowed), and no headers, query parameters or body. Validate checks them and
 * the editor schema states them (src/config/json-schema.ts), both from this definition.
 */
export const SLACK_RULES: WhenRule = {
  when: { field: 'service', equals: 'slack' },
  patterns: [
    {
      field: 'url',
      pattern: String.raw`^[hH][tT][tT][pP][sS]?://([^\s/?#@]*@)?[^\s/?#@:]*[sS][lL][aA][cC][kK]\.[cC][oO][mM](:[0-9]*)?([/?#]\S*)?$`,
      message: "a slack webhook's URL is on a host ending in slack.com",
    },
  ],
  absent: (['headers', 'queryParams', 'body'] as const).map((field) => ({
    field,
    message: `${field} is not supported for the slack webhook service`,
  })),
};

export const webhookSpecSchema = z
  .strictObject({
    service: z
      .enum(WEBHOOK_SERVICES)
      .describe(
        'The kind of destination: slack (an incoming-webhook URL of Slack), generic (any HTTP endpoint) or incidentio (an ' +
          'incident.io alert source).',
      ),
    name: z
      .string()
      .trim()
      .regex(new RegExp(NOT_BLANK_PATTERN), { error: 'a webhook name cannot be blank' })
      .max(1024)
      .describe(
        'Name of the webhook on the service (1-1,024 characters, surrounding spaces dropped); unique per service. Alerts name it; ' +
          'with service, how an existing webhook is adopted.',
      ),
    url: httpUrl('the URL must be an http:// or https:// URL')
      .max(2048)
      .meta(secret('Where notifications are sent: an http(s) URL of at most 2,048 characters; for slack, on a host ending in slack.com.')),
    description: z.string().max(2048).optional().describe('What the webhook is for (at most 2,048 characters).'),
    body: z
      .string()
      .max(16384)
      .optional()
      .meta(
        secret('Body template of the request (at most 16,384 characters; not for slack). The service never returns it for incidentio.'),
      ),
    headers: z
      .record(z.string(), headerValue)
      .refine(...atMost100('headers'))
      .superRefine((headers, ctx) => {
        for (const name of Object.keys(headers)) {
          const problem = headerNameProblem(name);
          if (problem) ctx.addIssue({ code: 'custom', path: [name], message: problem });
        }
      })
      .optional()
      .meta(secret('Request headers, name → value (at most 100; not for slack). The service never returns them.')),
    queryParams: z
      .record(z.string(), queryValue)
      .refine(...atMost100('query parameters'))
      .superRefine((params, ctx) => {
        for (const key of Object.keys(params)) {
          const problem =
            key === ''
              ? 'a query parameter name cannot be empty'
              : key.length > 1024
                ? 'a query parameter name has at most 1,024 characters'
                : CONTROL.test(key)
                  ? 'query parameter names cannot contain control characters'
                  : null;
          if (problem) ctx.addIssue({ code: 'custom', path: [key], message: problem });
        }
      })
      .optional()
      .meta(secret('Query parameters added to the URL, name → value (at most 100; not for slack). The service never returns them.')),
  })
  .superRefine((spec, ctx) => checkWhen(SLACK_RULES, spec, ctx))
  .meta({
    id: 'WebhookSpec',
    description: 'A webhook of the service: where alerts send notifications (Slack, a generic HTTP endpoint, or incident.io).',
  });

export type WebhookSpec = z.output<typeof webhookSpecSchema>;
// The definition (./definition.ts) reads specs through WebhookSpecView: keep the schema assignable.
const _assignable: (s: WebhookSpec) => WebhookSpecView = (s) => s;
void _assignable;
