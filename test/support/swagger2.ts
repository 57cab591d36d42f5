/**
 * A Swagger 2.0 description (GitLab's, test/support/forge-openapi/gitlab.json) in the OpenAPI 3.0
 * shape the checks read (test/support/openapi-operations.ts). Nothing is added or loosened:
 * - `#/definitions/NAME` becomes `#/components/schemas/NAME`;
 * - a parameter's inline type (`type`, `format`, `items`, `enum`, bounds…) becomes its `schema`;
 * - the `in: body` parameter becomes the `requestBody` (application/json), `required` kept;
 * - `in: formData` parameters become the properties of one JSON object body (required ones
 *   required): GitLab's API (Grape) reads a parameter the same from a JSON body as from a form,
 *   and obsync sends JSON. Bracketed names (`a[b]`) are not nested; none of the vendored
 *   operations has formData parameters;
 * - a response's `schema` becomes `content['application/json'].schema`;
 * - `x-nullable: true` becomes OpenAPI 3.0's `nullable: true` (the vendored subset has none).
 */
import type { Description } from './openapi-operations.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
interface Swagger2Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'body' | 'formData';
  required?: boolean;
  schema?: Json;
  [key: string]: Json | undefined;
}
interface Swagger2Operation {
  operationId: string;
  parameters?: Swagger2Parameter[];
  responses: Record<string, { description: string; schema?: Json }>;
  [key: string]: unknown;
}
export interface Swagger2Description {
  swagger: '2.0';
  info: Record<string, unknown>;
  paths: Record<string, Record<string, Swagger2Operation>>;
  definitions: Record<string, Json>;
}

/** Parameter fields that are its type in Swagger 2.0 (they sit beside `name` and `in`). */
const TYPE_FIELDS = new Set(['type', 'format', 'items', 'enum', 'default', 'pattern', 'multipleOf']);
const isTypeField = (key: string) => TYPE_FIELDS.has(key) || /^(exclusiveM|m)(ax|in)(imum|Length|Items)$|^uniqueItems$/.test(key);

export function openApiFromSwagger2(description: Swagger2Description): Description {
  const paths: Description['paths'] = {};
  for (const [template, item] of Object.entries(description.paths)) {
    paths[template] = Object.fromEntries(
      Object.entries(item).map(([method, op]) => [method, convertOperation(op)] as const),
    ) as Description['paths'][string];
  }
  return { paths, components: { schemas: schemaTree(description.definitions) as Record<string, unknown> } };
}

function convertOperation(op: Swagger2Operation) {
  const all = op.parameters ?? [];
  const body = all.find((p) => p.in === 'body');
  const form = all.filter((p) => p.in === 'formData');
  const parameters = all
    .filter((p) => p.in !== 'body' && p.in !== 'formData')
    .map((p) => ({ name: p.name, in: p.in, required: p.required === true, schema: inlineSchema(p) }));
  const formBody = form.length > 0 ? formDataSchema(form) : undefined;
  const bodySchema = body?.schema === undefined ? formBody : schemaTree(body.schema);
  const requestBody =
    bodySchema === undefined
      ? undefined
      : { required: body?.required === true || form.some((p) => p.required), content: { 'application/json': { schema: bodySchema } } };
  const responses = Object.fromEntries(
    Object.entries(op.responses).map(([status, r]) => [
      status,
      r.schema === undefined
        ? { description: r.description }
        : { description: r.description, content: { 'application/json': { schema: schemaTree(r.schema) } } },
    ]),
  );
  return { operationId: op.operationId, parameters, ...(requestBody ? { requestBody } : {}), responses };
}

function inlineSchema(p: Swagger2Parameter): Json {
  return schemaTree(Object.fromEntries(Object.entries(p).filter(([key]) => isTypeField(key))) as Json);
}

function formDataSchema(form: Swagger2Parameter[]) {
  return {
    type: 'object',
    properties: Object.fromEntries(form.map((p) => [p.name, inlineSchema(p)])),
    required: form.filter((p) => p.required).map((p) => p.name),
  } as { [key: string]: Json };
}

/** A copy of a schema with its `$ref`s pointing into `components/schemas` and `x-nullable` as `nullable`. */
function schemaTree(value: Json): Json {
  if (Array.isArray(value)) return value.map(schemaTree);
  if (value === null || typeof value !== 'object') return value;
  const out: { [key: string]: Json } = {};
  for (const [key, inner] of Object.entries(value)) {
    if (key === '$ref' && typeof inner === 'string') out.$ref = inner.replace(/^#\/definitions\//, '#/components/schemas/');
    else if (key === 'x-nullable') out.nullable = inner;
    else out[key] = schemaTree(inner);
  }
  return out;
}
