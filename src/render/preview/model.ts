/**
 * What a dashboard preview draws, read from a dashboard's wire body (a plan's payload or the live
 * object): its tiles on the 24-column grid, each with its display type and the query it shows.
 */
import { isJsonObject } from '../../core/json.js';
import type { DashboardPreviewInput, TileData } from '../../core/preview.js';
import type { Json, JsonObject } from '../../core/wire.js';
import { stableJson } from '../../planner/diff.js';
import { type SimpleNumberFormat, type WindowAggregate, windowAggregateOf } from './tile-values.js';

export interface PreviewTile {
  /** The tile's id, else its name: how before and after are matched. */
  key: string;
  name: string;
  x: number;
  y: number;
  w: number;
  h: number;
  display: string;
  /** The query as the tile's reader would recognise it (a where, a select, markdown text, SQL). */
  query: string;
  /** What is drawn of it, to tell whether an update changes it. */
  fingerprint: string;
  /** A tile drawn with data (line, stacked bar, number, table, pie, bar): its recent series, or why there is none. */
  data?: TileData;
  /** How a number, table, pie or bar tile makes one value of a group's buckets (by its aggregate). */
  aggregate: WindowAggregate;
  numberFormat?: SimpleNumberFormat;
}

export type { DashboardPreviewInput };

export function tilesOf(body: JsonObject, data: readonly (TileData | undefined)[] = []): PreviewTile[] {
  const tiles = Array.isArray(body.tiles) ? body.tiles.filter(isJsonObject) : [];
  return tiles.map((tile, i) => {
    const config = isJsonObject(tile.config) ? tile.config : {};
    const name = str(tile.name);
    const drawn = {
      name,
      x: num(tile.x),
      y: num(tile.y),
      w: Math.max(1, num(tile.w)),
      h: Math.max(1, num(tile.h)),
      display: str(config.displayType) || (config.configType === 'sql' ? 'sql' : 'tile'),
      query: queryOf(config),
    };
    // What the picture shows, not the body: a live tile carries defaults and ids a payload leaves out.
    const tileData = data[i];
    const format = isJsonObject(config.numberFormat) ? simpleFormat(config.numberFormat) : undefined;
    return {
      key: str(tile.id) || name || `#${i}`,
      ...drawn,
      fingerprint: stableJson(drawn),
      aggregate: aggregateOf(config),
      ...(format ? { numberFormat: format } : {}),
      ...(tileData ? { data: tileData } : {}),
    };
  });
}

/** The keys of the tiles an update adds or changes (moved, resized, renamed, a new query). */
export function changedTiles(before: readonly PreviewTile[], after: readonly PreviewTile[]): Set<string> {
  const old = new Map(before.map((t) => [t.key, t.fingerprint]));
  return new Set(after.filter((t) => old.get(t.key) !== t.fingerprint).map((t) => t.key));
}

function queryOf(config: JsonObject): string {
  if (config.configType === 'sql') return str(config.sqlTemplate);
  if (config.displayType === 'markdown') return str(config.markdown);
  const select = Array.isArray(config.select) ? config.select.filter(isJsonObject) : [];
  const items = select.map((s) =>
    [str(s.aggFn), str(s.valueExpression), str(s.where) && `where ${str(s.where)}`].filter(Boolean).join(' '),
  );
  const where = str(config.where);
  return [...items, where && `where ${where}`].filter(Boolean).join('; ');
}

/** The aggregate of the select item the tile's series is read from (the last, as the checker reads it). */
function aggregateOf(config: JsonObject): WindowAggregate {
  const select = Array.isArray(config.select) ? config.select.filter(isJsonObject) : [];
  return windowAggregateOf(str(select.at(-1)?.aggFn), config.asRatio === true && select.length === 2);
}

function simpleFormat(f: JsonObject): SimpleNumberFormat {
  const out: SimpleNumberFormat = {};
  if (typeof f.output === 'string') out.output = f.output;
  if (typeof f.mantissa === 'number') out.mantissa = f.mantissa;
  if (typeof f.thousandSeparated === 'boolean') out.thousandSeparated = f.thousandSeparated;
  if (typeof f.average === 'boolean') out.average = f.average;
  if (typeof f.factor === 'number' && Number.isFinite(f.factor)) out.factor = f.factor;
  if (typeof f.currencySymbol === 'string') out.currencySymbol = f.currencySymbol;
  return out;
}

function str(v: Json | undefined): string {
  return typeof v === 'string' ? v : '';
}

function num(v: Json | undefined): number {
  return typeof v === 'number' && Number.isFinite(v) ? Math.max(0, Math.round(v)) : 0;
}
