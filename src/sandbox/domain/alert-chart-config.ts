/**
 * Inline alerts' `chartConfig` (hyperdx, newer than b52a6fa: utils/zod externalAlertChartConfigSchema as
 * v2/utils/__tests__/alertChartConfig.test.ts @ 9af7b7d5 pins it, controllers/alerts.ts validateAlertInput,
 * v2/utils/alertChartConfig.ts convertAlertChartConfigToExternal @ 1d0a5d50). The dialect is the v2
 * dashboard tile config for line, stacked bar and number charts, plus the alert-only `name` and, on
 * builder configs, a chart-level `where`/`whereLanguage`. Routing keys on `configType === "sql"`.
 */
import * as z from 'zod';
import type { JsonRecord } from './contract.js';
import { renderConfig } from './dashboard-output.js';
import { formulaProblem } from './formulas.js';
import { findById, type Store } from './store.js';
import { builderConfig, sqlConfig } from './tile-config-schema.js';
import { text } from './json.js';
import { ZOD3 } from './zod3-messages.js';

const ALERTABLE = ['line', 'stacked_bar', 'number'] as const;
const alertOnly = { name: z.string().max(10000).optional() };
const chartWhere = { where: z.string().max(10000).optional(), whereLanguage: z.enum(['sql', 'lucene']).optional() };

/** The union's members for the alertable display types (each member's `displayType` is a literal). */
function membersOf(union: z.ZodDiscriminatedUnion): z.ZodObject[] {
  const displayTypeOf = (o: z.ZodObject) => (o.shape.displayType as z.ZodLiteral<string>).value;
  return (union.options as z.ZodObject[]).filter((o) => (ALERTABLE as readonly string[]).includes(displayTypeOf(o)));
}

const builderAlertConfig = z.discriminatedUnion(
  'displayType',
  membersOf(builderConfig).map((o) => o.extend({ ...alertOnly, ...chartWhere })) as unknown as [z.ZodObject, z.ZodObject],
);
const sqlAlertConfig = z.discriminatedUnion(
  'displayType',
  membersOf(sqlConfig).map((o) => o.extend(alertOnly)) as unknown as [z.ZodObject, z.ZodObject],
);

type Ctx = z.core.$RefinementCtx;

/** The builder-only rules: formulas name existing series; a formula-less number chart has one select item. */
function builderRules(config: JsonRecord, ctx: Ctx): void {
  const select = Array.isArray(config.select) ? config.select : [];
  const formulas = Array.isArray(config.formulas) ? (config.formulas as JsonRecord[]) : [];
  for (const [i, f] of formulas.entries()) {
    const problem = formulaProblem(text(f.expression), select.length);
    if (problem) ctx.addIssue({ code: 'custom', message: problem, path: ['formulas', i, 'expression'] });
  }
  if (config.displayType === 'number' && formulas.length === 0 && select.length > 1) {
    ctx.addIssue({ code: 'custom', message: 'Number charts support a single select item', path: ['select'] });
  }
}

export const alertChartConfig = z.unknown().transform((value, ctx): JsonRecord => {
  const configType = typeof value === 'object' && value !== null ? (value as { configType?: unknown }).configType : undefined;
  if (configType !== undefined && configType !== 'sql') {
    ctx.addIssue({
      code: 'custom',
      message: 'configType must be "sql" or omitted (builder configs carry no configType)',
      path: ['configType'],
    });
    return z.NEVER;
  }
  const result = configType === 'sql' ? sqlAlertConfig.safeParse(value, ZOD3) : builderAlertConfig.safeParse(value, ZOD3);
  if (!result.success) {
    for (const issue of result.error.issues) ctx.addIssue({ code: 'custom', message: issue.message, path: issue.path });
    return z.NEVER;
  }
  const config = JSON.parse(JSON.stringify(result.data)) as JsonRecord;
  if (configType !== 'sql') builderRules(config, ctx);
  return config;
});

const INTERVAL_PARAM = /intervalSeconds|intervalMilliseconds|\$__timeInterval|\$__interval/;
const FORMULA_KINDS = ['metric', 'log', 'trace'];

/** validateAlertInput's `source === inline` branch: the message of the first problem, or undefined. */
export function inlineChartProblem(store: Store, config: JsonRecord | undefined): string | undefined {
  if (config == null) return 'Chart config is required';
  if (config.configType === 'sql') {
    if (config.displayType !== 'number' && !INTERVAL_PARAM.test(text(config.sqlTemplate ?? ''))) {
      return 'Raw SQL alert query is invalid: SQL used for alerts must include an interval parameter or macro.';
    }
    const connectionId = text(config.connectionId).toLowerCase();
    if (!findById(store.state.connections, connectionId)) return 'Connection not found';
    if (config.sourceId === undefined) return undefined;
    const source = findById(store.state.sources, text(config.sourceId).toLowerCase());
    if (!source) return 'Source not found';
    return text(source.connection).toLowerCase() === connectionId ? undefined : 'Source does not belong to the specified connection';
  }
  const source = findById(store.state.sources, text(config.sourceId).toLowerCase());
  if (!source) return 'Source not found';
  const formulas = Array.isArray(config.formulas) ? config.formulas : [];
  if (formulas.length > 0 && !FORMULA_KINDS.includes(text(source.kind)))
    return 'Alerts with formulas require a Metric, Log, or Trace source';
  return undefined;
}

/** convertAlertChartConfigToExternal: the tile converter's defaults, the name when set, a chart-level where when non-empty. */
export function renderAlertChartConfig(stored: JsonRecord): JsonRecord {
  const out = renderConfig(stored);
  if (!out.name) delete out.name;
  if (out.configType !== 'sql') {
    if (out.where) out.whereLanguage = out.whereLanguage ?? 'lucene';
    else {
      delete out.where;
      delete out.whereLanguage;
    }
  }
  return out;
}
