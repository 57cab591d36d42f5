/**
 * Legacy `series` tiles are converted to `config` form on write, the way the server's
 * `translateExternalChartToTileConfig` (hyperdx utils/externalApi.ts at b52a6fa8) does it: only
 * truthy `alias`/`level`/`metricName` are kept, an empty `groupBy` is dropped, a table's
 * `sortOrder` becomes an internal order that the config form never shows, and the first series'
 * number format (time/table: the first one set) wins. The server always returns config form.
 */
import type { JsonRecord } from './contract.js';
import type { LegacySeries } from './dashboard-schema.js';

type ChartSeries = Extract<LegacySeries, { type: 'time' | 'table' | 'number' }>;

function selectOf(s: ChartSeries): JsonRecord {
  const item: JsonRecord = { aggFn: s.aggFn };
  if (s.alias) item.alias = s.alias;
  if (s.level) item.level = s.level;
  if (s.metricName) item.metricName = s.metricName;
  if (s.metricDataType) item.metricType = s.metricDataType;
  item.valueExpression = s.field ?? '';
  item.where = s.where;
  item.whereLanguage = s.whereLanguage ?? 'lucene';
  return item;
}

export function convertLegacySeries(series: LegacySeries[], asRatio: boolean | undefined): JsonRecord {
  const first = series[0];
  if (!first) throw new Error('legacy series conversion needs at least one series (checked by the schema)');
  switch (first.type) {
    case 'markdown':
      return { displayType: 'markdown', markdown: first.content };
    case 'search':
      return {
        displayType: 'search',
        sourceId: first.sourceId,
        select: first.fields.join(', '),
        where: first.where,
        whereLanguage: first.whereLanguage ?? 'lucene',
      };
    default: {
      const charts = series as ChartSeries[];
      const displayType = first.type === 'time' ? (first.displayType === 'stacked_bar' ? 'stacked_bar' : 'line') : first.type;
      const config: JsonRecord = { displayType, sourceId: first.sourceId, select: charts.map(selectOf) };
      const groupBy = first.type === 'number' ? '' : first.groupBy.join(',');
      if (groupBy) config.groupBy = groupBy;
      if (asRatio) config.asRatio = true;
      const numberFormat = first.type === 'number' ? first.numberFormat : charts.find((s) => s.numberFormat)?.numberFormat;
      if (numberFormat) config.numberFormat = numberFormat as JsonRecord;
      return config;
    }
  }
}
