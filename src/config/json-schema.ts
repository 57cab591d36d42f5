/**
 * The JSON Schema editors use to autocomplete and check manifests and obsync.yaml (`obsync
 * schema`, config-examples/obsync.schema.json, docs/reference). Built from the zod schemas:
 * definitions are named by their `.meta({ id })`, every field carries its description, the
 * `sensitive` marks become the standard `writeOnly` annotation (see SENSITIVE_KEYWORD), discriminated unions become if/then
 * chains (an error then names the branch the discriminator picked), and the cross-field rules
 * that JSON Schema can express are added here, next to the zod rules they mirror.
 */
import * as z from 'zod';
import { configSchema } from './schema.js';
import { ALERT_INTERVALS, INTERVAL_MINUTES } from '../kinds/alert/schema.js';
import { KEYABLE_NAME_PATTERN } from '../kinds/dashboard/schema.js';
import { alertTestDocumentSchema } from '../alert-tests/schema.js';
import { manifestSchemaList } from '../kinds/manifest.js';
import { policyDocumentSchema } from '../policy/policy-manifest.js';
import { KINDS } from '../kinds/registry.js';
import { SENSITIVE_KEYWORD } from '../kinds/sensitive.js';
import { whenJsonSchema } from '../kinds/rules.js';
import { SLACK_RULES } from '../kinds/webhook/schema.js';
import { setOwn } from '../core/json.js';
import { EDITOR_SCHEMA_URL } from '../core/published.js';

type Json = Record<string, unknown>;

const when = (property: string, value: Json): Json => ({ properties: { [property]: value }, required: [property] });
// `properties` beside `required`: ajv's strictRequired wants each required name declared where it is required.
const present = (...properties: string[]): Json => ({
  properties: Object.fromEntries(properties.map((p) => [p, true])),
  required: properties,
});
// Typed fragments: ajv's strict mode wants the type beside the keywords that apply to it.
const array = (rule: Json): Json => ({ type: 'array', ...rule });
const string = (rule: Json): Json => ({ type: 'string', ...rule });
const number = (rule: Json): Json => ({ type: 'number', ...rule });
const asRatioRule: Json = {
  if: when('asRatio', { const: true }),
  then: { properties: { select: array({ minItems: 2, maxItems: 2 }), formulas: array({ maxItems: 0 }) } },
};

/**
 * The superRefine rules of the kinds that JSON Schema can say, by definition id. The others
 * (unique tile keys, references between documents, formula letters, thresholdMax ≥ threshold)
 * are checked by `obsync validate` only.
 */
export const EXTRA_RULES: Record<string, Json[]> = {
  AlertSpec: [
    // What it watches: a tile (dashboard + tile) or a saved search, not both.
    {
      oneOf: [
        { ...present('dashboard', 'tile'), not: present('savedSearch') },
        { ...present('savedSearch'), not: { anyOf: [present('dashboard'), present('tile')] } },
      ],
    },
    { if: present('groupBy'), then: present('savedSearch') },
    // channel or channels, not both.
    { oneOf: [present('channel'), present('channels')] },
    {
      if: when('thresholdType', { enum: ['between', 'not_between'] }),
      then: present('thresholdMax'),
      else: { not: present('thresholdMax') },
    },
    ...ALERT_INTERVALS.map((interval) => ({
      if: when('interval', { const: interval }),
      // Whole minutes below the interval: none but 0 below 30s.
      then: { properties: { scheduleOffsetMinutes: number({ maximum: Math.ceil(INTERVAL_MINUTES[interval]) - 1 }) } },
    })),
    { if: present('scheduleStartAt'), then: { properties: { scheduleOffsetMinutes: number({ maximum: 0 }) } } },
  ],
  SelectItem: [
    {
      if: when('aggFn', { const: 'count' }),
      then: { properties: { valueExpression: string({ maxLength: 0 }) } },
      else: { properties: { valueExpression: string({ minLength: 1 }) }, required: ['valueExpression'] },
    },
    { if: when('aggFn', { const: 'quantile' }), then: present('level'), else: { not: present('level') } },
  ],
  Tile: [
    { dependencies: { tabId: ['containerId'] } },
    // Without a key, the key is the slug of the name: it must have one.
    { if: { not: present('key') }, then: { properties: { name: string({ pattern: KEYABLE_NAME_PATTERN }) } } },
  ],
  DashboardSpec: [{ if: when('savedQuery', { type: 'string' }), then: { properties: { savedQueryLanguage: { type: 'string' } } } }],
  DashboardFilter: [
    {
      if: when('isBroadcastEnabled', { const: false }),
      then: {
        properties: { isVariableEnabled: { const: true }, appliesToSourceIds: array({ maxItems: 0 }) },
        required: ['isVariableEnabled'],
      },
    },
    { if: present('variableName'), then: when('isVariableEnabled', { const: true }) },
  ],
  LineTile: [asRatioRule],
  StackedBarTile: [asRatioRule],
  TableTile: [asRatioRule],
  NumberTile: [
    { properties: { formulas: array({ maxItems: 1 }) } },
    { if: when('formulas', array({ minItems: 1 })), else: { properties: { select: array({ maxItems: 1 }) } } },
  ],
  PipeSpec: [{ anyOf: [present('id'), present('name')] }],
  // Made from the rule validate checks (src/kinds/rules.ts), not written again here.
  WebhookSpec: [whenJsonSchema(SLACK_RULES)],
  PipeSource: [{ type: 'object', minProperties: 1, maxProperties: 1 }],
};

/** The if/then rules made from unions: a clone of a union (`.meta()`, `.describe()`) inherits them from its parent. */
const unionRules = new WeakSet<object>();

/** zod's discriminated union (`oneOf`) as an if/then chain on the discriminator, which editors and validators report branch by branch. */
function discriminate(zodSchema: z.core.$ZodType, json: Json): void {
  const def = zodSchema._zod.def as { discriminator?: string; options?: z.core.$ZodType[] };
  const branches = json.oneOf;
  if (def.discriminator === undefined || !def.options || !Array.isArray(branches)) return;
  const inherited = Array.isArray(json.allOf) ? (json.allOf as object[]) : [];
  if (inherited.some((rule) => '$ref' in rule)) {
    delete json.oneOf; // a described use of a named union: the definition carries the rules
    return;
  }
  const key = def.discriminator;
  const options = def.options.map((option, i) => {
    const values = [...(option._zod.propValues?.[key] ?? [])];
    return { optional: values.includes(undefined), values: values.filter((v) => v !== undefined), branch: branches[i] as Json };
  });
  delete json.oneOf;
  json.type = 'object';
  const values = options.flatMap((o) => o.values);
  json.properties = { [key]: { enum: values, description: `Selects which fields apply: ${values.join(', ')}.` } };
  if (options.every((o) => !o.optional)) json.required = [key];
  if (inherited.some((rule) => unionRules.has(rule))) return;
  const rules = options.map(({ optional, values, branch }) => {
    const rule = { if: { properties: { [key]: { enum: values } }, ...(optional ? {} : { required: [key] }) }, then: branch };
    unionRules.add(rule);
    return rule;
  });
  json.allOf = [...inherited, ...rules];
}

function override(ctx: { zodSchema: z.core.$ZodType; jsonSchema: Json }): void {
  const { zodSchema, jsonSchema } = ctx;
  if (jsonSchema.sensitive === true) {
    delete jsonSchema.sensitive;
    setOwn(jsonSchema, SENSITIVE_KEYWORD, true);
  }
  discriminate(zodSchema, jsonSchema);
  const id = z.globalRegistry.get(zodSchema)?.id;
  const extra = id === undefined ? undefined : EXTRA_RULES[id];
  if (extra) jsonSchema.allOf = [...(Array.isArray(jsonSchema.allOf) ? (jsonSchema.allOf as Json[]) : []), ...extra];
}

/** `{allOf: [X]}` with nothing beside it is X (zod wraps a `$ref` so in draft-07). */
function simplify(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(simplify);
  if (typeof value !== 'object' || value === null) return value;
  const entries = Object.entries(value as Json).map(([k, v]) => [k, simplify(v)] as const);
  const obj: Json = Object.fromEntries(entries);
  const keys = Object.keys(obj);
  if (keys.length === 1 && keys[0] === 'allOf' && Array.isArray(obj.allOf) && obj.allOf.length === 1) return obj.allOf[0];
  return obj;
}

/**
 * A whole `${env:NAME}`, `${file:PATH}` or `${var:NAME}`: the loader resolves it before the
 * schema checks the value (a number field takes `${var:threshold}`), so editors accept it too.
 */
export const INTERPOLATION_DEFINITION: Json = {
  type: 'string',
  pattern: String.raw`^\$\{(env|file|var):[^}]+\}$`,
  description:
    'A value resolved when the document is loaded: ${env:NAME} (environment variable), ${file:PATH} (file contents) or ${var:NAME} ' +
    '(a var of the target, obsync.yaml targets[].vars). $${ is a literal ${; a value brought in is never read for references again.',
};

/** A field whose values a plain string would not pass (numbers, booleans, formatted or patterned text) also takes a whole reference. */
function takesReference(node: Json): boolean {
  if (node.const !== undefined || node.enum !== undefined) return false;
  const type = node.type;
  return (
    type === 'number' ||
    type === 'integer' ||
    type === 'boolean' ||
    (type === 'string' && (node.format !== undefined || node.pattern !== undefined))
  );
}

function allowReferences(value: unknown): void {
  if (Array.isArray(value)) return value.forEach(allowReferences);
  if (typeof value !== 'object' || value === null) return;
  const node = value as Json;
  const wrap = (child: unknown): unknown => {
    if (typeof child !== 'object' || child === null || Array.isArray(child) || !takesReference(child as Json)) return child;
    const { description, default: byDefault, [SENSITIVE_KEYWORD]: sensitive, ...rest } = child as Json;
    return {
      anyOf: [rest, { $ref: '#/definitions/Interpolation' }],
      ...(description !== undefined ? { description } : {}),
      ...(byDefault !== undefined ? { default: byDefault } : {}),
      ...(sensitive !== undefined ? { [SENSITIVE_KEYWORD]: sensitive } : {}),
    };
  };
  if (typeof node.properties === 'object' && node.properties !== null) {
    const props = node.properties as Json;
    for (const key of Object.keys(props)) setOwn(props, key, wrap(props[key]));
  }
  if (node.items !== undefined && !Array.isArray(node.items)) node.items = wrap(node.items);
  if (typeof node.additionalProperties === 'object') node.additionalProperties = wrap(node.additionalProperties);
  Object.values(node).forEach(allowReferences);
}

/** Draft-07, input types (defaulted fields optional): every manifest kind's documents and obsync.yaml. */
export function documentJsonSchema(): Json {
  const any = z.discriminatedUnion('kind', [...manifestSchemaList(), policyDocumentSchema, alertTestDocumentSchema, configSchema]);
  const schema = z.toJSONSchema(any, {
    target: 'draft-07',
    io: 'input',
    override: (ctx) => override(ctx as { zodSchema: z.core.$ZodType; jsonSchema: Json }),
  }) as Json;
  const { $schema, ...rest } = simplify(schema) as Json;
  allowReferences(rest);
  rest.definitions = { ...(rest.definitions as Json | undefined), Interpolation: INTERPOLATION_DEFINITION };
  const title = `obsync documents: ${KINDS.join(', ')} manifests, Policy and AlertTest documents and obsync.yaml (Config)`;
  return { $schema, $id: EDITOR_SCHEMA_URL, title, ...rest };
}
