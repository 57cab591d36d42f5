/**
 * What Alertmanager accepts on `POST /api/v2/alerts`, ported from prometheus/alertmanager (commit
 * 68fb2d5759b3a92c0bb2a1a13d4ef7ff5b06256d) for the tests of the alertmanager sink:
 * - the request body's schema: `postableAlerts` of api/v2/openapi.yaml (Swagger 2.0), as a
 *   draft-07 JSON Schema — an array of `postableAlert`, which is `alert` (labels required,
 *   generatorURL a URI) with startsAt and endsAt (date-time) and annotations (a `labelSet`: an
 *   object of strings);
 * - what the handler does to each alert and then refuses (postAlertsHandler in api/v2/api.go,
 *   Validate in alert/alert.go and alert/validate.go): labels with an empty value are dropped;
 *   the start must be set (obsync always sends it: Alertmanager would otherwise take the time of
 *   arrival) and not after the end; at least one label; every label name valid — the classic
 *   rule `[a-zA-Z_][a-zA-Z0-9_]*` (Alertmanager's UTF-8 mode accepts more: obsync keeps to what
 *   both modes accept); every label and annotation value valid UTF-8 (a lone surrogate is not).
 */
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';

const labelSet = { type: 'object', additionalProperties: { type: 'string' } };

export const POSTABLE_ALERTS_SCHEMA = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  definitions: {
    labelSet,
    alert: {
      type: 'object',
      properties: { labels: { $ref: '#/definitions/labelSet' }, generatorURL: { type: 'string', format: 'uri' } },
      required: ['labels'],
    },
    postableAlert: {
      allOf: [
        {
          type: 'object',
          properties: {
            startsAt: { type: 'string', format: 'date-time' },
            endsAt: { type: 'string', format: 'date-time' },
            annotations: { $ref: '#/definitions/labelSet' },
          },
        },
        { $ref: '#/definitions/alert' },
      ],
    },
  },
  type: 'array',
  items: { $ref: '#/definitions/postableAlert' },
} as const;

const CLASSIC_LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/** A lone surrogate cannot be encoded as UTF-8. */
const validUtf8 = (value: string) => !/\p{Cs}/u.test(value);

interface PostedAlert {
  labels: Record<string, string>;
  annotations?: Record<string, string>;
  startsAt?: string;
  endsAt?: string;
}

/** Alertmanager's Validate(), after the handler's clean-up, for one alert: the problems it would answer 400 with. */
function validateAlert(alert: PostedAlert): string[] {
  const labels = Object.fromEntries(Object.entries(alert.labels).filter(([, v]) => v !== ''));
  const problems: string[] = [];
  const startsAt = alert.startsAt === undefined ? undefined : Date.parse(alert.startsAt);
  const endsAt = alert.endsAt === undefined ? undefined : Date.parse(alert.endsAt);
  if (startsAt === undefined) problems.push('start time missing');
  if (startsAt !== undefined && endsAt !== undefined && endsAt < startsAt) problems.push('start time must be before end time');
  if (Object.keys(labels).length === 0) problems.push('at least one label pair required');
  for (const [name, value] of Object.entries(labels)) {
    if (!CLASSIC_LABEL_NAME.test(name)) problems.push(`invalid label set: invalid name "${name}"`);
    if (!validUtf8(value)) problems.push(`invalid label set: invalid value "${value}"`);
  }
  for (const [name, value] of Object.entries(alert.annotations ?? {})) {
    if (!CLASSIC_LABEL_NAME.test(name)) problems.push(`invalid annotations: invalid name "${name}"`);
    if (!validUtf8(value)) problems.push(`invalid annotations: invalid value "${value}"`);
  }
  return problems;
}

const ajv = new Ajv({ strict: true, allErrors: true });
addFormats.default(ajv);
const matchesSchema = ajv.compile(POSTABLE_ALERTS_SCHEMA);

/** Why Alertmanager would refuse this body (schema first, then each alert's validation); [] when it takes it. */
export function alertmanagerRefuses(body: unknown): string[] {
  if (!matchesSchema(body)) return (matchesSchema.errors ?? []).map((e) => `${e.instancePath} ${e.message ?? ''}`);
  return (body as PostedAlert[]).flatMap((alert, i) => validateAlert(alert).map((p) => `alert ${i}: ${p}`));
}
