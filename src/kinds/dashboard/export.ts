/**
 * A live dashboard as a manifest (obsync export): tiles keyed by the slug of their name (unique
 * in the dashboard), sources and connections by name, ids of tiles and filters left out, and
 * every value the server's normalisation (./canonical.ts) would fill in anyway left out too.
 */
import { assignOwn, setOwn } from '../../core/json.js';
import type { Json, JsonObject, WireDashboard, WireTile } from '../../core/wire.js';
import { isJsonObject, nameOrIdJson, setPresent, withoutDefaults } from '../export-helpers.js';
import type { ExportContext } from '../kind.js';
import { canonicalDashboardFields, canonicalSelectItem, canonicalTileConfig } from './canonical.js';
import { slugify } from './schema.js';

const MAX_KEY = 64;

/**
 * Tile id → key: the slug of the tile's name, `-2`, `-3`… on a clash, `tile` when the name has
 * none. `kept`: tiles that already have a key (a manifest's, for pull), which the others avoid.
 */
export function tileKeys(live: Pick<WireDashboard, 'tiles'>, kept?: ReadonlyMap<string, string>): Map<string, string> {
  const keys = new Map<string, string>();
  const used = new Set<string>();
  for (const tile of live.tiles) {
    const known = kept?.get(tile.id);
    if (known !== undefined) {
      keys.set(tile.id, known);
      used.add(known);
    }
  }
  for (const tile of live.tiles) {
    if (keys.has(tile.id)) continue;
    const base =
      slugify(tile.name)
        .slice(0, MAX_KEY - 4)
        .replace(/-+$/, '') || 'tile';
    let key = base;
    for (let n = 2; used.has(key); n += 1) key = `${base}-${n}`;
    used.add(key);
    keys.set(tile.id, key);
  }
  return keys;
}

export function dashboardToManifest(live: WireDashboard, ctx: ExportContext): JsonObject {
  const keys = tileKeys(live, ctx.partKeys);
  const spec: JsonObject = { name: live.name };
  setPresent(spec, 'tags', live.tags);
  const language = live.savedQueryLanguage ?? null;
  const fields = withoutDefaults({ savedQuery: live.savedQuery ?? null, savedQueryLanguage: language }, (o) => canonicalDashboardFields(o));
  if (fields.savedQuery !== undefined && fields.savedQuery !== null) spec.savedQuery = fields.savedQuery;
  if (fields.savedQueryLanguage !== undefined) spec.savedQueryLanguage = fields.savedQueryLanguage;
  setPresent(
    spec,
    'savedFilterValues',
    live.savedFilterValues.map((v) => (v.type === 'sql' ? withoutKey(v, 'type') : v)),
  );
  setPresent(spec, 'containers', live.containers ?? []);
  setPresent(
    spec,
    'filters',
    live.filters.map((f) => filterToManifest(f as unknown as JsonObject, ctx)),
  );
  spec.tiles = live.tiles.map((t) => tileToManifest(t, keys.get(t.id) ?? slugify(t.name), ctx));
  return spec;
}

function tileToManifest(tile: WireTile, key: string, ctx: ExportContext): JsonObject {
  const out: JsonObject = {};
  // The key defaults to the slug of the name: written only when it differs.
  if (key !== slugify(tile.name)) out.key = key;
  out.name = tile.name;
  out.x = tile.x;
  out.y = tile.y;
  out.w = tile.w;
  out.h = tile.h;
  out.config = configToManifest(tile.config, ctx);
  if (tile.containerId) out.containerId = tile.containerId;
  if (tile.tabId) out.tabId = tile.tabId;
  return out;
}

/** Ids as references, then whatever the server fills in left out (select items one by one). */
export function configToManifest(config: { [k: string]: Json }, ctx: ExportContext): JsonObject {
  const { sourceId, connectionId, ...rest } = config;
  const plain: JsonObject = { ...rest };
  if (Array.isArray(plain.select))
    plain.select = plain.select.map((s) => (isJsonObject(s) ? withoutDefaults(s, canonicalSelectItem, ['aggFn']) : s));
  const minimal = withoutDefaults(plain, canonicalTileConfig, ['displayType']);
  const out: JsonObject = {};
  // The references first, as a person writes them: the source (or connection), then the chart.
  if (typeof connectionId === 'string') out.connection = nameOrIdJson(ctx.ref('Connection', connectionId));
  if (typeof sourceId === 'string') out.source = nameOrIdJson(ctx.ref('Source', sourceId));
  return assignOwn(out, minimal);
}

function filterToManifest(filter: JsonObject, ctx: ExportContext): JsonObject {
  const { id: _id, sourceId, ...rest } = filter;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(rest)) {
    if (k === 'variableName' && rest.isVariableEnabled !== true) continue;
    if (k === 'appliesToSourceIds' && rest.isBroadcastEnabled === false) continue;
    if (k === 'source') continue;
    setOwn(out, k, v);
    if (k === 'expression' && typeof sourceId === 'string') out.source = nameOrIdJson(ctx.ref('Source', sourceId));
  }
  if (out.source === undefined && typeof sourceId === 'string') out.source = nameOrIdJson(ctx.ref('Source', sourceId));
  return out;
}

function withoutKey(obj: { [k: string]: Json }, key: string): JsonObject {
  const { [key]: _dropped, ...rest } = obj;
  return rest;
}
