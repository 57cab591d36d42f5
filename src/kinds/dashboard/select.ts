/** Select items, number formats, formulas and colours of dashboard tiles (selfhosted-api §3.1.4–3.1.5). */
import * as z from 'zod';

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
export const QUANTILE_LEVELS = [0.5, 0.9, 0.95, 0.99] as const;
export const METRIC_TYPES = ['gauge', 'histogram', 'sum', 'summary', 'exponential histogram'] as const;
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
const NUMERIC_UNITS = [
  'bytes_iec',
  'bytes_si',
  'bits_iec',
  'bits_si',
  'kibibytes',
  'kilobytes',
  'mebibytes',
  'megabytes',
  'gibibytes',
  'gigabytes',
  'tebibytes',
  'terabytes',
  'pebibytes',
  'petabytes',
  'packets_sec',
  'bytes_sec_iec',
  'bytes_sec_si',
  'bits_sec_iec',
  'bits_sec_si',
  'kibibytes_sec',
  'kibibits_sec',
  'kilobytes_sec',
  'kilobits_sec',
  'mebibytes_sec',
  'mebibits_sec',
  'megabytes_sec',
  'megabits_sec',
  'gibibytes_sec',
  'gibibits_sec',
  'gigabytes_sec',
  'gigabits_sec',
  'tebibytes_sec',
  'tebibits_sec',
  'terabytes_sec',
  'terabits_sec',
  'pebibytes_sec',
  'pebibits_sec',
  'petabytes_sec',
  'petabits_sec',
  'cps',
  'ops',
  'rps',
  'reads_sec',
  'wps',
  'iops',
  'cpm',
  'opm',
  'rpm_reads',
  'wpm',
] as const;

export const str10k = z.string().max(10000);
export const whereLanguage = z
  .enum(['sql', 'lucene', 'promql'])
  .describe('Language of the condition: sql, lucene or promql (the service assumes lucene).');
export const color = z.enum(PALETTE).describe('A palette colour token, e.g. chart-blue.');

export const numberFormat = z
  .strictObject({
    output: z
      .enum(['currency', 'percent', 'byte', 'time', 'duration', 'number', 'data_rate', 'throughput'])
      .describe('How the number is shown: currency, percent, byte, time, duration, number, data_rate or throughput.'),
    numericUnit: z
      .enum(NUMERIC_UNITS)
      .optional()
      .describe('Unit of the raw value for byte, data-rate and throughput outputs, e.g. bytes_iec, kibibytes, bits_sec_si, rps.'),
    mantissa: z.number().int().optional().describe('Digits after the decimal point.'),
    thousandSeparated: z.boolean().optional().describe('Whether thousands are separated (1,000).'),
    average: z.boolean().optional().describe('Whether large numbers are abbreviated (1.2k).'),
    decimalBytes: z.boolean().optional().describe('Whether bytes use powers of 1000 (kB) instead of 1024 (KiB).'),
    factor: z.number().optional().describe('Multiplier applied before formatting, e.g. 0.001 to show milliseconds as seconds.'),
    currencySymbol: z.string().optional().describe('Symbol of the currency output, e.g. $.'),
    unit: z.string().optional().describe('Unit text appended to the number.'),
  })
  .meta({ id: 'NumberFormat', description: 'How numbers are formatted in a chart or a series.' });

export const selectItem = z
  .strictObject({
    aggFn: z.enum(AGG_FNS).describe('Aggregation: avg, count, count_distinct, last_value, max, min, quantile, sum, any, none or increase.'),
    valueExpression: str10k
      .optional()
      .describe('Column or SQL expression aggregated, e.g. Duration. Required unless aggFn is count, which takes none.'),
    level: z
      .union(
        QUANTILE_LEVELS.map((l) => z.literal(l)),
        { error: () => `level must be one of ${QUANTILE_LEVELS.join(', ')}` },
      )
      .optional()
      .describe('Quantile level for aggFn quantile: 0.5, 0.9, 0.95 or 0.99 (required then, refused otherwise).'),
    alias: str10k.optional().describe('Name of the series in the legend.'),
    where: str10k.optional().describe('Condition on the rows aggregated (default: none).'),
    whereLanguage: whereLanguage.optional(),
    numberFormat: numberFormat.optional().describe('Number format of this series.'),
    metricType: z
      .enum(METRIC_TYPES)
      .optional()
      .describe('Metric type, for a metric source: gauge, histogram, sum, summary or exponential histogram.'),
    metricName: z.string().optional().describe('Metric name, for a metric source.'),
    periodAggFn: z.literal('delta').optional().describe('delta: aggregate the change per period (counters).'),
  })
  .meta({ id: 'SelectItem', description: 'One series of a chart: an aggregation of a column or expression of the source.' })
  .superRefine((item, ctx) => {
    const hasValue = item.valueExpression !== undefined && item.valueExpression !== '';
    if (item.aggFn === 'count' && hasValue)
      ctx.addIssue({
        code: 'custom',
        path: ['valueExpression'],
        message: 'Value expression cannot be used with count aggregation function',
      });
    if (item.aggFn !== 'count' && !hasValue)
      ctx.addIssue({
        code: 'custom',
        path: ['valueExpression'],
        message: `Value expression is required for non-count aggregation functions (aggFn ${item.aggFn})`,
      });
    if (item.level !== undefined && item.aggFn !== 'quantile')
      ctx.addIssue({ code: 'custom', path: ['level'], message: 'Level can only be used with quantile aggregation function' });
    if (item.aggFn === 'quantile' && item.level === undefined)
      ctx.addIssue({ code: 'custom', path: ['level'], message: `quantile needs a level (one of ${QUANTILE_LEVELS.join(', ')})` });
  });

export const formula = z
  .strictObject({
    expression: z
      .string()
      .min(1)
      .max(1024)
      .describe('Arithmetic over the series: A is select[0], B select[1], ...; + - * / and parentheses, e.g. A / B * 100.'),
    alias: z.string().optional().describe('Name of the computed series in the legend.'),
    numberFormat: numberFormat.optional().describe('Number format of the computed series.'),
  })
  .meta({ id: 'Formula', description: 'A series computed from the select items (not with asRatio).' });

const finite = z.number().refine(Number.isFinite, { error: 'must be a finite number' });
const ruleBase = {
  color: color.describe('Colour of the number when the rule matches.'),
  label: z.string().max(40).optional().describe('Text shown with the number when the rule matches (at most 40 characters).'),
};
export const colorRule = z
  .discriminatedUnion('operator', [
    z
      .strictObject({
        operator: z.enum(['gt', 'gte', 'lt', 'lte']).describe('Comparison with value: gt, gte, lt or lte.'),
        value: finite.describe('The number compared with.'),
        ...ruleBase,
      })
      .describe('Colour when the number compares with a value.'),
    z
      .strictObject({
        operator: z.literal('between').describe('The number lies in [low, high].'),
        value: z.tuple([finite, finite]).describe('[low, high].'),
        ...ruleBase,
      })
      .describe('Colour when the number lies in a range.'),
    z
      .strictObject({
        operator: z.enum(['eq', 'neq']).describe('Equal or not equal to value.'),
        value: z.union([finite, z.string().max(200)]).describe('A number, or a text of at most 200 characters.'),
        ...ruleBase,
      })
      .describe('Colour when the value equals (or not) a number or text.'),
  ])
  .meta({ id: 'ColorRule', description: 'Colours a number tile by its value; by operator.' });

export const backgroundChart = z
  .strictObject({ type: z.enum(['line', 'area']).describe('line or area.'), color: color.optional().describe('Colour of the chart.') })
  .meta({ id: 'BackgroundChart', description: 'A small chart of the series drawn behind the number.' });

const clickTarget = z
  .discriminatedUnion('mode', [
    z
      .strictObject({
        mode: z.literal('id').describe('A fixed target by server id.'),
        id: z.string().min(1).describe('Server id of the source (search) or dashboard (dashboard).'),
      })
      .describe('A fixed target.'),
    z
      .strictObject({
        mode: z.literal('template').describe('A target computed from the clicked row.'),
        template: z.string().min(1).max(10000).describe('Template of the target, with {{column}} placeholders.'),
      })
      .describe('A target computed from the row.'),
  ])
  .meta({ id: 'OnClickTarget', description: 'Where a click goes: a fixed id or a template.' });
const clickFilter = z
  .strictObject({
    kind: z.literal('expressionTemplate').describe('Always expressionTemplate.'),
    expression: z.string().min(1).max(10000).describe('Column or expression filtered on the target.'),
    template: z.string().min(1).max(10000).describe('Value, with {{column}} placeholders from the clicked row.'),
  })
  .describe('A filter passed to the target.');
const clickSearchLike = {
  target: clickTarget.describe('Where the click goes.'),
  whereTemplate: str10k.optional().describe('Condition passed to the target, with {{column}} placeholders.'),
  whereLanguage: whereLanguage.optional(),
  filters: z.array(clickFilter).max(50).optional().describe('Filters passed to the target (at most 50).'),
};
export const onClick = z
  .discriminatedUnion('type', [
    z
      .strictObject({ type: z.literal('search').describe('Open a search of a log or trace source.'), ...clickSearchLike })
      .describe('Open a search.'),
    z.strictObject({ type: z.literal('dashboard').describe('Open a dashboard.'), ...clickSearchLike }).describe('Open a dashboard.'),
    z
      .strictObject({
        type: z.literal('external').describe('Open a URL.'),
        urlTemplate: z.string().min(1).max(10000).describe('URL, with {{column}} placeholders from the clicked row.'),
      })
      .describe('Open a URL.'),
  ])
  .meta({ id: 'OnClick', description: 'What clicking a table row does; by type.' });
