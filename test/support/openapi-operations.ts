/**
 * Requests and answers checked against the operations of an OpenAPI 3.0 description (the vendored
 * subsets in test/support/forge-openapi/, cut by scripts/forge-openapi-subset.js; GitLab's Swagger
 * 2.0 one is read in this shape through test/support/swagger2.ts), with ajv:
 * - the description is added whole (`validateSchema: false`: its `examples` maps are OpenAPI's, not
 *   JSON Schema's) and each piece compiled once, by JSON pointer, so its `#/components/…` refs resolve;
 * - OpenAPI 3.0's `nullable: true` is ajv's own keyword (every `nullable` in the subsets sits beside a
 *   `type`, which ajv requires); `example`, `x-github` and other annotations are ignored (`strict: false`);
 * - requests are closed, answers are open. A body field or query parameter the operation does not
 *   list is a violation (the description leaves request bodies open, but a field the forge does not
 *   know is a client bug the tests must see); an answer may carry more than the schema lists, as
 *   the forges' real answers do, but every required field must be there with its documented type.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
}
interface Operation {
  operationId: string;
  parameters?: (Parameter & { $ref?: string })[];
  requestBody?: { required?: boolean; content: Record<string, { schema: { properties?: object; $ref?: string } }> };
  responses: Record<string, { $ref?: string; content?: Record<string, unknown> }>;
}
export interface Description {
  paths: Record<string, Record<string, Operation>>;
  components: Record<string, Record<string, unknown>>;
}
export interface Request {
  method: string;
  pathname: string;
  query: Record<string, string>;
  body: unknown;
}
export interface CheckedOperation {
  operationId: string;
  /** The template's `{name}`s of the request's path. */
  pathParams: Record<string, string>;
  /** What the request does that the description does not allow; empty when it conforms. */
  problems: string[];
}
export interface OperationChecker {
  request(req: Request): CheckedOperation | undefined;
  response(operationId: string, status: number, body: unknown): string[];
}

const pointer = (...keys: string[]) => `#/${keys.map((k) => k.replaceAll('~', '~0').replaceAll('/', '~1')).join('/')}`;

export function operationChecker(description: Description): OperationChecker {
  const ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false, logger: false, coerceTypes: false });
  // Path and query parameters arrive as text: typed as the description says, coerced.
  const text = new Ajv({ strict: false, allErrors: true, validateSchema: false, logger: false, coerceTypes: true });
  for (const a of [ajv, text]) {
    addFormats(a);
    a.addSchema({ $id: 'openapi', paths: description.paths, components: description.components });
  }
  const ref = (at: string) => `openapi${at}`;
  const deref = <T>(value: T & { $ref?: string }): { at: string | undefined; value: T } => {
    if (!value.$ref) return { at: undefined, value };
    const [, section = '', name = ''] = value.$ref.slice(2).split('/');
    return { at: pointer('components', section, name), value: description.components[section]?.[name] as T };
  };

  const routes = Object.entries(description.paths).flatMap(([template, item]) =>
    Object.entries(item).map(([method, op]) => {
      const names = [...template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] ?? '');
      const pattern = new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}/g, '([^/]+)')}$`);
      return { method: method.toUpperCase(), pattern, names, op, ...compileOperation(template, method, op) };
    }),
  );

  function compileOperation(template: string, method: string, op: Operation) {
    const byPlace: Record<string, { properties: Record<string, object>; required: string[] }> = {};
    (op.parameters ?? []).forEach((raw, i) => {
      const { at, value } = deref<Parameter>(raw);
      const place = (byPlace[value.in] ??= { properties: {}, required: [] });
      place.properties[value.name] = { $ref: ref(`${at ?? pointer('paths', template, method, 'parameters', String(i))}/schema`) };
      if (value.required) place.required.push(value.name);
    });
    const params = Object.fromEntries(
      Object.entries(byPlace).map(([place, s]) => [place, text.compile({ type: 'object', ...s, additionalProperties: false })]),
    );
    // The body's own schema, and no top-level field beside those it lists.
    const json = op.requestBody?.content['application/json'];
    const body = json
      ? ajv.compile({
          allOf: [{ $ref: ref(pointer('paths', template, method, 'requestBody', 'content', 'application/json', 'schema')) }],
          properties: Object.fromEntries(Object.keys(deref(json.schema).value.properties ?? {}).map((k) => [k, true])),
          additionalProperties: false,
        })
      : undefined;
    const responses = new Map<string, ValidateFunction>();
    for (const [status, raw] of Object.entries(op.responses)) {
      const { at, value } = deref(raw);
      if (!value.content?.['application/json']) continue;
      const base = at ?? pointer('paths', template, method, 'responses', status);
      responses.set(status, ajv.compile({ $ref: ref(`${base}/content/application~1json/schema`) }));
    }
    return { params, body, bodyRequired: op.requestBody?.required === true, responses };
  }

  return {
    request(req) {
      for (const route of routes) {
        const match = route.method === req.method ? route.pattern.exec(req.pathname) : null;
        if (!match) continue;
        const pathParams = Object.fromEntries(route.names.map((n, i) => [n, decodeURIComponent(match[i + 1] ?? '')]));
        const problems = [
          ...run(route.params.path, { ...pathParams }, 'path'), // copies: coercion rewrites the value it checks
          ...run(route.params.query ?? text.compile({ type: 'object', additionalProperties: false }), { ...req.query }, 'query'),
        ];
        if (req.body === undefined) {
          if (route.bodyRequired) problems.push('body: required');
        } else if (!route.body) problems.push('body: the operation takes none');
        else problems.push(...run(route.body, req.body, 'body'));
        return { operationId: route.op.operationId, pathParams, problems };
      }
      return undefined;
    },
    response(operationId, status, body) {
      const route = routes.find((r) => r.op.operationId === operationId);
      const validate = route?.responses.get(String(status));
      if (!validate) return [`${operationId} documents no JSON answer ${status}`];
      return run(validate, body, `answer ${status}`);
    },
  };
}

function run(validate: ValidateFunction | undefined, value: unknown, where: string): string[] {
  if (!validate || validate(value)) return [];
  return (validate.errors ?? []).map((e: ErrorObject) =>
    `${where}${e.instancePath || ''} ${e.message ?? 'is invalid'} ${describeParams(e)}`.trim(),
  );
}

function describeParams(e: ErrorObject): string {
  const p = e.params as Record<string, unknown>;
  const detail = p.additionalProperty ?? p.missingProperty ?? p.allowedValues;
  return detail === undefined ? '' : `(${JSON.stringify(detail)})`;
}
