/**
 * Tile configs (selfhosted-api §3.1.3–3.1.6): builder and Raw SQL unions, both discriminated by
 * `displayType`. Sources and connections are references by name (resolved at plan time), not ids.
 */
import * as z from 'zod';
import { refTo } from '../ref-schema.js';
import { backgroundChart, color, colorRule, formula, numberFormat, onClick, selectItem, str10k, whereLanguage } from './select.js';

const source = refTo('source').describe('Source the chart reads (e.g. Traces, Logs, Metrics), by name, or {id: "..."}.');
const builder = {
  configType: z.literal('builder').optional().describe('builder (the default when absent): a chart built from select items.'),
  source,
};
const selects = z.array(selectItem).min(1).max(20).describe('The series (1-20).');
const oneSelect = z.array(selectItem).length(1, { error: 'this display type takes exactly one select item' }).describe('The one series.');
const formulas = z.array(formula).max(10).optional().describe('Series computed from the select items (at most 10); not with asRatio.');
const groupBy = str10k.optional().describe('Column(s) to split the series by, comma-separated, e.g. ServiceName.');
const numberFormatOf = numberFormat.optional().describe('Number format of the chart.');
const seriesLimit = z.number().int().min(0).optional().describe('Most series drawn (absent: the service default; 0: no limit).');
const fillNulls = z.boolean().optional().describe('Whether empty time buckets are drawn as 0.');
const alignDateRange = z.boolean().optional().describe('Whether the time range is aligned to the bucket size.');
const compareToPreviousPeriod = z.boolean().optional().describe('Whether the previous period is drawn for comparison.');
const fitYAxisToData = z.boolean().optional().describe('Whether the y axis starts at the lowest value instead of 0.');
const where = z.string().optional().describe('Condition on the rows (default: none).');
const series = {
  groupBy,
  asRatio: z.boolean().optional().describe('Draw select[0] / select[1] (needs exactly two select items; not with formulas).'),
  alignDateRangeToGranularity: alignDateRange,
  fillNulls,
  numberFormat: numberFormatOf,
  seriesLimit,
  formulas,
  showOperandSeries: z.boolean().optional().describe('Whether the series that formulas use are drawn too.'),
};

interface SeriesLike {
  select?: unknown[] | string;
  asRatio?: boolean | undefined;
  formulas?: { expression: string }[] | undefined;
}

/** asRatio and formula rules shared by the select-based builder configs. */
function checkSeries(cfg: SeriesLike, ctx: z.RefinementCtx): void {
  const count = Array.isArray(cfg.select) ? cfg.select.length : 0;
  if (cfg.asRatio === true && count !== 2)
    ctx.addIssue({ code: 'custom', path: ['asRatio'], message: 'asRatio can only be used with exactly two select items' });
  if (cfg.asRatio === true && cfg.formulas?.length)
    ctx.addIssue({ code: 'custom', path: ['formulas'], message: 'formulas cannot be combined with asRatio' });
  cfg.formulas?.forEach((f, i) => {
    const letters = f.expression.match(/[A-Z]/g) ?? [];
    if (letters.length === 0)
      ctx.addIssue({
        code: 'custom',
        path: ['formulas', i, 'expression'],
        message: 'a formula must reference at least one series (A = select[0], B = select[1], ...)',
      });
    for (const letter of new Set(letters)) {
      const index = letter.charCodeAt(0) - 65;
      if (index >= count)
        ctx.addIssue({
          code: 'custom',
          path: ['formulas', i, 'expression'],
          message: `Unknown series "${letter}" — the tile has ${count} select item(s) (A..${String.fromCharCode(64 + count)})`,
        });
    }
  });
}

const display = (type: string, what: string) => z.literal(type).describe(`${type}: ${what}`);
const line = z
  .strictObject({
    ...builder,
    displayType: display('line', 'series over time as lines.'),
    select: selects,
    ...series,
    compareToPreviousPeriod,
    fitYAxisToData,
  })
  .superRefine(checkSeries)
  .meta({ id: 'LineTile', description: 'A line chart of series over time.' });
const stackedBar = z
  .strictObject({ ...builder, displayType: display('stacked_bar', 'series over time as stacked bars.'), select: selects, ...series })
  .superRefine(checkSeries)
  .meta({ id: 'StackedBarTile', description: 'Stacked bars of series over time.' });
const table = z
  .strictObject({
    ...builder,
    displayType: display('table', 'one row per group.'),
    select: selects,
    groupBy,
    having: str10k.optional().describe('Condition on the aggregated rows (SQL HAVING).'),
    orderBy: str10k.optional().describe('Sort order of the rows, e.g. "count DESC".'),
    asRatio: series.asRatio,
    numberFormat: numberFormatOf,
    groupByColumnsOnLeft: z.boolean().optional().describe('Whether the group-by columns come first.'),
    onClick: onClick.optional().describe('What clicking a row does.'),
    formulas,
    showOperandSeries: series.showOperandSeries,
  })
  .superRefine(checkSeries)
  .meta({ id: 'TableTile', description: 'A table of aggregated values, one row per group.' });
const number = z
  .strictObject({
    ...builder,
    displayType: display('number', 'one big number.'),
    select: selects.describe('The series: exactly one, unless formulas are used.'),
    numberFormat: numberFormatOf,
    formulas: formulas.describe('At most one formula, computed from the select items.'),
    color: color.optional().describe('Colour of the number (default: the theme colour).'),
    colorRules: z
      .array(colorRule)
      .max(10)
      .optional()
      .describe('Rules that colour the number by its value (at most 10; the first that matches wins).'),
    backgroundChart: backgroundChart.optional().describe('A small chart of the series behind the number.'),
  })
  .superRefine((cfg, ctx) => {
    const hasFormulas = (cfg.formulas?.length ?? 0) > 0;
    if (!hasFormulas && cfg.select.length !== 1)
      ctx.addIssue({ code: 'custom', path: ['select'], message: 'Number tiles support a single select item unless formulas are used' });
    if ((cfg.formulas?.length ?? 0) > 1)
      ctx.addIssue({ code: 'custom', path: ['formulas'], message: 'Number charts support a single formula' });
    checkSeries(cfg, ctx);
  })
  .meta({ id: 'NumberTile', description: 'A single number (with optional colour rules and background chart).' });
const categorical = {
  ...builder,
  select: oneSelect,
  groupBy,
  orderBy: str10k.optional().describe('Sort order of the slices or bars.'),
  numberFormat: numberFormatOf,
  limit: z.number().int().min(0).optional().describe('Most slices or bars shown (0: no limit).'),
};
const pie = z
  .strictObject({ ...categorical, displayType: display('pie', 'one value split by group.') })
  .meta({ id: 'PieTile', description: 'A pie chart of one value split by group.' });
const bar = z
  .strictObject({ ...categorical, displayType: display('bar', 'one value per group as bars.') })
  .meta({ id: 'BarTile', description: 'Bars of one value per group (categorical).' });
const heatmapSelect = z
  .strictObject({
    valueExpression: z.string().min(1).max(10000).describe('Column or expression whose distribution is drawn, e.g. Duration.'),
    countExpression: str10k.optional().describe('Expression counted per cell (default: rows).'),
    heatmapScaleType: z.enum(['log', 'linear']).optional().describe('Scale of the value axis: log or linear.'),
  })
  .meta({ id: 'HeatmapSelectItem', description: 'The distribution a heatmap draws.' });
const heatmap = z
  .strictObject({
    ...builder,
    displayType: display('heatmap', 'the distribution of a value over time (Trace sources).'),
    select: z.array(heatmapSelect).length(1, { error: 'heatmap tiles take exactly one select item' }).describe('Exactly one item.'),
    where,
    whereLanguage: whereLanguage.optional(),
    numberFormat: numberFormatOf,
  })
  .meta({ id: 'HeatmapTile', description: 'A heatmap of a value over time; the source must be a Trace source.' });
const search = z
  .strictObject({
    ...builder,
    displayType: display('search', 'matching events as a list.'),
    select: str10k.describe('Columns shown, comma-separated.'),
    where,
    whereLanguage: whereLanguage.optional(),
  })
  .meta({ id: 'SearchTile', description: 'A list of the events that match a search.' });
const eventPatterns = z
  .strictObject({
    ...builder,
    displayType: display('event_patterns', 'events grouped by pattern.'),
    select: str10k.optional().describe('Column whose patterns are grouped (default: the body).'),
    where,
    whereLanguage: whereLanguage.optional(),
  })
  .meta({ id: 'EventPatternsTile', description: 'Events grouped by the patterns of their text.' });
const markdown = z
  .strictObject({
    configType: builder.configType,
    displayType: display('markdown', 'text.'),
    markdown: z.string().max(50000).optional().describe('The text, in Markdown (at most 50,000 characters).'),
  })
  .meta({ id: 'MarkdownTile', description: 'Text in Markdown.' });

export const builderConfig = z
  .discriminatedUnion('displayType', [line, stackedBar, table, number, pie, bar, heatmap, search, eventPatterns, markdown])
  .meta({ id: 'BuilderTileConfig', description: 'A chart built from select items over a source; by displayType.' });

const sql = {
  configType: z.literal('sql').describe('sql: a chart from your own SQL query.'),
  connection: refTo('connection').describe('Connection the query runs on, by name, or {id: "..."}.'),
  sqlTemplate: z
    .string()
    .max(100000)
    .describe('The SQL query; it may use the macros and variables of the service, e.g. {intervalSeconds}.'),
  source: refTo('source').optional().describe('Source for the column hints, by name (its connection must be the same).'),
  numberFormat: numberFormatOf,
};
export const sqlConfig = z
  .discriminatedUnion('displayType', [
    z
      .strictObject({
        ...sql,
        displayType: display('line', 'rows over time as lines.'),
        compareToPreviousPeriod,
        fillNulls,
        alignDateRangeToGranularity: alignDateRange,
        fitYAxisToData,
        seriesLimit,
      })
      .meta({ id: 'SqlLineTile', description: 'A Raw SQL line chart.' }),
    z
      .strictObject({
        ...sql,
        displayType: display('stacked_bar', 'rows over time as stacked bars.'),
        fillNulls,
        alignDateRangeToGranularity: alignDateRange,
        seriesLimit,
      })
      .meta({ id: 'SqlStackedBarTile', description: 'Raw SQL stacked bars.' }),
    z
      .strictObject({
        ...sql,
        displayType: display('table', 'the rows.'),
        onClick: onClick.optional().describe('What clicking a row does.'),
      })
      .meta({ id: 'SqlTableTile', description: 'A Raw SQL table.' }),
    z
      .strictObject({ ...sql, displayType: display('number', 'one number.'), color: color.optional().describe('Colour of the number.') })
      .meta({ id: 'SqlNumberTile', description: 'A Raw SQL number.' }),
    z.strictObject({ ...sql, displayType: display('pie', 'a pie chart.') }).meta({ id: 'SqlPieTile', description: 'A Raw SQL pie chart.' }),
    z.strictObject({ ...sql, displayType: display('bar', 'bars.') }).meta({ id: 'SqlBarTile', description: 'Raw SQL bars.' }),
  ])
  .meta({ id: 'SqlTileConfig', description: 'A chart of your own SQL query (configType: sql); by displayType.' });

/** `configType: sql` selects the Raw SQL union; absent or `builder` the builder union. */
export const tileConfig = z.discriminatedUnion('configType', [sqlConfig, builderConfig]).meta({
  id: 'TileConfig',
  description:
    'What a tile shows. configType sql: a Raw SQL chart; absent or builder: a chart built from select items. Then by displayType.',
});
export type TileConfig = z.output<typeof tileConfig>;
