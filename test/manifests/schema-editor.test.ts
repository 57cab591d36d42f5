/**
 * The JSON Schema editors use (`obsync schema`), checked the way editors and validators read it:
 * ajv in strict mode, a named definition for every kind and part, a description on every field,
 * sensitive fields marked with the standard `writeOnly` keyword, and the same verdict as `obsync validate` on the shipped
 * examples and on every file of the invalid corpus that JSON Schema can judge.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { parseAllDocuments } from 'yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { discoverFiles } from '../../src/manifests/discover.js';
import { INIT_CONFIG, INIT_EXAMPLE } from '../../src/cli/commands/init.js';
import { SENSITIVE_PATHS } from '../../src/kinds/sensitive-paths.js';
import { documentJsonSchema, EXTRA_RULES } from '../../src/config/json-schema.js';
import { SENSITIVE_KEYWORD } from '../../src/kinds/sensitive.js';
import * as z from 'zod';
import { manifestSchemaList } from '../../src/kinds/manifest.js';
import { configSchema } from '../../src/config/schema.js';
import { EXAMPLES, oneFieldAway, pathKey, seeds } from '../support/one-field-away.js';
import { KEYABLE_NAME_PATTERN, slugify } from '../../src/kinds/dashboard/schema.js';
import fc from 'fast-check';

const here = dirname(fileURLToPath(import.meta.url));
const examples = join(here, '../../config-examples');
const corpus = join(here, 'invalid');
type Json = Record<string, unknown>;

// ajv-formats is CommonJS with a default export.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

let schema: Json;
let validate: ValidateFunction;

beforeAll(() => {
  schema = documentJsonSchema();
  // Strict, with no keyword of obsync's registered: as a user's validator or CI step would compile it.
  const ajv = new Ajv({ strict: true, allErrors: true });
  addFormats(ajv);
  validate = ajv.compile(schema);
});

function documents(file: string): unknown[] {
  return parseAllDocuments(readFileSync(file, 'utf8')).map((d) => {
    if (d.errors.length > 0) throw new Error(`${file}: ${d.errors[0]?.message}`);
    return d.toJS() as unknown;
  });
}

function errorsOf(doc: unknown): ErrorObject[] {
  return validate(doc) ? [] : (validate.errors ?? []);
}

/** Every subschema, with its JSON pointer. */
function* walk(node: unknown, path = '#'): Generator<[string, Json]> {
  if (Array.isArray(node)) {
    for (const [i, v] of node.entries()) yield* walk(v, `${path}/${i}`);
    return;
  }
  if (typeof node !== 'object' || node === null) return;
  yield [path, node as Json];
  for (const [k, v] of Object.entries(node)) yield* walk(v, `${path}/${k}`);
}

function resolve(node: Json): Json {
  const [only] = Array.isArray(node.allOf) && node.allOf.length === 1 ? (node.allOf as Json[]) : [];
  const ref = node.$ref ?? only?.$ref;
  if (typeof ref !== 'string') return node;
  return (schema.definitions as Record<string, Json>)[ref.replace('#/definitions/', '')] ?? node;
}

describe('the editor schema', () => {
  it('compiles in ajv strict mode with nothing registered: standard keywords only, no extension', () => {
    expect(typeof validate).toBe('function');
    const keys = new Set([...walk(schema)].flatMap(([, n]) => Object.keys(n)).filter((k) => k.startsWith('x-')));
    expect([...keys]).toEqual([]);
  });

  it('names every definition after a kind or a part', () => {
    const names = Object.keys(schema.definitions as Json);
    expect(names).toEqual(
      expect.arrayContaining([
        'Dashboard',
        'Alert',
        'Pipe',
        'Config',
        'Tile',
        'TileConfig',
        'LineTile',
        'SelectItem',
        'AlertSpec',
        'PipeSettings',
        'HostedTarget',
      ]),
    );
    for (const name of names) expect(name).toMatch(/^[A-Z][A-Za-z]+$/);
    const refs = [...walk(schema)].map(([, n]) => n.$ref).filter((r): r is string => typeof r === 'string');
    for (const ref of refs) expect(names).toContain(ref.replace('#/definitions/', ''));
  });

  it('describes every field and every definition (editors show it on hover)', () => {
    const missing: string[] = [];
    // Fields live under properties; the if/else/not of rules and the then of a rule that is not a branch only constrain them.
    const isRule = (path: string, node: Json) =>
      /\/(if|else|not)(\/|$)/.test(path) ||
      (path.endsWith('/then') && node.description === undefined && node.$ref === undefined) ||
      (/\/allOf\/\d+$/.test(path) && node.then === undefined && node.$ref === undefined);
    const skipped: string[] = [];
    for (const [path, node] of walk(schema)) {
      if (skipped.some((p) => path.startsWith(`${p}/`)) || isRule(path, node)) {
        skipped.push(path);
        continue;
      }
      const props = node.properties;
      if (typeof props !== 'object' || props === null) continue;
      for (const [name, prop] of Object.entries(props as Record<string, Json | boolean>)) {
        if (typeof prop === 'boolean') continue; // `true`: declared for a rule's required, described where the field is
        if (typeof prop.description !== 'string' && typeof resolve(prop).description !== 'string')
          missing.push(`${path}/properties/${name}`);
      }
    }
    expect(missing).toEqual([]);
    for (const [name, def] of Object.entries(schema.definitions as Record<string, Json>))
      expect(def.description, name).toEqual(expect.any(String));
  });

  it('marks writeOnly every field the kinds mark sensitive, and the credentials of obsync.yaml', () => {
    const defs = schema.definitions as Record<string, Json>;
    const at = (start: Json, path: readonly string[]): Json | undefined =>
      path.reduce<Json | undefined>((node, key) => {
        const body = node && resolve(node);
        return (key === '*' ? body?.items : (body?.properties as Record<string, Json> | undefined)?.[key]) as Json | undefined;
      }, start);
    let count = 0;
    for (const [kind, paths] of SENSITIVE_PATHS) {
      for (const path of paths) {
        const field = at(defs[kind] ?? {}, ['spec', ...path]);
        expect(field?.[SENSITIVE_KEYWORD], `${kind} spec.${path.join('.')}`).toBe(true);
        count += 1;
      }
    }
    expect(count).toBeGreaterThanOrEqual(6);
    expect(at(defs.HostedTarget ?? {}, ['credentials', 'keySecret'])?.[SENSITIVE_KEYWORD]).toBe(true);
    expect(at(defs.SelfHostedTarget ?? {}, ['credentials', 'apiKey'])?.[SENSITIVE_KEYWORD]).toBe(true);
    expect([...walk(schema)].some(([, n]) => 'sensitive' in n)).toBe(false);
  });

  it('applies every extra rule to a definition that exists', () => {
    for (const id of Object.keys(EXTRA_RULES)) expect(Object.keys(schema.definitions as Json), id).toContain(id);
  });
});

describe('the schema and obsync validate agree', () => {
  it('on every shipped example: valid', () => {
    const { files } = discoverFiles([examples]);
    expect(files.length).toBeGreaterThanOrEqual(7);
    for (const file of files) for (const doc of documents(file)) expect(errorsOf(doc), file).toEqual([]);
  });

  it('on what obsync init writes: valid', () => {
    for (const text of [INIT_CONFIG, INIT_EXAMPLE]) {
      for (const doc of parseAllDocuments(text)) expect(errorsOf(doc.toJS())).toEqual([]);
    }
  });

  it('on Policy and AlertTest documents (read with the manifests, never objects): valid, and a misspelt field refused', () => {
    const policy = {
      apiVersion: 'obsync/v1',
      kind: 'Policy',
      metadata: { name: 'conventions' },
      spec: {
        rules: [{ id: 'positive', severity: 'error', kinds: ['Alert'], expression: 'object.spec.threshold > 0', message: 'above 0' }],
      },
    };
    const test = {
      apiVersion: 'obsync/v1',
      kind: 'AlertTest',
      metadata: { name: 'burst' },
      spec: { alert: 'errors-high', series: { checkout: '0 12 _', api: '0x3' }, expect: { notifications: 1 } },
    };
    expect(errorsOf(policy)).toEqual([]);
    expect(errorsOf(test)).toEqual([]);
    expect(errorsOf({ ...test, spec: { ...test.spec, expected: { firing: 1 } } }).length).toBeGreaterThan(0);
    expect(errorsOf({ ...policy, spec: { rules: [{ ...policy.spec.rules[0], severity: 'fatal' }] } }).length).toBeGreaterThan(0);
  });

  /** Mistakes JSON Schema cannot see: YAML itself, several documents together, interpolation. */
  const NOT_EXPRESSIBLE: Record<string, string> = {
    '01-yaml-syntax.yaml': 'not YAML',
    '07-duplicate-tile-key.yaml': 'uniqueness of a property across array items',
    '08-duplicate-identity.yaml': 'two documents',
    '09-alert-missing-dashboard.yaml': 'a reference to another document',
    '10-alert-missing-tile.yaml': 'a reference to another document',
    '15-missing-env.yaml': '${env:} is resolved by the loader',
    '16-alias-bomb.yaml': 'rejected while reading the YAML',
    '25-duplicate-yaml-key.yaml': 'not YAML (duplicate key)',
    '26-missing-file-reference.yaml': '${file:} is resolved by the loader',
    '32-unknown-container.yaml': 'a reference within the document (containerId to containers[].id)',
    '39-follow-on-after-yaml-error.yaml': 'not YAML (a tab), and a reference to another document',
  };
  const files = readdirSync(corpus)
    .filter((f) => f.endsWith('.yaml'))
    .sort();

  it.each(files.filter((f) => !(f in NOT_EXPRESSIBLE)))('on %s: invalid', (file) => {
    const docs = documents(join(corpus, file));
    expect(docs.some((d) => errorsOf(d).length > 0)).toBe(true);
  });

  it('classifies every corpus file', () => {
    for (const f of Object.keys(NOT_EXPRESSIBLE)) expect(files).toContain(f);
    expect(files.length - Object.keys(NOT_EXPRESSIBLE).length).toBeGreaterThanOrEqual(19);
  });
});

describe('interpolation in the editor', () => {
  const alert = (threshold: unknown): Json => ({
    apiVersion: 'obsync/v1',
    kind: 'Alert',
    metadata: { name: 'a' },
    spec: { savedSearch: 'Errors', interval: '5m', threshold, thresholdType: 'above', channel: { type: 'webhook', webhook: 'w' } },
  });

  it('takes a whole ${env:}, ${file:} or ${var:} where the loader resolves one before checking the type, and nothing else', () => {
    expect(errorsOf(alert('${var:p99Threshold}'))).toEqual([]);
    expect(errorsOf(alert('${env:THRESHOLD}'))).toEqual([]);
    expect(errorsOf(alert('high')).length).toBeGreaterThan(0);
    expect(errorsOf(alert('${var:a} and more')).length).toBeGreaterThan(0);
    const config = {
      apiVersion: 'obsync/v1',
      kind: 'Config',
      targets: [
        {
          name: 'prod',
          variant: 'hosted',
          baseUrl: '${env:PROD_URL}',
          organizationId: '${env:PROD_ORG}',
          serviceId: '${file:service-id.txt}',
          concurrency: '${var:x}',
        },
      ],
    };
    expect(errorsOf(config)).toEqual([]);
    expect(errorsOf({ ...config, targets: [{ ...config.targets[0], organizationId: 'not-a-uuid' }] }).length).toBeGreaterThan(0);
  });
});

describe('discriminated unions', () => {
  const dashboard = (config: Json): Json => ({
    apiVersion: 'obsync/v1',
    kind: 'Dashboard',
    metadata: { name: 'd' },
    spec: { name: 'D', tiles: [{ name: 't', x: 0, y: 0, w: 1, h: 1, config }] },
  });

  it('report the errors of the branch the discriminator picks, not of every branch', () => {
    const errors = errorsOf(dashboard({ displayType: 'line', source: 'Traces' }));
    // The if/then chain adds "must match then" along the way; the one real error is the line tile's.
    const real = errors.filter((e) => e.keyword !== 'if').map((e) => `${e.instancePath} ${e.message ?? ''}`);
    expect(real).toEqual(["/spec/tiles/0/config must have required property 'select'"]);
    expect(errors.length).toBeLessThanOrEqual(4);
  });

  it('name the allowed values of the discriminator', () => {
    const errors = errorsOf(dashboard({ displayType: 'sparkline', source: 'Traces' }));
    const allowed = (
      errors.find((e) => e.instancePath === '/spec/tiles/0/config/displayType')?.params as { allowedValues?: unknown[] } | undefined
    )?.allowedValues;
    expect(allowed).toEqual(expect.arrayContaining(['line', 'markdown']));
  });

  it('pick Raw SQL by configType', () => {
    expect(errorsOf(dashboard({ configType: 'sql', displayType: 'line', connection: 'ch', sqlTemplate: 'SELECT 1' }))).toEqual([]);
    const errors = errorsOf(dashboard({ configType: 'sql', displayType: 'heatmap', connection: 'ch', sqlTemplate: 'SELECT 1' }));
    expect(errors.some((e) => e.instancePath === '/spec/tiles/0/config/displayType')).toBe(true);
  });
});

/** Refusals JSON Schema cannot state, matched on `Kind path: validate's message`, with why. */
const INEXPRESSIBLE: readonly { rule: RegExp; why: string }[] = [
  { rule: /^Alert spec\.thresholdMax: thresholdMax must be greater than or equal to threshold$/, why: 'compares two fields' },
  { rule: /^Dashboard spec\.tiles\.\*\.key: duplicate tile key '/, why: 'uniqueness of a property across array items' },
];

describe('every refusal of obsync validate one field away from a valid document has a schema counterpart', () => {
  it('the schema refuses each too, but what JSON Schema cannot say (listed, and each still met)', () => {
    const zod = z.discriminatedUnion('kind', [...manifestSchemaList(), configSchema]);
    const valid = seeds(EXAMPLES);
    expect(valid.filter((d) => !zod.safeParse(d).success)).toEqual([]);
    expect(valid.length).toBeGreaterThanOrEqual(20);
    const gaps = new Map<string, string>();
    let refused = 0;
    for (const { kind, doc } of oneFieldAway(valid)) {
      const verdict = zod.safeParse(doc);
      if (verdict.success) continue;
      refused += 1;
      if (!validate(doc)) continue;
      const issue = verdict.error.issues[0];
      const path = (issue?.path ?? []).filter((p) => typeof p !== 'symbol');
      // obsync.yaml's notifications are named by their definition.
      const where =
        kind === 'Config' && path[0] === 'notifications' ? `NotificationSink ${pathKey(path.slice(2))}` : `${kind} ${pathKey(path)}`;
      const rule = `${where}: ${issue?.message ?? ''}`;
      if (!gaps.has(rule)) gaps.set(rule, JSON.stringify(doc).slice(0, 240));
    }
    expect(refused).toBeGreaterThan(2000);
    const known = (rule: string) => INEXPRESSIBLE.some((i) => i.rule.test(rule));
    expect(Object.fromEntries([...gaps].filter(([rule]) => !known(rule)))).toEqual({});
    expect(INEXPRESSIBLE.filter((i) => ![...gaps.keys()].some((rule) => i.rule.test(rule))).map((i) => i.why)).toEqual([]);
  });

  it("a tile without a key: the schema's pattern on its name is exactly validate's rule (its slug is not empty)", () => {
    const keyable = new RegExp(KEYABLE_NAME_PATTERN, 'u');
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 6 }), (name) => keyable.test(name) === (slugify(name) !== '')),
      {
        numRuns: 300,
      },
    );
    for (const name of ['\u0130', '\u212A', '--', 'é', '_']) expect(keyable.test(name), name).toBe(slugify(name) !== '');
  });
});
