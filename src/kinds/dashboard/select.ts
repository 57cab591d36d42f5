/** Select items, number formats, formulas and colours of dashboard tiles (selfhosted-api §3.1.4–3.1.5). */
import * as z from 'zod';

export const AGG_FNS = ['avg', 'count', 'count_distinct', 'last_value', 'max', 'min', 'quantile', 'sum', 'any', 'none', 'increase'] as const;
export const QUANTILE_LEVELS = [0.5, 0.9, 0.95, 0.99] as const;
export const METRIC_TYPES = ['gauge', 'histogram', 'sum', 'summary', 'exponential histogram'] as const;
export const PALETTE = [
  'chart-blue', 'chart-orange', 'chart-red', 'chart-cyan', 'chart-green', 'chart-pink', 'chart-purple',
  'chart-light-blue', 'chart-brown', 'chart-gray', 'chart-success', 'chart-warning', 'chart-error',
] as const;
const NUMERIC_UNITS = [
  'bytes_iec', 'bytes_si', 'bits_iec', 'bits_si', 'kibibytes', 'kilobytes', 'mebibytes', 'megabytes', 'gibibytes', 'gigabytes',
  'tebibytes', 'terabytes', 'pebibytes', 'petabytes', 'packets_sec', 'bytes_sec_iec', 'bytes_sec_si', 'bits_sec_iec', 'bits_sec_si',
  'kibibytes_sec', 'kibibits_sec', 'kilobytes_sec', 'kilobits_sec', 'mebibytes_sec', 'mebibits_sec', 'megabytes_sec', 'megabits_sec',
  'gibibytes_sec', 'gibibits_sec', 'gigabytes_sec', 'gigabits_sec', 'tebibytes_sec', 'tebibits_sec', 'terabytes_sec', 'terabits_sec',
  'pebibytes_sec', 'pebibits_sec', 'petabytes_sec', 'petabits_sec', 'cps', 'ops', 'rps', 'reads_sec', 'wps', 'iops', 'cpm', 'opm',
  'rpm_reads', 'wpm',
] as const;

export const str10k = z.string().max(10000);
export const whereLanguage = z.enum(['sql', 'lucene', 'promql']);
export const color = z.enum(PALETTE);

export const numberFormat = z.strictObject({
  output: z.enum(['currency', 'percent', 'byte', 'time', 'duration', 'number', 'data_rate', 'throughput']),
  numericUnit: z.enum(NUMERIC_UNITS).optional(),
  mantissa: z.number().int().optional(),
  thousandSeparated: z.boolean().optional(),
  average: z.boolean().optional(),
  decimalBytes: z.boolean().optional(),
  factor: z.number().optional(),
  currencySymbol: z.string().optional(),
  unit: z.string().optional(),
});

export const selectItem = z
  .strictObject({
    aggFn: z.enum(AGG_FNS),
    valueExpression: str10k.optional(),
    level: z.union(QUANTILE_LEVELS.map((l) => z.literal(l)), { error: () => `level must be one of ${QUANTILE_LEVELS.join(', ')}` }).optional(),
    alias: str10k.optional(),
    where: str10k.optional(),
    whereLanguage: whereLanguage.optional(),
    numberFormat: numberFormat.optional(),
    metricType: z.enum(METRIC_TYPES).optional(),
    metricName: z.string().optional(),
    periodAggFn: z.literal('delta').optional(),
  })
  .superRefine((item, ctx) => {
    const hasValue = item.valueExpression !== undefined && item.valueExpression !== '';
    if (item.aggFn === 'count' && hasValue) ctx.addIssue({ code: 'custom', path: ['valueExpression'], message: 'Value expression cannot be used with count aggregation function' });
    if (item.aggFn !== 'count' && !hasValue) ctx.addIssue({ code: 'custom', path: ['valueExpression'], message: `Value expression is required for non-count aggregation functions (aggFn ${item.aggFn})` });
    if (item.level !== undefined && item.aggFn !== 'quantile') ctx.addIssue({ code: 'custom', path: ['level'], message: 'Level can only be used with quantile aggregation function' });
    if (item.aggFn === 'quantile' && item.level === undefined) ctx.addIssue({ code: 'custom', path: ['level'], message: `quantile needs a level (one of ${QUANTILE_LEVELS.join(', ')})` });
  });

export const formula = z.strictObject({
  expression: z.string().min(1).max(1024),
  alias: z.string().optional(),
  numberFormat: numberFormat.optional(),
});

const finite = z.number().refine(Number.isFinite, { error: 'must be a finite number' });
const ruleBase = { color, label: z.string().max(40).optional() };
export const colorRule = z.discriminatedUnion('operator', [
  z.strictObject({ operator: z.enum(['gt', 'gte', 'lt', 'lte']), value: finite, ...ruleBase }),
  z.strictObject({ operator: z.literal('between'), value: z.tuple([finite, finite]), ...ruleBase }),
  z.strictObject({ operator: z.enum(['eq', 'neq']), value: z.union([finite, z.string().max(200)]), ...ruleBase }),
]);

export const backgroundChart = z.strictObject({ type: z.enum(['line', 'area']), color: color.optional() });

const clickTarget = z.discriminatedUnion('mode', [
  z.strictObject({ mode: z.literal('id'), id: z.string().min(1) }),
  z.strictObject({ mode: z.literal('template'), template: z.string().min(1).max(10000) }),
]);
const clickFilter = z.strictObject({ kind: z.literal('expressionTemplate'), expression: z.string().min(1).max(10000), template: z.string().min(1).max(10000) });
const clickSearchLike = {
  target: clickTarget,
  whereTemplate: str10k.optional(),
  whereLanguage: whereLanguage.optional(),
  filters: z.array(clickFilter).max(50).optional(),
};
export const onClick = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('search'), ...clickSearchLike }),
  z.strictObject({ type: z.literal('dashboard'), ...clickSearchLike }),
  z.strictObject({ type: z.literal('external'), urlTemplate: z.string().min(1).max(10000) }),
]);
