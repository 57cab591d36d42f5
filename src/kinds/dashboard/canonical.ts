/**
 * The server's output normalisation of dashboards (selfhosted-api §4.1), applied to both the
 * desired body and the live object so a converged dashboard compares equal. Idempotent:
 * normalising a server response again changes nothing.
 */
import type { Json } from '../../core/wire.js';
import { isJsonObject as isObj, setOwn } from '../../core/json.js';

export { isObj };

type Obj = { [k: string]: Json };

const SELECT_DISPLAY_TYPES = new Set(['line', 'stacked_bar', 'table', 'number', 'pie', 'bar']);
const WHERE_DISPLAY_TYPES = new Set(['heatmap', 'search', 'event_patterns']);
const QUANTILE_LEVELS = new Set([0.5, 0.9, 0.95, 0.99]);

/**
 * A copy of `obj` without the keys `drop` answers true for. The normalisers copy instead of
 * `delete` (which turns V8 objects into slow dictionaries): every live and desired tile of a
 * plan goes through them.
 */
function copyWithout(obj: Obj, drop: (key: string) => boolean): Obj {
  const out: Obj = {};
  for (const key in obj) {
    const value = obj[key];
    if (value !== undefined && !drop(key)) setOwn(out, key, value);
  }
  return out;
}

/** Fills what the server fills on output and drops what it drops. */
export function canonicalTileConfig(config: Obj): Obj {
  const displayType = typeof config.displayType === 'string' ? config.displayType : '';
  if (config.configType === 'sql') {
    const out =
      displayType === 'number'
        ? copyWithout(config, (k) => k === 'colorRules' || k === 'backgroundChart')
        : copyWithout(config, () => false);
    if (displayType === 'line' || displayType === 'stacked_bar') out.fillNulls ??= true;
    return out;
  }
  const formulasEmpty = Array.isArray(config.formulas) && config.formulas.length === 0;
  const dropOperands = formulasEmpty || config.formulas === undefined || displayType === 'number';
  const out = copyWithout(
    config,
    (k) =>
      (k === 'formulas' && formulasEmpty) ||
      (k === 'showOperandSeries' && dropOperands) ||
      (displayType === 'stacked_bar' && (k === 'fitYAxisToData' || k === 'compareToPreviousPeriod')),
  );
  if (displayType === 'line' || displayType === 'stacked_bar') {
    out.fillNulls ??= true;
    out.asRatio = out.asRatio === true && Array.isArray(out.select) && out.select.length === 2;
  }
  if (displayType === 'table') out.asRatio ??= false;
  if (SELECT_DISPLAY_TYPES.has(displayType) && Array.isArray(out.select))
    out.select = out.select.map((s) => (isObj(s) ? canonicalSelectItem(s) : s));
  if (WHERE_DISPLAY_TYPES.has(displayType)) {
    out.where ??= '';
    out.whereLanguage ??= 'lucene';
    if (displayType === 'event_patterns') out.select ??= '';
  }
  return out;
}

export function canonicalSelectItem(item: Obj): Obj {
  const keepLevel = item.aggFn === 'quantile' && typeof item.level === 'number' && QUANTILE_LEVELS.has(item.level);
  const out = copyWithout(item, (k) => (k === 'level' && !keepLevel) || (k === 'valueExpression' && item.aggFn === 'count'));
  out.where ??= '';
  out.whereLanguage ??= 'lucene';
  // The server keeps no value expression for a count.
  if (item.aggFn === 'count') out.valueExpression = '';
  return out;
}

/** Dashboard-level defaults: tags de-duplicated, empty lists for absent ones, savedQueryLanguage rule. */
export function canonicalDashboardFields(body: Obj): Obj {
  const out = copyWithout(body, (k) => k === 'containers' && Array.isArray(body.containers) && body.containers.length === 0);
  out.tags = Array.isArray(out.tags) ? [...new Set(out.tags.filter((t): t is string => typeof t === 'string'))] : [];
  out.filters = Array.isArray(out.filters) ? out.filters.map((f) => (isObj(f) ? canonicalFilter(f) : f)) : [];
  out.savedQuery ??= null;
  if (out.savedQueryLanguage === undefined)
    out.savedQueryLanguage = typeof out.savedQuery === 'string' && out.savedQuery !== '' ? 'lucene' : null;
  out.savedFilterValues = Array.isArray(out.savedFilterValues)
    ? out.savedFilterValues.map((v) => (isObj(v) && v.type === undefined ? { ...v, type: 'sql' } : v))
    : [];
  return out;
}

function canonicalFilter(filter: Obj): Obj {
  return copyWithout(
    filter,
    (k) =>
      k === 'id' ||
      (k === 'variableName' && filter.isVariableEnabled !== true) ||
      (k === 'appliesToSourceIds' && filter.isBroadcastEnabled === false),
  );
}
