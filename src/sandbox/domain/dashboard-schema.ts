/**
 * zod schema of a dashboard body (reference §3.1.1, §3.1.2, §3.1.7, §3.1.8): tiles (config or
 * legacy series), filters (strict; `id` forbidden on create, required on update), containers.
 * Cross-field rules that need no stored data are zod refinements, so their failures read
 * `Body validation failed: <path>: <msg>`.
 */
import * as z from 'zod';
import { formulaProblem } from './formulas.js';
import { aggFn, METRIC_TYPES, objectId, tileConfig, type TileConfig } from './tile-config-schema.js';

const legacyCommon = {
  sourceId: objectId,
  aggFn,
  level: z.number().min(0).max(1).optional(),
  field: z.string().optional(),
  alias: z.string().optional(),
  where: z.string(),
  whereLanguage: z.enum(['sql', 'lucene', 'promql']).optional(),
  numberFormat: z.looseObject({ output: z.string() }).optional(),
  metricDataType: z.enum(METRIC_TYPES).optional(),
  metricName: z.string().optional(),
};
export const legacySeries = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('time'),
    ...legacyCommon,
    groupBy: z.array(z.string()).max(10),
    displayType: z.enum(['line', 'stacked_bar']).optional(),
  }),
  z.object({
    type: z.literal('table'),
    ...legacyCommon,
    groupBy: z.array(z.string()).max(10),
    sortOrder: z.enum(['asc', 'desc']).optional(),
  }),
  z.object({ type: z.literal('number'), ...legacyCommon }),
  z.object({
    type: z.literal('search'),
    sourceId: objectId,
    fields: z.array(z.string()),
    where: z.string(),
    whereLanguage: z.enum(['sql', 'lucene']).optional(),
  }),
  z.object({ type: z.literal('markdown'), content: z.string().max(100000) }),
]);
export type LegacySeries = z.output<typeof legacySeries>;

const ref = z.string().min(1).max(256);
const tile = z.object({
  id: z.string().max(36).optional(),
  name: z.string(),
  x: z.number().min(0).max(23),
  y: z.number().min(0),
  w: z.number().min(1).max(24),
  h: z.number().min(1),
  config: tileConfig.optional(),
  series: z.array(legacySeries).min(1).optional(),
  asRatio: z.boolean().optional(),
  containerId: ref.optional(),
  tabId: ref.optional(),
});
export type TileInput = z.output<typeof tile>;

const container = z.object({
  id: ref,
  title: ref,
  collapsed: z.boolean(),
  collapsible: z.boolean().optional(),
  bordered: z.boolean().optional(),
  tabs: z
    .array(z.object({ id: ref, title: ref }))
    .max(20)
    .optional(),
});
export type ContainerInput = z.output<typeof container>;

const filterFields = {
  type: z.literal('QUERY_EXPRESSION'),
  name: z.string().min(1),
  expression: z.string().min(1),
  sourceId: objectId,
  sourceMetricType: z.enum(METRIC_TYPES).optional(),
  where: z.string().optional(),
  whereLanguage: z.enum(['sql', 'lucene']).optional(),
  appliesToSourceIds: z.array(z.string().min(1)).optional(),
  isBroadcastEnabled: z.boolean().optional(),
  isVariableEnabled: z.boolean().optional(),
  variableName: z
    .string()
    .max(64)
    .regex(/^[A-Za-z][A-Za-z0-9_]*$/)
    .optional(),
};
const createFilter = z.strictObject(filterFields);
const updateFilter = z.strictObject({ id: z.string({ error: 'Required on an update' }), ...filterFields });
export type FilterInput = z.output<typeof createFilter> & { id?: string };

/**
 * A saved filter value: a SQL condition, or (hyperdx newer than b52a6fa8: api `utils/zod.ts`
 * `externalDashboardSavedFilterValueSchema` @ 011f0b3a; Cloud spec 2026-09-05) a selection
 * addressed by the dashboard variable it belongs to, kept as sent (an empty `values` is a selection).
 */
const savedFilterValue = z.union([
  z.object({ type: z.literal('sql').default('sql'), condition: z.string().max(10000) }),
  z.strictObject({ type: z.literal('variable'), name: z.string(), values: z.array(z.string()) }),
]);

type Ctx = z.core.$RefinementCtx;

function checkConfigRules(config: TileConfig, path: (string | number)[], ctx: Ctx): void {
  if ('configType' in config || !('select' in config) || typeof config.select === 'string') return;
  const selects = config.select.length;
  const formulas = 'formulas' in config ? (config.formulas ?? []) : [];
  const issue = (message: string, at: (string | number)[]) => ctx.addIssue({ code: 'custom', message, path: [...path, ...at] });
  if ('asRatio' in config && config.asRatio === true) {
    if (selects !== 2) issue('asRatio can only be used with exactly two select items', ['asRatio']);
    if (formulas.length > 0) issue('Formulas cannot be combined with asRatio', ['formulas']);
  }
  if (config.displayType === 'number') {
    if (formulas.length === 0 && selects !== 1) issue('Number tiles support a single select item unless formulas are used', ['select']);
    if (formulas.length > 1) issue('Number charts support a single formula', ['formulas']);
  }
  formulas.forEach((f, i) => {
    const problem = formulaProblem(f.expression, selects);
    if (problem) issue(problem, ['formulas', i]);
  });
}

function checkTiles(tiles: TileInput[], ctx: Ctx): void {
  const seen = new Set<string>();
  tiles.forEach((t, i) => {
    const at = (message: string) => ctx.addIssue({ code: 'custom', message, path: ['tiles', i] });
    if (t.config && t.series) at('Tile cannot have both series and config');
    if (!t.config && !t.series) at('Tile must have either series or config');
    if (t.config && t.asRatio !== undefined)
      at('asRatio property is not supported when using config property. Specify config.asRatio instead.');
    if (t.series && new Set(t.series.map((s) => s.type)).size > 1) at('All series must have the same type');
    if (t.config) checkConfigRules(t.config, ['tiles', i, 'config'], ctx);
    if (t.id !== undefined && t.id !== '') {
      if (seen.has(t.id))
        ctx.addIssue({ code: 'custom', path: ['tiles'], message: `Duplicate tile ID: ${t.id}. Omit the ID to generate a unique one.` });
      seen.add(t.id);
    }
  });
}

function checkContainers(containers: ContainerInput[] | undefined, ctx: Ctx): void {
  const ids = new Set<string>();
  for (const c of containers ?? []) {
    if (ids.has(c.id)) ctx.addIssue({ code: 'custom', path: ['containers'], message: `Container IDs must be unique: "${c.id}"` });
    ids.add(c.id);
    const tabs = new Set<string>();
    for (const tab of c.tabs ?? []) {
      if (tabs.has(tab.id))
        ctx.addIssue({ code: 'custom', path: ['containers'], message: `Duplicate tab id "${tab.id}" in container "${c.id}"` });
      tabs.add(tab.id);
    }
  }
}

/** `deriveVariableName`: the display name made token-safe. */
function deriveVariableName(name: string): string {
  const sanitized = name
    .trim()
    .replace(/\s+/g, '_')
    .replace(/[^A-Za-z0-9_]+/g, '');
  return /^[0-9_]/.test(sanitized) ? `v${sanitized}` : sanitized;
}

/** The name a variable-enabled filter is referenced by (`getFilterVariableName`), or '' when none can be derived. */
export function effectiveVariableName(f: FilterInput): string {
  return f.variableName?.trim() || deriveVariableName(f.name);
}

const broadcasts = (f: FilterInput) => f.isBroadcastEnabled !== false;
const isVariable = (f: FilterInput) => f.isVariableEnabled === true;

/**
 * The three filter passes of hyperdx common-utils dashboardValidation.ts (b52a6fa8), in order and
 * with its paths and messages: variable names, modes, then fields gated on the mode that uses them.
 */
function checkFilters(filters: FilterInput[] | undefined, ctx: Ctx): void {
  const list = filters ?? [];
  const issue = (i: number, field: string, message: string) => ctx.addIssue({ code: 'custom', message, path: ['filters', i, field] });
  const seen = new Set<string>();
  list.forEach((f, i) => {
    if (!isVariable(f)) return;
    const name = effectiveVariableName(f);
    if (!name) return issue(i, 'variableName', `Variable name is required for filter "${f.name}"`);
    if (seen.has(name)) return issue(i, 'variableName', `Variable names must be unique: "${name}"`);
    seen.add(name);
  });
  list.forEach((f, i) => {
    if (!broadcasts(f) && !isVariable(f))
      issue(i, 'isBroadcastEnabled', `Filter "${f.name}" must broadcast its value, be available as a variable, or both`);
  });
  list.forEach((f, i) => {
    if (f.variableName !== undefined && !isVariable(f)) {
      issue(
        i,
        'variableName',
        `Filter "${f.name}" sets variableName but is not available as a variable; set isVariableEnabled to true or drop variableName`,
      );
    }
    if ((f.appliesToSourceIds?.length ?? 0) > 0 && !broadcasts(f)) {
      issue(
        i,
        'appliesToSourceIds',
        `Filter "${f.name}" sets appliesToSourceIds but does not broadcast its value; set isBroadcastEnabled ` +
          `to true or drop appliesToSourceIds`,
      );
    }
  });
}

function buildBodySchema(mode: 'create' | 'update') {
  return z
    .object({
      name: z.string().max(1024),
      tiles: z.array(tile).max(500),
      tags: z.array(z.string().max(32)).max(50).optional(),
      filters: z.array(mode === 'create' ? createFilter : updateFilter).optional(),
      savedQuery: z.string().nullable().optional(),
      savedQueryLanguage: z.enum(['sql', 'lucene', 'promql']).nullable().optional(),
      savedFilterValues: z.array(savedFilterValue).optional(),
      containers: z.array(container).max(50).optional(),
    })
    .superRefine((body, ctx) => {
      if (typeof body.savedQuery === 'string' && body.savedQueryLanguage === null) {
        ctx.addIssue({
          code: 'custom',
          path: ['savedQueryLanguage'],
          message: 'savedQueryLanguage cannot be null when savedQuery is provided',
        });
      }
      checkTiles(body.tiles, ctx);
      checkContainers(body.containers, ctx);
      checkFilters(body.filters, ctx);
    });
}
// Built once: zod compiles a schema on its first parse, so building one per request dominated writes.
const BODY_SCHEMAS = { create: buildBodySchema('create'), update: buildBodySchema('update') };

export function dashboardBodySchema(mode: 'create' | 'update') {
  return BODY_SCHEMAS[mode];
}
export type DashboardBody = z.output<ReturnType<typeof dashboardBodySchema>>;
