/**
 * What the checker queries for an alert, as chart series requests (`POST /charts/series`), or why
 * the series API cannot answer it. Pure: the alert, tile and saved search come in their wire form
 * (a plan's payload or a live object), their source already resolved to a live id.
 *
 * From the checker (hyperdxio/hyperdx b52a6fa8, tasks/checkAlerts/index.ts
 * `getChartConfigFromAlert`, `parseAlertData`) and the series route (routers/external-api/v2/charts.ts
 * `buildChartConfigFromRequest`):
 * - a saved-search alert counts the search's matching events (`count()` with its where, its
 *   filters and the alert's groupBy);
 * - a tile alert runs the tile's builder query (line, stacked_bar and number tiles only) and reads
 *   the last numeric column: the last select item, or the ratio of the two with `asRatio`;
 * - an inline alert's chart is such a tile config, with a chart-level `where` the query's rows must
 *   also match: it is the tile path, the chart's where joined to each series' own;
 * - the series route turns each series' `where` into the aggregate's condition and quotes a
 *   field containing a dot as a string literal, so such a field cannot be asked for.
 */
import type { Json, JsonObject } from '../../core/wire.js';
import { INTERVAL_MS, type AlertCondition, type Windows } from './checker.js';
import { splitSqlList } from '../../core/sql-list.js';

export interface SeriesSpec extends JsonObject {
  sourceId: string;
  aggFn: string;
  where: string;
  whereLanguage: string;
  groupBy: string[];
}

export interface AlertQuery {
  series: SeriesSpec[];
  /** The value is series_0 ÷ series_1 (a tile with asRatio). */
  ratio: boolean;
  groupBy: string[];
}

export type AlertEvaluation = { ok: true; condition: AlertCondition; query: AlertQuery } | { ok: false; reason: string };

/** What an alert watches, its source resolved (or why it cannot be). */
export type AlertTarget = { kind: 'tile'; config: JsonObject } | { kind: 'search'; search: JsonObject } | { kind: 'none'; reason: string };

const ALERTABLE_DISPLAY = new Set(['line', 'stacked_bar', 'number']);
const SERIES_GROUP_BY_MAX = 10;

/** The condition and query of an alert (a create or update payload, or a live alert) on its target. */
export function alertEvaluation(alert: JsonObject, target: AlertTarget): AlertEvaluation {
  const condition = conditionOf(alert);
  if ('reason' in condition) return { ok: false, reason: condition.reason };
  if (target.kind === 'none') return { ok: false, reason: target.reason };
  const query = target.kind === 'search' ? searchQuery(target.search, str(alert.groupBy)) : tileQuery(target.config);
  return 'reason' in query ? { ok: false, reason: query.reason } : { ok: true, condition, query };
}

function conditionOf(alert: JsonObject): AlertCondition | { reason: string } {
  const interval = str(alert.interval);
  if (INTERVAL_MS[interval] === undefined) return { reason: `interval ${interval || '(none)'} is not one the chart series API buckets by` };
  const offset = typeof alert.scheduleOffsetMinutes === 'number' ? alert.scheduleOffsetMinutes : 0;
  if (offset > 0 || (typeof alert.scheduleStartAt === 'string' && alert.scheduleStartAt !== ''))
    return {
      reason:
        'scheduleOffsetMinutes or scheduleStartAt shift its windows off the interval grid; the checker then reads two partial ' +
        'buckets per window, which the chart series API cannot return',
    };
  const thresholdType = str(alert.thresholdType);
  const thresholdMax = typeof alert.thresholdMax === 'number' ? alert.thresholdMax : null;
  if ((thresholdType === 'between' || thresholdType === 'not_between') && thresholdMax === null)
    return { reason: `${thresholdType} without thresholdMax: the checker refuses to evaluate it (INVALID_ALERT)` };
  return {
    thresholdType,
    threshold: typeof alert.threshold === 'number' ? alert.threshold : 0,
    thresholdMax,
    interval,
    numConsecutiveWindows: typeof alert.numConsecutiveWindows === 'number' ? alert.numConsecutiveWindows : null,
  };
}

function tileQuery(config: JsonObject): AlertQuery | { reason: string } {
  const display = str(config.displayType);
  if (config.configType === 'sql') return { reason: 'a Raw SQL tile: the chart series API runs builder queries, not the tile’s SQL' };
  if (!ALERTABLE_DISPLAY.has(display))
    return {
      reason: `the checker evaluates alerts on line, stacked_bar and number tiles only (this tile is ${display || 'without a type'})`,
    };
  if (Array.isArray(config.formulas) && config.formulas.length > 0)
    return { reason: 'a formula tile: the checker evaluates the formula, the chart series API returns only its operands' };
  const select = Array.isArray(config.select) ? config.select.filter(isObject) : [];
  const sourceId = str(config.sourceId);
  const groupBy = splitSqlList(str(config.groupBy));
  if (groupBy.length > SERIES_GROUP_BY_MAX) return { reason: `groupBy has ${groupBy.length} columns; the chart series API takes 10` };
  const ratio = config.asRatio === true && select.length === 2;
  const items = ratio ? select : select.slice(-1);
  if (items.length === 0) return { reason: 'the tile selects nothing' };
  const series: SeriesSpec[] = [];
  for (const item of items) {
    const joined = withChartWhere(item, config);
    const spec = typeof joined === 'string' ? joined : seriesOfSelect(sourceId, joined, groupBy);
    if (typeof spec === 'string') return { reason: spec };
    series.push(spec);
  }
  return { series, ratio, groupBy };
}

/**
 * A select item with the chart-level `where` of an inline alert's chart joined to its own (the
 * rows the chart reads, then the rows the item aggregates); a dashboard tile of an alertable type
 * has no chart-level where and passes unchanged. The joined text is Lucene or SQL `(a) AND (b)`.
 */
function withChartWhere(item: JsonObject, config: JsonObject): JsonObject | string {
  const chart = str(config.where).trim();
  if (chart === '') return item;
  const chartLanguage = str(config.whereLanguage) || 'lucene';
  const own = str(item.where).trim();
  if (own === '') return { ...item, where: chart, whereLanguage: chartLanguage };
  const language = str(item.whereLanguage) || 'lucene';
  if (language !== chartLanguage)
    return `the chart's where (${chartLanguage}) and a select item's where (${language}) differ in language; a chart series takes one`;
  return { ...item, where: `(${chart}) AND (${own})`, whereLanguage: language };
}

/** The series of one select item, or why there is none. */
function seriesOfSelect(sourceId: string, item: JsonObject, groupBy: string[]): SeriesSpec | string {
  const language = str(item.whereLanguage) || 'lucene';
  if (language === 'promql') return 'a PromQL select: the checker does not evaluate PromQL tiles';
  const field = str(item.valueExpression);
  if (field.includes('.'))
    return (
      `the field ${JSON.stringify(field)} contains a dot, which the chart series API quotes as a string literal (the checker ` +
      `reads it as an expression)`
    );
  const spec: SeriesSpec = { sourceId, aggFn: str(item.aggFn), where: str(item.where), whereLanguage: language, groupBy };
  if (field !== '') spec.field = field;
  if (typeof item.level === 'number') spec.level = item.level;
  if (typeof item.metricName === 'string' && item.metricName !== '') spec.metricName = item.metricName;
  if (typeof item.metricType === 'string') spec.metricDataType = item.metricType;
  return spec;
}

function searchQuery(search: JsonObject, alertGroupBy: string): AlertQuery | { reason: string } {
  const where = conditionsOf(search);
  if ('reason' in where) return where;
  const groupBy = splitSqlList(alertGroupBy);
  if (groupBy.length > SERIES_GROUP_BY_MAX) return { reason: `groupBy has ${groupBy.length} columns; the chart series API takes 10` };
  const series: SeriesSpec = { sourceId: str(search.sourceId), aggFn: 'count', where: where.where, whereLanguage: where.language, groupBy };
  return { series: [series], ratio: false, groupBy };
}

/** The search's where and filters as one condition; the series API takes one language per series. */
function conditionsOf(search: JsonObject): { where: string; language: string } | { reason: string } {
  const parts: { text: string; language: string }[] = [];
  const where = str(search.where).trim();
  const whereLanguage = str(search.whereLanguage) || 'lucene';
  if (where !== '') parts.push({ text: where, language: whereLanguage });
  for (const f of Array.isArray(search.filters) ? search.filters.filter(isObject) : []) {
    if (f.type === 'sql_ast') parts.push({ text: `${str(f.left)} ${str(f.operator)} ${str(f.right)}`, language: 'sql' });
    else if (str(f.condition).trim() !== '') parts.push({ text: str(f.condition).trim(), language: str(f.type) || 'sql' });
  }
  const languages = new Set(parts.map((p) => p.language));
  if (languages.size > 1)
    return {
      reason: `its where and filters mix ${[...languages].sort().join(' and ')}; a chart series takes one condition language`,
    };
  const language = parts[0]?.language ?? whereLanguage;
  const text = parts.length === 1 ? (parts[0]?.text ?? '') : parts.map((p) => `(${p.text})`).join(' AND ');
  return { where: text, language };
}

/** A chart series request: the series, one time range, the alert's interval as granularity. */
export interface SeriesRequest extends JsonObject {
  series: SeriesSpec[];
  startTime: number;
  endTime: number;
  granularity: string;
}

/** The requests that cover the windows, at most `maxBuckets` windows each (consecutive, oldest first). */
export function seriesRequests(query: AlertQuery, interval: string, windows: Windows, maxBuckets: number): SeriesRequest[] {
  const out: SeriesRequest[] = [];
  for (let first = 0; first < windows.count; first += maxBuckets) {
    const n = Math.min(maxBuckets, windows.count - first);
    const startTime = windows.start + first * windows.stepMs;
    out.push({ series: query.series, startTime, endTime: startTime + n * windows.stepMs, granularity: interval });
  }
  return out;
}

function str(v: Json | undefined): string {
  return typeof v === 'string' ? v : '';
}

function isObject(v: Json): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
