/**
 * Dashboards (selfhosted-api §3.1, §4.1, §4.4). Compared in manifest terms: tiles keyed by
 * their stable key (plus their order), sources as names; both sides pass through the server's
 * own output normalisation so a converged dashboard compares equal. Tiles are the dashboard's
 * keyed parts: alerts hang on them, and an update that drops one (or makes it non-alertable)
 * makes the service delete the alerts on it.
 */
import { wireDashboard, type Json, type JsonObject, type WireDashboard } from '../../core/wire.js';
import { setOwn } from '../../core/json.js';
import type { Canonical, LiveRef, ManagedKind, SpecRef } from '../kind.js';
import { isNameOrId, type RefContext } from '../refs.js';
import { canonicalDashboardFields, canonicalTileConfig } from './canonical.js';
import type { DashboardSpecView, FilterSpecView } from './model.js';
import { configToApi, configToTokens, liveConfigToTokens } from './references.js';
import { dashboardToManifest, tileKeys } from './export.js';
import { dashboardSpecSchema } from './schema.js';
import { isAlertable, pairTiles } from './tiles.js';
import { summariseDashboard } from './summary.js';

type Obj = { [k: string]: Json };

/** Most dashboards rename no tile key: one shared empty answer, no allocation per plan. */
const NO_PREVIOUS_KEYS: ReadonlyMap<string, readonly string[]> = new Map();

export const dashboard: ManagedKind<'Dashboard', DashboardSpecView, WireDashboard> = {
  kind: 'Dashboard',
  description: 'A dashboard of the service: its tiles and filters. obsync creates, updates and (with --prune) deletes it.',
  managed: true,
  noun: 'dashboard',
  refersTo: ['Source', 'Connection'],
  live: wireDashboard,
  routes: {
    'self-hosted': { api: 'observability', path: 'dashboards', paging: 'none', update: 'PUT' },
    hosted: { api: 'observability', path: 'dashboards', paging: 'none', update: 'PUT' },
  },
  read: 'always',
  displayName: (live) => live.name,
  liveRefs(live) {
    const refs: LiveRef[] = [];
    for (const t of live.tiles) {
      if (typeof t.config.sourceId === 'string') refs.push({ kind: 'Source', id: t.config.sourceId });
      if (typeof t.config.connectionId === 'string') refs.push({ kind: 'Connection', id: t.config.connectionId });
    }
    for (const f of live.filters) refs.push({ kind: 'Source', id: f.sourceId });
    return refs;
  },
  spec: dashboardSpecSchema,
  creatable: true,
  deletable: true,
  summarise: summariseDashboard,
  markField: 'tags',

  references(spec) {
    const refs: SpecRef[] = [];
    spec.tiles.forEach((t, i) => {
      const source = t.config.source;
      if (isNameOrId(source)) refs.push({ kind: 'Source', ref: source, path: ['tiles', i, 'config', 'source'] });
      const connection = t.config.connection;
      if (isNameOrId(connection)) refs.push({ kind: 'Connection', ref: connection, path: ['tiles', i, 'config', 'connection'] });
    });
    (spec.filters ?? []).forEach((f, i) => refs.push({ kind: 'Source', ref: f.source, path: ['filters', i, 'source'] }));
    return refs;
  },

  desiredKey: (res) => `name:${res.spec.name}`,
  liveKey: (live) => `name:${live.name}`,
  bodyKey: (body) => `name:${typeof body.name === 'string' ? body.name : ''}`,

  parts: {
    noun: 'tile',
    keys: (spec) => spec.tiles.map((t) => t.key),
    previousKeys(spec) {
      let out: Map<string, readonly string[]> | undefined;
      for (const t of spec.tiles) if (t.previousKeys && t.previousKeys.length > 0) (out ??= new Map()).set(t.key, t.previousKeys);
      return out ?? NO_PREVIOUS_KEYS;
    },
    pair: (spec, live, known) => pairTiles(spec.tiles, live.tiles, known),
    idsInOrder: (live) => live.tiles.map((t) => t.id),
    survivingParts(spec, pairing) {
      const kept = new Set<string>();
      for (const tile of spec.tiles) {
        const id = pairing.get(tile.key);
        if (id !== undefined && isAlertable(tile.config)) kept.add(id);
      }
      return kept;
    },
    exportKeys: tileKeys,
  },

  canonicalDesired(res, refs): Canonical {
    const errors: string[] = [];
    const value = canonicalBody(desiredTokenBody(res.spec, refs, errors));
    return errors.length > 0 ? { ok: false, errors } : { ok: true, value };
  },

  canonicalLive(live, { tokens, parts }) {
    const keyOf = new Map<string, string>();
    parts?.forEach((id, key) => keyOf.set(id, key));
    const tiles = live.tiles.map((t) => ({ key: keyOf.get(t.id) ?? `~${t.id}`, body: tileBody(t, liveConfigToTokens(t.config, tokens)) }));
    const filters = live.filters.map((f) => {
      const { sourceId, ...rest } = f;
      const filter: Obj = rest as Obj;
      filter.source = liveConfigToTokens({ sourceId }, tokens).source ?? null;
      return filter;
    });
    return canonicalBody(withLists(dashboardFields(live as unknown as Obj), filters, tiles));
  },

  createPayload(res, refs) {
    return apiBody(res.spec, refs, null);
  },

  update(res, live, { refs, parts }) {
    return { payload: apiBody(res.spec, refs, { live, parts: parts ?? new Map() }) };
  },

  toManifest: dashboardToManifest,

  /** POST assigns tile and filter ids itself. */
  recreatePayload(payload) {
    const out: JsonObject = {};
    for (const [k, v] of Object.entries(payload)) setOwn(out, k, k === 'tiles' || k === 'filters' ? withoutIds(v) : v);
    return out;
  },
};

function withoutIds(list: Json): Json {
  if (!Array.isArray(list)) return list;
  return list.map((item) => {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) return item;
    const { id: _id, ...rest } = item;
    return rest;
  });
}

const DASHBOARD_FIELDS = ['name', 'tags', 'savedQuery', 'savedQueryLanguage', 'savedFilterValues', 'containers'] as const;

function dashboardFields(body: Obj): Obj {
  const out: Obj = {};
  for (const f of DASHBOARD_FIELDS) if (body[f] !== undefined) setOwn(out, f, body[f]);
  return out;
}

function tileBody(
  tile: { name: string; x: number; y: number; w: number; h: number; containerId?: string | undefined; tabId?: string | undefined },
  config: Obj,
): Obj {
  return {
    name: tile.name,
    x: tile.x,
    y: tile.y,
    w: tile.w,
    h: tile.h,
    config,
    ...(tile.containerId ? { containerId: tile.containerId } : {}),
    ...(tile.tabId ? { tabId: tile.tabId } : {}),
  };
}

interface TokenBody extends Obj {
  filters: Json[];
}

function desiredTokenBody(
  spec: DashboardSpecView,
  refs: RefContext,
  errors: string[],
): TokenBody & { tiles: { key: string; body: Obj }[] } {
  const tiles = spec.tiles.map((t, i) => ({
    key: t.key,
    body: tileBody(t, configToTokens(t.config, refs, `spec.tiles[${i}].config`, errors)),
  }));
  const filters = (spec.filters ?? []).map((f, i) => configToTokens(f, refs, `spec.filters[${i}]`, errors));
  return withLists(dashboardFields(spec as unknown as Obj), filters, tiles);
}

/** Adds the lists by assignment: `{ ...fields, filters, tiles }` is slow on Node 20, and this runs per dashboard. */
function withLists(fields: Obj, filters: Json[], tiles: { key: string; body: Obj }[]): TokenBody & { tiles: { key: string; body: Obj }[] } {
  const body = fields as TokenBody & { tiles: { key: string; body: Obj }[] };
  body.filters = filters;
  body.tiles = tiles;
  return body;
}

/** Normalised dashboard with tiles keyed by their key (readable diff paths) and their order kept apart. */
function canonicalBody(body: Obj & { tiles: { key: string; body: Obj }[] }): Json {
  const fields = canonicalDashboardFields(body);
  const keyed: Obj = {};
  for (const t of body.tiles) {
    // Tile bodies are built fresh for this comparison (tileBody): normalised in place.
    const tile = t.body;
    const config = tile.config;
    tile.config = typeof config === 'object' && config !== null && !Array.isArray(config) ? canonicalTileConfig(config) : (config ?? null);
    setOwn(keyed, t.key, tile);
  }
  fields.tiles = keyed;
  fields.tileOrder = body.tiles.map((t) => t.key);
  return fields;
}

interface UpdateContext {
  live: WireDashboard;
  /** tile key → live tile id */
  parts: ReadonlyMap<string, string>;
}

/** The write body. On update, paired tile ids and same-named filter ids go back (ids are kept only when sent). */
function apiBody(spec: DashboardSpecView, refs: RefContext, update: UpdateContext | null): JsonObject {
  const errors: string[] = [];
  const tiles = spec.tiles.map((t, i) => {
    const id = update?.parts.get(t.key);
    return { ...(id ? { id } : {}), ...tileBody(t, configToApi(t.config, refs, `spec.tiles[${i}].config`, errors)) };
  });
  const filters = (spec.filters ?? []).map((f, i) => filterBody(f, i, refs, errors, update));
  const savedQuery = spec.savedQuery ?? null;
  const body: JsonObject = {
    name: spec.name,
    tiles,
    // PUT keeps omitted fields: send every one so removing it from the manifest clears it.
    tags: spec.tags ?? [],
    filters,
    savedQuery,
    savedFilterValues: spec.savedFilterValues ?? [],
    containers: spec.containers ?? [],
  };
  const language = spec.savedQueryLanguage ?? null;
  if (language !== null || savedQuery === null) body.savedQueryLanguage = language;
  // Unresolvable references were reported by canonicalDesired; the step never reaches apply.
  return body;
}

function filterBody(filter: FilterSpecView, index: number, refs: RefContext, errors: string[], update: UpdateContext | null): Obj {
  const body = configToApi(filter, refs, `spec.filters[${index}]`, errors);
  if (!update) return body;
  const same = update.live.filters.find((f) => f.name === filter.name);
  // The update must carry an id for each filter; an unknown one makes the server assign a new id.
  return { id: same?.id ?? `new-${index}`, ...body };
}
