/**
 * Tile configs (selfhosted-api §3.1.3–3.1.6): builder and Raw SQL unions, both discriminated by
 * `displayType`. Sources and connections are references by name (resolved at plan time), not ids.
 */
import * as z from 'zod';
import { refTo } from '../ref-schema.js';
import { backgroundChart, color, colorRule, formula, numberFormat, onClick, selectItem, str10k, whereLanguage } from './select.js';

const source = refTo('source');
const builder = { configType: z.literal('builder').optional(), source };
const selects = z.array(selectItem).min(1).max(20);
const oneSelect = z.array(selectItem).length(1, { error: 'this display type takes exactly one select item' });
const formulas = z.array(formula).max(10).optional();
const series = {
  groupBy: str10k.optional(),
  asRatio: z.boolean().optional(),
  alignDateRangeToGranularity: z.boolean().optional(),
  fillNulls: z.boolean().optional(),
  numberFormat: numberFormat.optional(),
  seriesLimit: z.number().int().min(0).optional(),
  formulas,
  showOperandSeries: z.boolean().optional(),
};

interface SeriesLike {
  select?: unknown[] | string;
  asRatio?: boolean | undefined;
  formulas?: { expression: string }[] | undefined;
}

/** asRatio and formula rules shared by the select-based builder configs. */
function checkSeries(cfg: SeriesLike, ctx: z.RefinementCtx): void {
  const count = Array.isArray(cfg.select) ? cfg.select.length : 0;
  if (cfg.asRatio === true && count !== 2) ctx.addIssue({ code: 'custom', path: ['asRatio'], message: 'asRatio can only be used with exactly two select items' });
  if (cfg.asRatio === true && cfg.formulas?.length) ctx.addIssue({ code: 'custom', path: ['formulas'], message: 'formulas cannot be combined with asRatio' });
  cfg.formulas?.forEach((f, i) => {
    const letters = f.expression.match(/[A-Z]/g) ?? [];
    if (letters.length === 0) ctx.addIssue({ code: 'custom', path: ['formulas', i, 'expression'], message: 'a formula must reference at least one series (A = select[0], B = select[1], ...)' });
    for (const letter of new Set(letters)) {
      const index = letter.charCodeAt(0) - 65;
      if (index >= count) ctx.addIssue({ code: 'custom', path: ['formulas', i, 'expression'], message: `Unknown series "${letter}" — the tile has ${count} select item(s) (A..${String.fromCharCode(64 + count)})` });
    }
  });
}

const line = z.strictObject({ ...builder, displayType: z.literal('line'), select: selects, ...series, compareToPreviousPeriod: z.boolean().optional(), fitYAxisToData: z.boolean().optional() }).superRefine(checkSeries);
const stackedBar = z.strictObject({ ...builder, displayType: z.literal('stacked_bar'), select: selects, ...series }).superRefine(checkSeries);
const table = z
  .strictObject({
    ...builder,
    displayType: z.literal('table'),
    select: selects,
    groupBy: str10k.optional(),
    having: str10k.optional(),
    orderBy: str10k.optional(),
    asRatio: z.boolean().optional(),
    numberFormat: numberFormat.optional(),
    groupByColumnsOnLeft: z.boolean().optional(),
    onClick: onClick.optional(),
    formulas,
    showOperandSeries: z.boolean().optional(),
  })
  .superRefine(checkSeries);
const number = z
  .strictObject({
    ...builder,
    displayType: z.literal('number'),
    select: selects,
    numberFormat: numberFormat.optional(),
    formulas,
    color: color.optional(),
    colorRules: z.array(colorRule).max(10).optional(),
    backgroundChart: backgroundChart.optional(),
  })
  .superRefine((cfg, ctx) => {
    const hasFormulas = (cfg.formulas?.length ?? 0) > 0;
    if (!hasFormulas && cfg.select.length !== 1) ctx.addIssue({ code: 'custom', path: ['select'], message: 'Number tiles support a single select item unless formulas are used' });
    if ((cfg.formulas?.length ?? 0) > 1) ctx.addIssue({ code: 'custom', path: ['formulas'], message: 'Number charts support a single formula' });
    checkSeries(cfg, ctx);
  });
const categorical = { ...builder, select: oneSelect, groupBy: str10k.optional(), orderBy: str10k.optional(), numberFormat: numberFormat.optional(), limit: z.number().int().min(0).optional() };
const pie = z.strictObject({ ...categorical, displayType: z.literal('pie') });
const bar = z.strictObject({ ...categorical, displayType: z.literal('bar') });
const heatmapSelect = z.strictObject({ valueExpression: z.string().min(1).max(10000), countExpression: str10k.optional(), heatmapScaleType: z.enum(['log', 'linear']).optional() });
const heatmap = z.strictObject({
  ...builder,
  displayType: z.literal('heatmap'),
  select: z.array(heatmapSelect).length(1, { error: 'heatmap tiles take exactly one select item' }),
  where: z.string().optional(),
  whereLanguage: whereLanguage.optional(),
  numberFormat: numberFormat.optional(),
});
const search = z.strictObject({ ...builder, displayType: z.literal('search'), select: str10k, where: z.string().optional(), whereLanguage: whereLanguage.optional() });
const eventPatterns = z.strictObject({ ...builder, displayType: z.literal('event_patterns'), select: str10k.optional(), where: z.string().optional(), whereLanguage: whereLanguage.optional() });
const markdown = z.strictObject({ configType: z.literal('builder').optional(), displayType: z.literal('markdown'), markdown: z.string().max(50000).optional() });

export const builderConfig = z.discriminatedUnion('displayType', [line, stackedBar, table, number, pie, bar, heatmap, search, eventPatterns, markdown]);

const sql = {
  configType: z.literal('sql'),
  connection: refTo('connection'),
  sqlTemplate: z.string().max(100000),
  source: refTo('source').optional(),
  numberFormat: numberFormat.optional(),
};
export const sqlConfig = z.discriminatedUnion('displayType', [
  z.strictObject({ ...sql, displayType: z.literal('line'), compareToPreviousPeriod: z.boolean().optional(), fillNulls: z.boolean().optional(), alignDateRangeToGranularity: z.boolean().optional(), fitYAxisToData: z.boolean().optional(), seriesLimit: z.number().int().min(0).optional() }),
  z.strictObject({ ...sql, displayType: z.literal('stacked_bar'), fillNulls: z.boolean().optional(), alignDateRangeToGranularity: z.boolean().optional(), seriesLimit: z.number().int().min(0).optional() }),
  z.strictObject({ ...sql, displayType: z.literal('table'), onClick: onClick.optional() }),
  z.strictObject({ ...sql, displayType: z.literal('number'), color: color.optional() }),
  z.strictObject({ ...sql, displayType: z.literal('pie') }),
  z.strictObject({ ...sql, displayType: z.literal('bar') }),
]);

/** `configType: sql` selects the Raw SQL union; absent or `builder` the builder union. */
export const tileConfig = z.discriminatedUnion('configType', [sqlConfig, builderConfig]);
export type TileConfig = z.output<typeof tileConfig>;
