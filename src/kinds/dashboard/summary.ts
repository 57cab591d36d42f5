/**
 * A dashboard change in its own terms for reviewers: a row per tile added, removed, moved,
 * resized, renamed or with its query changed, and sentences for the dashboard's own fields.
 * Reads the comparable form of ./definition.ts: tiles keyed by tile key, `tileOrder` apart.
 */
import type { Json } from '../../core/wire.js';
import {
  isRecord,
  leafChanges,
  leafText,
  shortValue,
  tokenText,
  type ChangeSummary,
  type PartChange,
  type Summariser,
} from '../summary.js';

type Obj = { [key: string]: Json };

export const summariseDashboard: Summariser = (before, after) => {
  const b = isRecord(before) ? before : null;
  const a = isRecord(after) ? after : null;
  const rows = tileRows(tilesOf(b), tilesOf(a), orderOf(a ?? b));
  const summary: ChangeSummary = { sentences: sentences(b, a), parts: { noun: 'tile', rows } };
  return summary;
};

function sentences(b: Obj | null, a: Obj | null): string[] {
  const count = (o: Obj | null) => Object.keys(tilesOf(o)).length;
  if (!b && a) return [`new dashboard ${quote(a.name)} with ${count(a)} tile(s)`];
  if (b && !a) return [`dashboard ${quote(b.name)} deleted with its ${count(b)} tile(s)`];
  if (!b || !a) return [];
  const out: string[] = [];
  if (b.name !== a.name) out.push(`renamed ${quote(b.name)} → ${quote(a.name)}`);
  for (const field of ['tags', 'savedQuery', 'savedQueryLanguage'] as const) {
    if (JSON.stringify(b[field]) !== JSON.stringify(a[field]))
      out.push(`${field} ${shortValue(b[field] ?? null)} → ${shortValue(a[field] ?? null)}`);
  }
  for (const field of ['filters', 'savedFilterValues', 'containers'] as const) {
    if (JSON.stringify(b[field]) !== JSON.stringify(a[field])) out.push(`${field} changed`);
  }
  const kept = (order: Json | undefined, other: Obj) =>
    Array.isArray(order) ? order.filter((k) => typeof k === 'string' && k in other) : [];
  if (JSON.stringify(kept(b.tileOrder, tilesOf(a))) !== JSON.stringify(kept(a.tileOrder, tilesOf(b)))) out.push('tile order changed');
  return out;
}

function tileRows(before: Obj, after: Obj, order: string[]): PartChange[] {
  const keys = [...new Set([...order, ...Object.keys(after), ...Object.keys(before)])];
  const rows: PartChange[] = [];
  for (const key of keys) {
    const b = isRecord(before[key]) ? before[key] : null;
    const a = isRecord(after[key]) ? after[key] : null;
    const row = tileRow(key, b, a);
    if (row) rows.push(row);
  }
  return rows;
}

function tileRow(key: string, b: Obj | null, a: Obj | null): PartChange | null {
  const named = (a ?? b)?.name;
  const name = typeof named === 'string' ? named : undefined;
  // A live tile no manifest key pairs with is keyed `~<tile id>` in the comparable form.
  const base = { key: key.startsWith('~') ? `id ${key.slice(1)}` : key, ...(name !== undefined ? { name } : {}) };
  if (!b && a) return { ...base, changes: ['added'], details: [`at ${at(a)} size ${size(a)}`, describeQuery(a.config)] };
  if (b && !a) return { ...base, changes: ['removed'], details: [describeQuery(b.config)] };
  if (!b || !a) return null;
  const changes: string[] = [];
  const details: string[] = [];
  const moved = ['x', 'y'].filter((f) => b[f] !== a[f]);
  if (moved.length > 0) {
    changes.push('moved');
    details.push(`${at(b)} → ${at(a)}`);
  }
  if (b.w !== a.w || b.h !== a.h) {
    changes.push('resized');
    details.push(`${size(b)} → ${size(a)}`);
  }
  if (b.name !== a.name) {
    changes.push('renamed');
    details.push(`${quote(b.name)} → ${quote(a.name)}`);
  }
  const query = leafChanges(b.config, a.config);
  if (query.length > 0) {
    changes.push('query changed');
    details.push(...query.slice(0, 3).map(leafText), ...(query.length > 3 ? [`${query.length - 3} more field(s)`] : []));
  }
  const placed = leafChanges(without(b, TILE_FIELDS), without(a, TILE_FIELDS));
  if (placed.length > 0) {
    changes.push('changed');
    details.push(...placed.map(leafText));
  }
  return changes.length > 0 ? { ...base, changes, details } : null;
}

const TILE_FIELDS = new Set(['x', 'y', 'w', 'h', 'name', 'config']);

/** What the tile shows, in a few words: `line of quantile(0.99, Duration) from Traces`. */
export function describeQuery(config: Json | undefined): string {
  if (!isRecord(config ?? null)) return '';
  const c = config as Obj;
  const display = typeof c.displayType === 'string' ? c.displayType : 'tile';
  if (c.configType === 'sql') return `${display} of SQL: ${shortValue(c.sqlTemplate, 50)}`;
  const selects = Array.isArray(c.select)
    ? c.select.map(selectText).join(', ')
    : typeof c.select === 'string' && c.select !== ''
      ? shortValue(c.select, 40)
      : '';
  const from = c.source !== undefined ? ` from ${tokenText(c.source)}` : '';
  const where = typeof c.where === 'string' && c.where !== '' ? ` where ${shortValue(c.where, 40)}` : '';
  if (display === 'markdown') return 'markdown text';
  return `${display}${selects ? ` of ${selects}` : ''}${from}${where}`;
}

function selectText(item: Json): string {
  if (!isRecord(item)) return shortValue(item, 30);
  const fn = typeof item.aggFn === 'string' ? item.aggFn : 'value';
  const args = [item.level, item.valueExpression].filter((v) => v !== undefined && v !== null && v !== '').map((v) => shortValue(v, 30));
  return `${fn}(${args.join(', ')})`;
}

function at(tile: Obj): string {
  return `${shortValue(tile.x)},${shortValue(tile.y)}`;
}

function size(tile: Obj): string {
  return `${shortValue(tile.w)}×${shortValue(tile.h)}`;
}

function tilesOf(o: Obj | null): Obj {
  return o && isRecord(o.tiles) ? o.tiles : {};
}

function orderOf(o: Obj | null): string[] {
  return o && Array.isArray(o.tileOrder) ? o.tileOrder.filter((k): k is string => typeof k === 'string') : [];
}

function without(o: Obj, drop: ReadonlySet<string>): Obj {
  return Object.fromEntries(Object.entries(o).filter(([k]) => !drop.has(k)));
}

function quote(v: Json | undefined): string {
  return typeof v === 'string' ? `"${v}"` : shortValue(v);
}
