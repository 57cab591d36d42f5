/**
 * Alerts (selfhosted-api §3.2, §4.2, §4.4). A tile alert names a Dashboard manifest and one of
 * its tile keys; a saved-search alert names a saved search; channels name webhooks. All of them
 * are references the planner resolves (a dashboard created in the same apply is a placeholder).
 * PUT replaces the alert but keeps omitted thresholdMax/scheduleStartAt/scheduleOffsetMinutes, so
 * updates always send explicit values for those. The service deletes a tile alert with its
 * dashboard or its tile, and a saved-search alert with its saved search.
 */
import { wireAlert, type Json, type JsonObject, type WireAlert } from '../../core/wire.js';
import { isJsonObject } from '../../core/json.js';
import type { Canonical, LiveRef, ManagedKind, SpecRef } from '../kind.js';
import { tokenJson, type RefContext, type TokenContext } from '../refs.js';
import type { AlertChannelSpec, AlertSpecView } from './model.js';
import { alertSpecSchema } from './schema.js';
import { alertToManifest } from './export.js';
import { summariseAlert } from './summary.js';
import { chartReferences, chartToApi, desiredChart, liveChart } from './inline-chart.js';

const RANGE_TYPES = new Set(['between', 'not_between']);

export const alert: ManagedKind<'Alert', AlertSpecView, WireAlert> = {
  kind: 'Alert',
  description: 'An alert on a dashboard tile or a saved search, notifying webhooks. obsync creates, updates and (with --prune) deletes it.',
  managed: true,
  noun: 'alert',
  namedWithMeasures: true,
  refersTo: ['Dashboard', 'SavedSearch', 'Webhook', 'Source', 'Connection'],
  live: wireAlert,
  routes: {
    // The list leaves out an inline alert's chartConfig: each is read again by id.
    'self-hosted': {
      api: 'observability',
      path: 'alerts',
      paging: 'offset',
      update: 'PUT',
      readAgain: { field: 'source', equals: 'inline' },
    },
    hosted: { api: 'observability', path: 'alerts', paging: 'offset', update: 'PUT' },
  },
  read: 'always',
  displayName: (live) => live.name ?? '',
  // The checker's own state changes by itself: not a reason to call an object "moved".
  volatile: ['state', 'silenced', 'executionErrors'],
  deletedWith: [
    {
      parent: 'Dashboard',
      parentId: (a) => (a.source === 'tile' ? a.dashboardId : null),
      partId: (a) => (a.source === 'tile' ? a.tileId : null),
    },
    { parent: 'SavedSearch', parentId: (a) => (a.source === 'saved_search' ? a.savedSearchId : null) },
  ],
  liveRefs(live) {
    const refs: LiveRef[] = [];
    if (live.source === 'tile' && live.dashboardId)
      refs.push({ kind: 'Dashboard', id: live.dashboardId, ...(live.tileId ? { part: live.tileId } : {}) });
    if (live.source === 'saved_search' && live.savedSearchId) refs.push({ kind: 'SavedSearch', id: live.savedSearchId });
    const chart = live.source === 'inline' ? live.chartConfig : null;
    if (chart && typeof chart.sourceId === 'string') refs.push({ kind: 'Source', id: chart.sourceId });
    if (chart && typeof chart.connectionId === 'string') refs.push({ kind: 'Connection', id: chart.connectionId });
    for (const c of live.channels ?? (live.channel ? [live.channel] : []))
      if (typeof c.webhookId === 'string') refs.push({ kind: 'Webhook', id: c.webhookId });
    return refs;
  },
  // The service counts an alert as using a webhook by its legacy `channel` mirror, the first
  // channel (hyperdx b52a6fa8 controllers/webhook.ts deleteWebhook: `'channel.webhookId'`).
  holds(body) {
    const first = isJsonObject(body.channel) ? body.channel : Array.isArray(body.channels) ? body.channels[0] : undefined;
    const id = isJsonObject(first) ? first.webhookId : undefined;
    return typeof id === 'string' ? [{ kind: 'Webhook', id }] : [];
  },
  spec: alertSpecSchema,
  creatable: true,
  deletable: true,
  markField: 'note',
  summarise: summariseAlert,

  references(spec) {
    const refs: SpecRef[] = [];
    if (spec.dashboard !== undefined) {
      refs.push({
        kind: 'Dashboard',
        ref: spec.dashboard,
        path: ['dashboard'],
        declaredOnly: true,
        ...(spec.tile !== undefined ? { part: { ref: spec.tile, path: ['tile'] } } : {}),
      });
    }
    if (spec.savedSearch !== undefined) refs.push({ kind: 'SavedSearch', ref: spec.savedSearch, path: ['savedSearch'] });
    if (spec.chart !== undefined) refs.push(...chartReferences(spec.chart));
    if (spec.channels) spec.channels.forEach((c, i) => refs.push({ kind: 'Webhook', ref: c.webhook, path: ['channels', i, 'webhook'] }));
    else if (spec.channel) refs.push({ kind: 'Webhook', ref: spec.channel.webhook, path: ['channel', 'webhook'] });
    return refs;
  },

  toManifest: alertToManifest,
  desiredKey(res, refs) {
    const name = res.spec.name ?? '';
    if (res.spec.source === 'inline') return keyOf({ source: 'inline', name });
    if (res.spec.savedSearch !== undefined) {
      const search = refs.ref('SavedSearch', res.spec.savedSearch);
      return search.ok && search.id !== null ? keyOf({ source: 'saved_search', name, savedSearchId: search.id }) : null;
    }
    const { dashboard, tile } = res.spec;
    if (dashboard === undefined || tile === undefined) return null;
    const d = refs.ref('Dashboard', dashboard);
    const t = refs.part('Dashboard', dashboard, tile);
    return d.ok && t.ok && d.id !== null && t.id !== null ? keyOf({ name, dashboardId: d.id, tileId: t.id }) : null;
  },

  liveKey: (live) => keyOf(live),
  bodyKey: (body) => keyOf(body),

  canonicalDesired(res, refs): Canonical {
    const errors: string[] = [];
    const target = targetTokens(res.spec, refs, errors);
    const channels = channelsOf(res.spec).map((c, i) => {
      const r = refs.ref('Webhook', c.webhook);
      if (!r.ok)
        errors.push(`${r.error} (at spec.${res.spec.channels && res.spec.channels.length > 0 ? `channels[${i}]` : 'channel'}.webhook)`);
      return { type: 'webhook', webhook: r.ok ? tokenJson(r.token) : null };
    });
    if (errors.length > 0) return { ok: false, errors };
    const value = withCommon(target, res.spec);
    value.channels = channels;
    return { ok: true, value };
  },

  canonicalLive(live, { tokens }) {
    const target: JsonObject =
      live.source === 'saved_search'
        ? { savedSearch: tokenJson(tokens.token('SavedSearch', live.savedSearchId ?? '')), groupBy: live.groupBy ?? null }
        : live.source === 'inline'
          ? { chart: liveChart(live.chartConfig, tokens) }
          : liveTileTarget(live, tokens);
    const channels = (live.channels ?? (live.channel ? [live.channel] : [])).map((c) => ({
      type: c.type,
      webhook: typeof c.webhookId === 'string' ? tokenJson(tokens.token('Webhook', c.webhookId)) : null,
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

  createPayload(res, refs) {
    return withoutServerDefaults(payload(res.spec, refs));
  },

  update(res, _live, { refs }) {
    return { payload: payload(res.spec, refs) };
  },

  recreatePayload: (body) => withoutServerDefaults({ ...body }),
};

interface KeyFields {
  source?: Json;
  name?: Json;
  dashboardId?: Json;
  tileId?: Json;
  savedSearchId?: Json;
}

const str = (v: Json | undefined): string => (typeof v === 'string' ? v : '');

function keyOf(o: KeyFields): string {
  const name = str(o.name);
  if (o.source === 'inline') return `inline:${name}`;
  return o.source === 'saved_search' ? `search:${name}|${str(o.savedSearchId)}` : `tile:${name}|${str(o.dashboardId)}|${str(o.tileId)}`;
}

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

function targetTokens(spec: AlertSpecView, refs: RefContext, errors: string[]): JsonObject {
  if (spec.source === 'inline') return { chart: desiredChart(spec, refs, errors) };
  if (spec.savedSearch !== undefined) {
    const r = refs.ref('SavedSearch', spec.savedSearch);
    if (!r.ok) errors.push(`${r.error} (at spec.savedSearch)`);
    return { savedSearch: r.ok ? tokenJson(r.token) : null, groupBy: spec.groupBy ?? null };
  }
  const dashboard = spec.dashboard ?? '';
  const d = refs.ref('Dashboard', dashboard);
  if (!d.ok) errors.push(`${d.error} (at spec.dashboard)`);
  const t = refs.part('Dashboard', dashboard, spec.tile ?? '');
  if (!t.ok) errors.push(`${t.error} (at spec.tile)`);
  return { dashboard: d.ok ? tokenJson(d.token) : null, tile: t.ok ? tokenJson(t.token) : null };
}

function liveTileTarget(live: WireAlert, tokens: TokenContext): JsonObject {
  const dashboardId = live.dashboardId ?? '';
  return {
    dashboard: tokenJson(tokens.token('Dashboard', dashboardId)),
    tile: tokenJson(tokens.partToken('Dashboard', dashboardId, live.tileId ?? '')),
  };
}

function payload(spec: AlertSpecView, refs: RefContext): JsonObject {
  const body = withCommon({}, spec);
  if (spec.source === 'inline') {
    body.source = 'inline';
    // Unresolvable references were reported by canonicalDesired; such a step never reaches apply.
    body.chartConfig = chartToApi(spec, refs, []);
  } else if (spec.savedSearch !== undefined) {
    body.source = 'saved_search';
    body.savedSearchId = refs.wire('SavedSearch', spec.savedSearch) ?? '';
    // Never `groupBy: null`: the hosted API refuses it (and keeps an omitted groupBy); self-hosted clears an omitted one.
    if (spec.groupBy !== undefined) body.groupBy = spec.groupBy;
  } else {
    const dashboard = spec.dashboard ?? '';
    body.source = 'tile';
    body.dashboardId = refs.wire('Dashboard', dashboard) ?? '';
    body.tileId = refs.wire('Dashboard', dashboard, spec.tile ?? '') ?? '';
  }
  // Unresolvable references were reported by canonicalDesired; such a step never reaches apply.
  body.channels = channelsOf(spec).map((c) => ({ type: 'webhook', webhookId: refs.wire('Webhook', c.webhook) ?? '' }));
  return body;
}

/** Create: leave out what the server would store as its own default anyway. */
function withoutServerDefaults(body: JsonObject): JsonObject {
  if (body.scheduleStartAt === null) delete body.scheduleStartAt;
  if (body.scheduleOffsetMinutes === 0) delete body.scheduleOffsetMinutes;
  return body;
}
