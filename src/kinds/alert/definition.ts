/**
 * Alerts (selfhosted-api §3.2, §4.2, §4.4). Tile alerts point at a managed dashboard by name
 * and at a tile by key; both become ids only when known (the dashboard may be created in the
 * same apply). PUT replaces the alert but keeps omitted thresholdMax/scheduleStartAt/
 * scheduleOffsetMinutes, so updates always send explicit values for those.
 */
import type { Address } from '../../core/plan.js';
import type { DesiredResource } from '../../core/resource.js';
import type { Json, JsonObject, WireAlert } from '../../core/wire.js';
import type { Canonical, KindDefinition, Lookups } from '../kind.js';
import { resolveRef, tokenForId, tokenJson, type NameOrId } from '../refs.js';
import type { AlertChannelSpec, AlertSpecView } from './model.js';

type Res = DesiredResource<AlertSpecView>;
const RANGE_TYPES = new Set(['between', 'not_between']);

export const alertDefinition: KindDefinition<AlertSpecView, WireAlert> = {
  kind: 'Alert',
  rank: 2,
  creatable: true,
  deletable: true,
  liveObjects: (live) => live.alerts,
  dependencies: (res) => (typeof res.spec.dashboard === 'string' ? [`Dashboard/${res.spec.dashboard}` as Address] : []),

  desiredKey(res, lookups) {
    const name = res.spec.name ?? '';
    if (res.spec.savedSearch !== undefined) {
      const search = resolveRef(lookups.savedSearches, res.spec.savedSearch, 'saved search');
      return search.ok ? `search:${name}|${search.id}` : null;
    }
    const ids = tileIds(res, lookups);
    return ids ? `tile:${name}|${ids.dashboardId}|${ids.tileId}` : null;
  },

  liveKey(live) {
    const name = live.name ?? '';
    return live.source === 'saved_search' ? `search:${name}|${live.savedSearchId ?? ''}` : `tile:${name}|${live.dashboardId ?? ''}|${live.tileId ?? ''}`;
  },

  canonicalDesired(res, lookups): Canonical {
    const errors: string[] = [];
    const target = targetTokens(res, lookups, errors);
    const channels = channelsOf(res.spec).map((c) => {
      const r = resolveRef(lookups.webhooks, c.webhook, 'webhook');
      if (!r.ok) errors.push(`${r.error} (at spec.channel)`);
      return { type: 'webhook', webhook: r.ok ? tokenJson(r.token) : null };
    });
    if (errors.length > 0) return { ok: false, errors };
    const value = withCommon(target, res.spec);
    value.channels = channels;
    return { ok: true, value };
  },

  canonicalLive(live, { lookups }) {
    const target: JsonObject =
      live.source === 'saved_search'
        ? { savedSearch: tokenJson(tokenForId(lookups.savedSearches, live.savedSearchId ?? '')), groupBy: live.groupBy ?? null }
        : liveTileTarget(live, lookups);
    const channels = (live.channels ?? (live.channel ? [live.channel] : [])).map((c) => ({
      type: c.type,
      webhook: typeof c.webhookId === 'string' ? tokenJson(tokenForId(lookups.webhooks, c.webhookId)) : null,
    }));
    // Assigned one by one onto the target: `{ ...target, many: props }` is slow on Node 20.
    const out = target;
    out.interval = live.interval;
    out.threshold = live.threshold;
    out.thresholdType = live.thresholdType;
    if (RANGE_TYPES.has(live.thresholdType) && live.thresholdMax != null) out.thresholdMax = live.thresholdMax;
    out.name = live.name ?? null;
    out.message = live.message ?? null;
    out.note = live.note ?? null;
    out.numConsecutiveWindows = live.numConsecutiveWindows ?? null;
    out.scheduleOffsetMinutes = live.scheduleOffsetMinutes ?? 0;
    out.scheduleStartAt = normalizeTime(live.scheduleStartAt ?? null);
    out.channels = channels;
    return out;
  },

  createPayload(res, lookups) {
    return payload(res, lookups, false);
  },

  updateCalls(res, _live, { lookups }) {
    return { payload: payload(res, lookups, true) };
  },
};

/** The fields every alert body has, assigned onto `out` (no spreads: see canonicalLive). */
function withCommon(out: JsonObject, spec: AlertSpecView): JsonObject {
  out.interval = spec.interval;
  out.threshold = spec.threshold;
  out.thresholdType = spec.thresholdType;
  if (RANGE_TYPES.has(spec.thresholdType) && spec.thresholdMax !== undefined) out.thresholdMax = spec.thresholdMax;
  out.name = spec.name ?? null;
  out.message = spec.message ?? null;
  out.note = spec.note ?? null;
  out.numConsecutiveWindows = spec.numConsecutiveWindows ?? null;
  out.scheduleOffsetMinutes = spec.scheduleStartAt ? 0 : (spec.scheduleOffsetMinutes ?? 0);
  out.scheduleStartAt = normalizeTime(spec.scheduleStartAt ?? null);
  return out;
}

function channelsOf(spec: AlertSpecView): AlertChannelSpec[] {
  if (spec.channels && spec.channels.length > 0) return spec.channels;
  return spec.channel ? [spec.channel] : [];
}

/** The server answers `scheduleStartAt` in millisecond form (`…:00.000Z`). */
function normalizeTime(value: string | null): string | null {
  if (value === null) return null;
  const t = Date.parse(value);
  return Number.isNaN(t) ? value : new Date(t).toISOString();
}

function dashboardAddress(ref: NameOrId | undefined): Address | null {
  return typeof ref === 'string' ? (`Dashboard/${ref}` as Address) : null;
}

/** Dashboard and tile ids when both are known now (null otherwise). */
function tileIds(res: Res, lookups: Lookups): { dashboardId: string; tileId: string } | null {
  const { dashboard, tile } = res.spec;
  if (dashboard === undefined || tile === undefined) return null;
  const address = dashboardAddress(dashboard);
  const dashboardId = address ? lookups.dashboardIds.get(address) : typeof dashboard === 'string' ? undefined : dashboard.id;
  const tileId = typeof tile === 'string' ? (address ? lookups.tileIds.get(address)?.get(tile) : undefined) : tile.id;
  return dashboardId && tileId ? { dashboardId, tileId } : null;
}

function targetTokens(res: Res, lookups: Lookups, errors: string[]): JsonObject {
  const { spec } = res;
  if (spec.savedSearch !== undefined) {
    const r = resolveRef(lookups.savedSearches, spec.savedSearch, 'saved search');
    if (!r.ok) errors.push(`${r.error} (at spec.savedSearch)`);
    return { savedSearch: r.ok ? tokenJson(r.token) : null, groupBy: spec.groupBy ?? null };
  }
  const dashboard = spec.dashboard ?? '';
  const address = dashboardAddress(dashboard);
  // A managed dashboard is named by its manifest; an unmanaged one stays an id unless it is managed after all.
  const dashboardToken: Json = address ? (address.slice('Dashboard/'.length)) : dashboardTokenForId(typeof dashboard === 'string' ? '' : dashboard.id, lookups);
  const tile = spec.tile ?? '';
  const tileToken: Json = typeof tile === 'string' ? tile : tileTokenForId(typeof dashboard === 'string' ? address : lookups.dashboardAddresses.get(dashboard.id) ?? null, tile.id, lookups);
  return { dashboard: dashboardToken, tile: tileToken };
}

function dashboardTokenForId(id: string, lookups: Lookups): Json {
  const address = lookups.dashboardAddresses.get(id);
  return address ? address.slice('Dashboard/'.length) : { id };
}

function tileTokenForId(dashboard: Address | null, tileId: string, lookups: Lookups): Json {
  if (dashboard) {
    for (const [key, id] of lookups.tileIds.get(dashboard) ?? []) if (id === tileId) return key;
  }
  return { id: tileId };
}

function liveTileTarget(live: WireAlert, lookups: Lookups): JsonObject {
  const dashboardId = live.dashboardId ?? '';
  const address = lookups.dashboardAddresses.get(dashboardId) ?? null;
  return { dashboard: dashboardTokenForId(dashboardId, lookups), tile: tileTokenForId(address, live.tileId ?? '', lookups) };
}

function payload(res: Res, lookups: Lookups, update: boolean): JsonObject {
  const { spec } = res;
  const body = withCommon({}, spec);
  if (!update) {
    // Create: leave out what the server would store as its own default anyway.
    if (body.scheduleStartAt === null) delete body.scheduleStartAt;
    if (body.scheduleOffsetMinutes === 0) delete body.scheduleOffsetMinutes;
  }
  if (spec.savedSearch !== undefined) {
    const r = resolveRef(lookups.savedSearches, spec.savedSearch, 'saved search');
    body.source = 'saved_search';
    body.savedSearchId = r.ok ? r.id : '';
    // Never `groupBy: null`: the hosted API refuses it (and keeps an omitted groupBy); self-hosted clears an omitted one.
    if (spec.groupBy !== undefined) body.groupBy = spec.groupBy;
  } else {
    const address = dashboardAddress(spec.dashboard);
    const tile = spec.tile ?? '';
    body.source = 'tile';
    body.dashboardId = address ? (lookups.dashboardIds.get(address) ?? { $ref: address }) : (spec.dashboard as { id: string }).id;
    body.tileId = typeof tile !== 'string' ? tile.id : address ? (lookups.tileIds.get(address)?.get(tile) ?? { $tile: [address, tile] }) : tile;
  }
  const channels = channelsOf(spec).map((c) => {
    const r = resolveRef(lookups.webhooks, c.webhook, 'webhook');
    return { type: 'webhook', webhookId: r.ok ? r.id : '' };
  });
  body.channels = channels;
  return body;
}
