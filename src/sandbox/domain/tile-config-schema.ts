/**
 * zod schemas of a tile's `config` (reference §3.1.3–3.1.6): the builder union and the Raw SQL
 * union (`configType: "sql"`), both discriminated by `displayType`. Unknown keys are stripped.
 */
import * as z from 'zod';
import { ZOD3 } from './zod3-messages.js';

export const objectId = z.string().regex(/^[0-9a-fA-F]{24}$/, { error: 'Invalid ObjectId' });

export const AGG_FNS = [
  'avg',
  'count',
  'count_distinct',
  'last_value',
  'max',
  'min',
  'quantile',
  'sum',
  'any',
  'none',
  'increase',
] as const;
export const aggFn = z.enum(AGG_FNS);
export const METRIC_TYPES = ['gauge', 'histogram', 'sum', 'summary', 'exponential histogram'] as const;
const metricType = z.enum(METRIC_TYPES);
const language = z.enum(['sql', 'lucene', 'promql']);
const str = z.string().max(10000);

export const PALETTE = [
  'chart-blue',
  'chart-orange',
  'chart-red',
  'chart-cyan',
  'chart-green',
  'chart-pink',
  'chart-purple',
  'chart-light-blue',
  'chart-brown',
  'chart-gray',
  'chart-success',
  'chart-warning',
  'chart-error',
] as const;
const color = z.enum(PALETTE);

const numberFormat = z.object({
  output: z.enum(['currency', 'percent', 'byte', 'time', 'duration', 'number', 'data_rate', 'throughput']),
  numericUnit: z.string().optional(),
  mantissa: z.number().int().optional(),
  thousandSeparated: z.boolean().optional(),
  average: z.boolean().optional(),
  decimalBytes: z.boolean().optional(),
  factor: z.number().optional(),
  currencySymbol: z.string().optional(),
  unit: z.string().optional(),
});

export const selectItem = z
  .object({
    aggFn,
    valueExpression: str.optional(),
    level: z.union([z.literal(0.5), z.literal(0.9), z.literal(0.95), z.literal(0.99)]).optional(),
    alias: str.optional(),
    where: str.default(''),
    whereLanguage: language.optional(),
    numberFormat: numberFormat.optional(),
    metricType: metricType.optional(),
    metricName: z.string().optional(),
    periodAggFn: z.literal('delta').optional(),
  })
  .superRefine((s, ctx) => {
    const hasValue = s.valueExpression !== undefined && s.valueExpression !== '';
    if (s.aggFn === 'count' && hasValue) {
      ctx.addIssue({
        code: 'custom',
        path: ['valueExpression'],
        message: 'Value expression cannot be used with count aggregation function',
      });
    }
    if (s.aggFn !== 'count' && !hasValue) {
      ctx.addIssue({
        code: 'custom',
        path: ['valueExpression'],
        message: 'Value expression is required for non-count aggregation functions',
      });
    }
    if (s.level !== undefined && s.aggFn !== 'quantile') {
      ctx.addIssue({ code: 'custom', path: ['level'], message: 'Level can only be used with quantile aggregation function' });
    }
  });

const formula = z.object({ expression: z.string().max(1024), alias: z.string().optional(), numberFormat: numberFormat.optional() });
const select = z.array(selectItem).min(1).max(20);

const onClickTarget = z.discriminatedUnion('mode', [
  z.object({ mode: z.literal('id'), id: objectId }),
  z.object({ mode: z.literal('template'), template: z.string().min(1).max(10000) }),
]);
const onClickFilter = z.object({
  kind: z.literal('expressionTemplate'),
  expression: z.string().min(1).max(10000),
  template: z.string().min(1).max(10000),
});
const onClickLink = {
  target: onClickTarget,
  whereTemplate: str.optional(),
  whereLanguage: z.enum(['sql', 'lucene', 'promql']).optional(),
  filters: z.array(onClickFilter).max(50).optional(),
};
export const onClick = z.discriminatedUnion('type', [
  z.object({ type: z.literal('search'), ...onClickLink }),
  z.object({ type: z.literal('dashboard'), ...onClickLink }),
  z.object({ type: z.literal('external'), urlTemplate: z.string().min(1).max(10000) }),
]);

const finite = z.number();
const ruleBase = { color, label: z.string().max(40).optional() };
const colorRule = z.discriminatedUnion('operator', [
  z.object({ operator: z.enum(['gt', 'gte', 'lt', 'lte']), value: finite, ...ruleBase }),
  z.object({ operator: z.literal('between'), value: z.tuple([finite, finite]), ...ruleBase }),
  z.object({ operator: z.enum(['eq', 'neq']), value: z.union([finite, z.string().max(200)]), ...ruleBase }),
]);

const chartCommon = { sourceId: objectId, numberFormat: numberFormat.optional() };
const seriesCommon = {
  ...chartCommon,
  select,
  groupBy: str.optional(),
  asRatio: z.boolean().optional(),
  formulas: z.array(formula).max(10).optional(),
  showOperandSeries: z.boolean().optional(),
};
const bool = z.boolean().optional();
const seriesLimit = z.number().int().min(0).optional();

export const builderConfig = z.discriminatedUnion('displayType', [
  z.object({
    displayType: z.literal('line'),
    ...seriesCommon,
    alignDateRangeToGranularity: bool,
    fillNulls: bool,
    compareToPreviousPeriod: bool,
    fitYAxisToData: bool,
    seriesLimit,
  }),
  z.object({ displayType: z.literal('stacked_bar'), ...seriesCommon, alignDateRangeToGranularity: bool, fillNulls: bool, seriesLimit }),
  z.object({
    displayType: z.literal('table'),
    ...seriesCommon,
    having: str.optional(),
    orderBy: str.optional(),
    groupByColumnsOnLeft: bool,
    onClick: onClick.optional(),
  }),
  z.object({
    displayType: z.literal('number'),
    ...chartCommon,
    select,
    formulas: z.array(formula).max(10).optional(),
    showOperandSeries: bool,
    color: color.optional(),
    colorRules: z.array(colorRule).max(10).optional(),
    backgroundChart: z.object({ type: z.enum(['line', 'area']), color: color.optional() }).optional(),
  }),
  z.object({
    displayType: z.literal('pie'),
    ...chartCommon,
    select: z.array(selectItem).length(1),
    groupBy: str.optional(),
    orderBy: str.optional(),
    limit: z.number().int().min(0).optional(),
  }),
  z.object({
    displayType: z.literal('bar'),
    ...chartCommon,
    select: z.array(selectItem).length(1),
    groupBy: str.optional(),
    orderBy: str.optional(),
    limit: z.number().int().min(0).optional(),
  }),
  z.object({
    displayType: z.literal('heatmap'),
    ...chartCommon,
    select: z
      .array(
        z.object({
          valueExpression: z.string().min(1).max(10000),
          countExpression: str.optional(),
          heatmapScaleType: z.enum(['log', 'linear']).optional(),
        }),
      )
      .length(1),
    where: str.default(''),
    whereLanguage: language.optional(),
  }),
  z.object({ displayType: z.literal('markdown'), markdown: z.string().max(50000).optional() }),
  z.object({
    displayType: z.literal('search'),
    sourceId: objectId,
    select: str,
    where: str.default(''),
    whereLanguage: language.optional(),
  }),
  z.object({
    displayType: z.literal('event_patterns'),
    sourceId: objectId,
    select: str.default(''),
    where: str.default(''),
    whereLanguage: language.optional(),
  }),
]);

const sqlCommon = {
  configType: z.literal('sql'),
  connectionId: objectId,
  sqlTemplate: z.string().max(100000),
  sourceId: objectId.optional(),
  numberFormat: numberFormat.optional(),
};
export const sqlConfig = z.discriminatedUnion('displayType', [
  z.object({
    displayType: z.literal('line'),
    ...sqlCommon,
    compareToPreviousPeriod: bool,
    fillNulls: bool,
    alignDateRangeToGranularity: bool,
    fitYAxisToData: bool,
    seriesLimit,
  }),
  z.object({ displayType: z.literal('stacked_bar'), ...sqlCommon, fillNulls: bool, alignDateRangeToGranularity: bool, seriesLimit }),
  z.object({ displayType: z.literal('table'), ...sqlCommon, onClick: onClick.optional() }),
  z.object({ displayType: z.literal('number'), ...sqlCommon, color: color.optional() }),
  z.object({ displayType: z.literal('pie'), ...sqlCommon }),
  z.object({ displayType: z.literal('bar'), ...sqlCommon }),
]);

export type BuilderConfig = z.output<typeof builderConfig>;
export type SqlConfig = z.output<typeof sqlConfig>;
export type TileConfig = BuilderConfig | SqlConfig;

function isSqlConfig(value: unknown): boolean {
  return typeof value === 'object' && value !== null && (value as { configType?: unknown }).configType === 'sql';
}

/** Routes to the Raw SQL union when `configType === "sql"`, else to the builder union. */
export const tileConfig = z.unknown().transform((value, ctx): TileConfig => {
  const result = isSqlConfig(value) ? sqlConfig.safeParse(value, ZOD3) : builderConfig.safeParse(value, ZOD3);
  if (result.success) return result.data;
  for (const issue of result.error.issues) ctx.addIssue({ code: 'custom', message: issue.message, path: issue.path });
  return z.NEVER;
});
