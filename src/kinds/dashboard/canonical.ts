/**
 * The server's output normalisation of dashboards (selfhosted-api §4.1), applied to both the
 * desired body and the live object so a converged dashboard compares equal. Idempotent:
 * normalising a server response again changes nothing.
 */
import type { Json } from '../../core/wire.js';

type Obj = { [k: string]: Json };

const SELECT_DISPLAY_TYPES = new Set(['line', 'stacked_bar', 'table', 'number', 'pie', 'bar']);
const WHERE_DISPLAY_TYPES = new Set(['heatmap', 'search', 'event_patterns']);
const QUANTILE_LEVELS = new Set([0.5, 0.9, 0.95, 0.99]);

export function isObj(v: Json | undefined): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Fills what the server fills on output and drops what it drops. */
export function canonicalTileConfig(config: Obj): Obj {
  const out: Obj = { ...config };
  const displayType = typeof out.displayType === 'string' ? out.displayType : '';
  if (out.configType === 'sql') {
    if (displayType === 'line' || displayType === 'stacked_bar') out.fillNulls ??= true;
    if (displayType === 'number') {
      delete out.colorRules;
      delete out.backgroundChart;
    }
    return out;
  }
  if (displayType === 'line' || displayType === 'stacked_bar') {
    out.fillNulls ??= true;
    out.asRatio = out.asRatio === true && Array.isArray(out.select) && out.select.length === 2;
  }
  if (displayType === 'stacked_bar') {
    delete out.fitYAxisToData;
    delete out.compareToPreviousPeriod;
  }
  if (displayType === 'table') out.asRatio ??= false;
  if (SELECT_DISPLAY_TYPES.has(displayType) && Array.isArray(out.select)) out.select = out.select.map((s) => (isObj(s) ? canonicalSelectItem(s) : s));
  if (WHERE_DISPLAY_TYPES.has(displayType)) {
    out.where ??= '';
    out.whereLanguage ??= 'lucene';
    if (displayType === 'event_patterns') out.select ??= '';
  }
  if (Array.isArray(out.formulas) && out.formulas.length === 0) delete out.formulas;
  if (out.formulas === undefined || displayType === 'number') delete out.showOperandSeries;
  return out;
}

export function canonicalSelectItem(item: Obj): Obj {
  const out: Obj = { ...item };
  out.where ??= '';
  out.whereLanguage ??= 'lucene';
  if (out.aggFn === 'count') {
    if (out.valueExpression !== '') delete out.valueExpression;
    out.valueExpression ??= '';
  }
  if (out.aggFn !== 'quantile' || typeof out.level !== 'number' || !QUANTILE_LEVELS.has(out.level)) delete out.level;
  return out;
}

/** Dashboard-level defaults: tags de-duplicated, empty lists for absent ones, savedQueryLanguage rule. */
export function canonicalDashboardFields(body: Obj): Obj {
  const out: Obj = { ...body };
  out.tags = Array.isArray(out.tags) ? [...new Set(out.tags.filter((t): t is string => typeof t === 'string'))] : [];
  out.filters = Array.isArray(out.filters) ? out.filters.map((f) => (isObj(f) ? canonicalFilter(f) : f)) : [];
  out.savedQuery ??= null;
  if (out.savedQueryLanguage === undefined) out.savedQueryLanguage = typeof out.savedQuery === 'string' && out.savedQuery !== '' ? 'lucene' : null;
  out.savedFilterValues = Array.isArray(out.savedFilterValues)
    ? out.savedFilterValues.map((v) => (isObj(v) && v.type === undefined ? { ...v, type: 'sql' } : v))
    : [];
  if (Array.isArray(out.containers) && out.containers.length === 0) delete out.containers;
  return out;
}

function canonicalFilter(filter: Obj): Obj {
  const out: Obj = { ...filter };
  delete out.id;
  if (out.isVariableEnabled !== true) delete out.variableName;
  if (out.isBroadcastEnabled === false) delete out.appliesToSourceIds;
  return out;
}
