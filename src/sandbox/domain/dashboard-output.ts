/**
 * Rendering a stored dashboard the way the server returns it (reference §4.1): defaults filled
 * (`asRatio`, `fillNulls`, select `where`/`whereLanguage`/`valueExpression`), number tiles
 * reduced to their first select when formula-less, dangling container refs dropped, filter
 * fields gated by their flags, `containers` only when non-empty.
 */
import type { JsonRecord, JsonValue } from './contract.js';
import { text } from './json.js';

function asRecord(value: JsonValue | undefined): JsonRecord {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? value : {};
}

function asArray(value: JsonValue | undefined): JsonValue[] {
  return Array.isArray(value) ? value : [];
}

const LEVELS: JsonValue[] = [0.5, 0.9, 0.95, 0.99];

/**
 * `convertToExternalSelectItem`: `where`/`whereLanguage` filled, a leftover `valueExpression` on a
 * count dropped (an empty one kept), `level` only on a quantile with a level the API accepts.
 */
function renderSelect(item: JsonValue): JsonRecord {
  const s = { ...asRecord(item) };
  s.where = typeof s.where === 'string' ? s.where : '';
  s.whereLanguage = typeof s.whereLanguage === 'string' ? s.whereLanguage : 'lucene';
  if (typeof s.valueExpression !== 'string') s.valueExpression = '';
  if (s.aggFn === 'count' && s.valueExpression !== '') delete s.valueExpression;
  if (s.aggFn !== 'quantile' || !LEVELS.includes(s.level ?? null)) delete s.level;
  return s;
}

function renderBuilder(config: JsonRecord): JsonRecord {
  const out: JsonRecord = { ...config };
  const type = config.displayType;
  const formulas = asArray(config.formulas);
  if (formulas.length === 0) {
    delete out.formulas;
    delete out.showOperandSeries;
  }
  if (['line', 'stacked_bar', 'table', 'number', 'pie', 'bar'].includes(text(type))) {
    let select = asArray(config.select).map(renderSelect);
    if (type === 'number') {
      if (formulas.length === 0) select = select.slice(0, 1);
      delete out.showOperandSeries;
    }
    out.select = select;
  }
  if (type === 'line' || type === 'stacked_bar' || type === 'table') {
    out.asRatio = config.asRatio === true && asArray(config.select).length === 2;
  }
  if (type === 'line' || type === 'stacked_bar') out.fillNulls = config.fillNulls !== false;
  if (type === 'heatmap' || type === 'search' || type === 'event_patterns') {
    out.where = typeof config.where === 'string' ? config.where : '';
    out.whereLanguage = typeof config.whereLanguage === 'string' ? config.whereLanguage : 'lucene';
  }
  if (type === 'heatmap') {
    out.select = asArray(config.select).map((s) => ({ ...asRecord(s), valueExpression: text(asRecord(s).valueExpression ?? '') }));
  }
  return out;
}

export function renderConfig(config: JsonRecord): JsonRecord {
  if (config.configType === 'sql') {
    const out = { ...config };
    if (config.displayType === 'line' || config.displayType === 'stacked_bar') out.fillNulls = config.fillNulls !== false;
    return out;
  }
  return renderBuilder(config);
}

function renderTile(tile: JsonRecord, containers: JsonRecord[]): JsonRecord {
  const out: JsonRecord = {
    id: tile.id ?? '',
    name: tile.name ?? '',
    x: tile.x ?? 0,
    y: tile.y ?? 0,
    w: tile.w ?? 1,
    h: tile.h ?? 1,
    config: renderConfig(asRecord(tile.config)),
  };
  const container = containers.find((c) => c.id === tile.containerId);
  if (typeof tile.containerId === 'string' && container) {
    out.containerId = tile.containerId;
    const tabs = asArray(container.tabs).map(asRecord);
    if (typeof tile.tabId === 'string' && tabs.some((t) => t.id === tile.tabId)) out.tabId = tile.tabId;
  }
  return out;
}

export function renderFilter(filter: JsonRecord): JsonRecord {
  const out = { ...filter };
  if (filter.isVariableEnabled !== true) delete out.variableName;
  if (filter.isBroadcastEnabled === false) delete out.appliesToSourceIds;
  return out;
}

export function renderDashboard(stored: JsonRecord): JsonRecord {
  const containers = asArray(stored.containers).map(asRecord);
  const out: JsonRecord = {
    id: stored.id ?? '',
    name: stored.name ?? '',
    tiles: asArray(stored.tiles).map((t) => renderTile(asRecord(t), containers)),
    tags: asArray(stored.tags),
    filters: asArray(stored.filters).map((f) => renderFilter(asRecord(f))),
    savedQuery: stored.savedQuery ?? null,
    savedQueryLanguage: stored.savedQueryLanguage ?? null,
    savedFilterValues: asArray(stored.savedFilterValues),
  };
  if (containers.length > 0) out.containers = containers;
  return out;
}
