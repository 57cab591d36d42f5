/**
 * Dashboards (selfhosted-api §3.1, §4.1, §4.4). Compared in manifest terms: tiles keyed by
 * their stable key (plus their order), sources as names; both sides pass through the server's
 * own output normalisation so a converged dashboard compares equal.
 */
import type { Address } from '../../core/plan.js';
import type { DesiredResource } from '../../core/resource.js';
import type { Json, JsonObject, WireAlert, WireDashboard } from '../../core/wire.js';
import type { Canonical, KindDefinition, Lookups } from '../kind.js';
import { canonicalDashboardFields, canonicalTileConfig } from './canonical.js';
import type { DashboardSpecView, FilterSpecView } from './model.js';
import { configToApi, configToTokens, liveConfigToTokens } from './references.js';
import { isAlertable, pairTiles, tileIdsFromResponse, type TilePairing } from './tiles.js';

type Res = DesiredResource<DashboardSpecView>;
type Obj = { [k: string]: Json };

export const dashboardDefinition: KindDefinition<DashboardSpecView, WireDashboard> = {
  kind: 'Dashboard',
  rank: 1,
  creatable: true,
  deletable: true,
  liveObjects: (live) => live.dashboards,
  dependencies: () => [],
  desiredKey: (res) => `name:${res.spec.name}`,
  liveKey: (live) => `name:${live.name}`,

  onMatched(res, live, { entry, lookups }) {
    const pairing = pairTiles(res.spec.tiles, live.tiles, entry?.tiles);
    register(lookups, res.address, live.id, new Map([...pairing.byKey].map(([key, tile]) => [key, tile.id])));
  },

  canonicalDesired(res, lookups): Canonical {
    const errors: string[] = [];
    const value = canonicalBody(desiredTokenBody(res.spec, lookups, errors));
    return errors.length > 0 ? { ok: false, errors } : { ok: true, value };
  },

  canonicalLive(live, { entry, lookups }, res) {
    const pairing = pairTiles(res?.spec.tiles ?? [], live.tiles, entry?.tiles);
    const keyOf = new Map([...pairing.byKey].map(([key, tile]) => [tile.id, key]));
    const tiles = live.tiles.map((t) => ({ key: keyOf.get(t.id) ?? `~${t.id}`, body: tileBody(t, liveConfigToTokens(t.config, lookups)) }));
    const filters = live.filters.map((f) => {
      const { sourceId, ...rest } = f;
      const filter: Obj = rest as Obj;
      filter.source = liveConfigToTokens({ sourceId }, lookups).source ?? null;
      return filter;
    });
    return canonicalBody(withLists(dashboardFields(live as unknown as Obj), filters, tiles));
  },

  createPayload(res, lookups) {
    return apiBody(res.spec, lookups, null);
  },

  updateCalls(res, live, { entry, lookups }) {
    return { payload: apiBody(res.spec, lookups, { live, pairing: pairTiles(res.spec.tiles, live.tiles, entry?.tiles) }) };
  },

  recordWrite(res, live, lookups) {
    const tiles = tileIdsFromResponse(res.spec.tiles, live.tiles);
    register(lookups, res.address, live.id, new Map(Object.entries(tiles)));
    return { tiles };
  },

  notes(res, live, state, lookups) {
    if (!live) return [];
    const doomed = res ? alertsLostOnUpdate(res, live, state.alerts, lookups) : state.alerts.filter((a) => a.source === 'tile' && a.dashboardId === live.id);
    if (doomed.length === 0) return [];
    const names = doomed.map((a) => a.name ?? a.id).join(', ');
    return [`the service deletes ${doomed.length} alert(s) on ${res ? 'tiles this update removes or makes non-alertable' : 'this dashboard'}: ${names}`];
  },
};

function register(lookups: Lookups, address: Address, id: string, tiles: Map<string, string>): void {
  lookups.dashboardIds.set(address, id);
  lookups.dashboardAddresses.set(id, address);
  lookups.tileIds.set(address, tiles);
}

const DASHBOARD_FIELDS = ['name', 'tags', 'savedQuery', 'savedQueryLanguage', 'savedFilterValues', 'containers'] as const;

function dashboardFields(body: Obj): Obj {
  const out: Obj = {};
  for (const f of DASHBOARD_FIELDS) if (body[f] !== undefined) out[f] = body[f];
  return out;
}

function tileBody(tile: { name: string; x: number; y: number; w: number; h: number; containerId?: string | undefined; tabId?: string | undefined }, config: Obj): Obj {
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

function desiredTokenBody(spec: DashboardSpecView, lookups: Lookups, errors: string[]): TokenBody & { tiles: { key: string; body: Obj }[] } {
  const tiles = spec.tiles.map((t, i) => ({ key: t.key, body: tileBody(t, configToTokens(t.config, lookups, `spec.tiles[${i}].config`, errors)) }));
  const filters = (spec.filters ?? []).map((f, i) => configToTokens(f, lookups, `spec.filters[${i}]`, errors));
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
    tile.config = typeof config === 'object' && config !== null && !Array.isArray(config) ? canonicalTileConfig(config) : config ?? null;
    keyed[t.key] = tile;
  }
  fields.tiles = keyed;
  fields.tileOrder = body.tiles.map((t) => t.key);
  return fields;
}

interface UpdateContext {
  live: WireDashboard;
  pairing: TilePairing;
}

/** The write body. On update, paired tile ids and same-named filter ids go back (ids are kept only when sent). */
function apiBody(spec: DashboardSpecView, lookups: Lookups, update: UpdateContext | null): JsonObject {
  const errors: string[] = [];
  const tiles = spec.tiles.map((t, i) => {
    const id = update?.pairing.byKey.get(t.key)?.id;
    return { ...(id ? { id } : {}), ...tileBody(t, configToApi(t.config, lookups, `spec.tiles[${i}].config`, errors)) };
  });
  const filters = (spec.filters ?? []).map((f, i) => filterBody(f, i, lookups, errors, update));
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

function filterBody(filter: FilterSpecView, index: number, lookups: Lookups, errors: string[], update: UpdateContext | null): Obj {
  const body = configToApi(filter, lookups, `spec.filters[${index}]`, errors);
  if (!update) return body;
  const same = update.live.filters.find((f) => f.name === filter.name);
  // The update must carry an id for each filter; an unknown one makes the server assign a new id.
  return { id: same?.id ?? `new-${index}`, ...body };
}

/** Uses the pairing `onMatched` registered for this dashboard. */
function alertsLostOnUpdate(res: Res, live: WireDashboard, alerts: readonly WireAlert[], lookups: Lookups): WireAlert[] {
  const paired = lookups.tileIds.get(res.address);
  const kept = new Set<string>();
  for (const tile of res.spec.tiles) {
    const id = paired?.get(tile.key);
    if (id && isAlertable(tile.config)) kept.add(id);
  }
  return alerts.filter((a) => a.source === 'tile' && a.dashboardId === live.id && !kept.has(a.tileId ?? ''));
}

