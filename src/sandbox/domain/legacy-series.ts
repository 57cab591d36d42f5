/**
 * Legacy `series` tiles are converted to `config` form on write (reference §3.1.7): the server
 * always returns config form.
 */
import type { JsonRecord } from './contract.js';
import type { LegacySeries } from './dashboard-schema.js';

type ChartSeries = Extract<LegacySeries, { type: 'time' | 'table' | 'number' }>;

const LEVELS = [0.5, 0.9, 0.95, 0.99];

function selectOf(s: ChartSeries): JsonRecord {
  const item: JsonRecord = { aggFn: s.aggFn, where: s.where };
  if (s.aggFn !== 'count') item.valueExpression = s.field ?? '';
  if (s.level !== undefined && s.aggFn === 'quantile' && LEVELS.includes(s.level)) item.level = s.level;
  if (s.alias !== undefined) item.alias = s.alias;
  if (s.whereLanguage !== undefined) item.whereLanguage = s.whereLanguage;
  if (s.metricName !== undefined) item.metricName = s.metricName;
  if (s.metricDataType !== undefined) item.metricType = s.metricDataType;
  return item;
}

export function convertLegacySeries(series: LegacySeries[], asRatio: boolean | undefined): JsonRecord {
  const first = series[0];
  if (!first) throw new Error('legacy series conversion needs at least one series (checked by the schema)');
  switch (first.type) {
    case 'markdown':
      return { displayType: 'markdown', markdown: first.content };
    case 'search':
      return { displayType: 'search', sourceId: first.sourceId, select: first.fields.join(', '), where: first.where, ...(first.whereLanguage ? { whereLanguage: first.whereLanguage } : {}) };
    default: {
      const charts = series as ChartSeries[];
      const displayType = first.type === 'time' ? (first.displayType ?? 'line') : first.type;
      const config: JsonRecord = { displayType, sourceId: first.sourceId, select: charts.map(selectOf) };
      if (first.type !== 'number') config.groupBy = first.groupBy.join(',');
      if (first.type !== 'number' && asRatio !== undefined) config.asRatio = asRatio;
      if (first.numberFormat) config.numberFormat = first.numberFormat as JsonRecord;
      return config;
    }
  }
}
