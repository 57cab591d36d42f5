/**
 * Alert operations (reference §1.3, §3.2, §4.2, §4.4): validation, reference checks (before the
 * existence check on PUT), replace semantics with the few kept-when-omitted fields, paging.
 */
import type { CallerVariant, DomainError, DomainResult, JsonRecord, PageQuery, TeamFlag } from './contract.js';
import { inlineChartProblem, renderAlertChartConfig } from './alert-chart-config.js';
import { alertBodySchema, type AlertBody } from './alert-schema.js';
import { isObjectId } from './ids.js';
import { paginate } from './paging.js';
import { badRequest, invalidIdParam, notFoundJson, ok, parseRequest } from './result.js';
import { findById, type Store } from './store.js';
import { text } from './json.js';

type Failure = { ok: false; error: DomainError };
type TeamFlags = ReadonlySet<TeamFlag>;
const NO_FLAGS: TeamFlags = new Set();
const ALERTABLE_SQL = ['line', 'stacked_bar', 'number'];
const INTERVAL_PARAM = /intervalSeconds|intervalMilliseconds|\$__timeInterval|\$__interval/;

/** References the server emits only when set (`?? undefined` in translateAlertDocumentToExternalAlert). */
const OMITTED_WHEN_NULL = ['groupBy', 'savedSearchId', 'dashboardId', 'tileId', 'thresholdMax', 'scheduleOffsetMinutes'];

/**
 * An inline alert's `chartConfig` is in single-alert answers (GET by id, POST, PUT) and left out of
 * list items (translateAlertDocumentToExternalAlertWithChartConfig vs the bare translator).
 */
export function renderAlert(stored: JsonRecord, teamId: string, withChart = true): JsonRecord {
  const channels = Array.isArray(stored.channels) ? stored.channels : [];
  const { chartConfig, ...rest } = stored;
  const out: JsonRecord = { ...rest, teamId };
  if (withChart && stored.source === 'inline' && chartConfig && typeof chartConfig === 'object' && !Array.isArray(chartConfig)) {
    out.chartConfig = renderAlertChartConfig(chartConfig);
  }
  for (const key of OMITTED_WHEN_NULL) if (out[key] === null) delete out[key];
  if (channels.length > 0) {
    out.channel = channels[0] ?? null;
    out.channels = channels;
  } else delete out.channels;
  return out;
}

function tileProblem(store: Store, body: AlertBody): string | undefined {
  const dashboardId = body.dashboardId ?? '';
  if (!isObjectId(dashboardId)) return 'Invalid dashboard ID';
  const dashboard = findById(store.state.dashboards, dashboardId);
  if (!dashboard) return 'Dashboard not found';
  const tiles = Array.isArray(dashboard.tiles) ? (dashboard.tiles as JsonRecord[]) : [];
  const tile = tiles.find((t) => t.id === body.tileId);
  if (!tile) return 'Tile not found';
  const config = (tile.config ?? {}) as JsonRecord;
  if (config.configType !== 'sql') return undefined;
  if (!ALERTABLE_SQL.includes(text(config.displayType))) {
    return 'Alerts on Raw SQL tiles are only supported for Line, Stacked Bar, or Number display types';
  }
  if (config.displayType !== 'number' && !INTERVAL_PARAM.test(text(config.sqlTemplate ?? ''))) {
    return 'Raw SQL alert query is invalid: SQL used for alerts must include an interval parameter or macro.';
  }
  return undefined;
}

function referenceProblem(store: Store, body: AlertBody): string | undefined {
  if (body.source === 'tile') {
    const problem = tileProblem(store, body);
    if (problem) return problem;
  } else if (body.source === 'inline') {
    const problem = inlineChartProblem(store, body.chartConfig);
    if (problem) return problem;
  } else {
    const id = body.savedSearchId ?? '';
    if (!isObjectId(id)) return 'Invalid saved search ID';
    if (!findById(store.state.savedSearches, id)) return 'Saved search not found';
  }
  const channels = body.channels ?? (body.channel ? [body.channel] : []);
  if (channels.length === 0) return 'At least one notification channel is required';
  for (const c of channels) {
    if (!isObjectId(c.webhookId)) return 'Invalid webhook ID';
    if (!findById(store.state.webhooks, c.webhookId)) return 'Webhook not found';
  }
  return undefined;
}

/**
 * The Cloud API refuses an explicit `groupBy: null` and keeps the value a PUT omits
 * (terraform-provider internal/service/clickstack/client/alert.go, Alert doc).
 */
function hostedNullGroupBy(body: unknown, caller: CallerVariant): Failure | undefined {
  const nulled = caller === 'hosted' && typeof body === 'object' && body !== null && 'groupBy' in body && body.groupBy === null;
  return nulled ? badRequest('Body validation failed: groupBy: Invalid input: expected string, received null') : undefined;
}

/**
 * The Cloud API's `30s` interval "needs a team feature flag" (hosted-api.md §0.1); the spec gives
 * no message for a team without it, so this one is the sandbox's: what is refused, why, what to do.
 */
export const INTERVAL_30S_NOT_ENABLED =
  'The 30s alert interval needs a feature flag this service does not have: use 1m or longer, or ask ClickHouse support to ' +
  'enable 30s alerts';

/** The body (and the path id, reported together like the server's middleware), then the team's flags, then the references. */
function parseBody(
  store: Store,
  body: unknown,
  caller: CallerVariant,
  flags: TeamFlags,
  id?: string,
): { ok: true; body: AlertBody } | Failure {
  const nulled = hostedNullGroupBy(body, caller);
  if (nulled) return nulled;
  const parsed = parseRequest(alertBodySchema(store.now(), caller === 'self-hosted'), body, id);
  if (!parsed.ok) return parsed;
  if (parsed.value.interval === '30s' && !flags.has('alertInterval30s')) return badRequest(INTERVAL_30S_NOT_ENABLED);
  const problem = referenceProblem(store, parsed.value);
  return problem ? badRequest(problem) : { ok: true, body: parsed.value };
}

/** Writable fields recomputed from the body; `previous` supplies the kept-when-omitted ones. */
function writable(body: AlertBody, previous: JsonRecord | undefined, caller: CallerVariant): JsonRecord {
  const out: JsonRecord = {
    name: body.name ?? null,
    message: body.message ?? null,
    note: body.note ?? null,
    threshold: body.threshold,
    interval: body.interval,
    thresholdType: body.thresholdType,
    numConsecutiveWindows: body.numConsecutiveWindows ?? null,
    source: body.source,
    channels: body.channels ?? (body.channel ? [body.channel] : []),
  };
  const thresholdMax = body.thresholdMax ?? previous?.thresholdMax;
  if (thresholdMax !== undefined) out.thresholdMax = thresholdMax;
  if (body.scheduleStartAt !== undefined) {
    // makeAlert: a start time forces the offset to 0; clearing the start time keeps a sent offset, else 0.
    out.scheduleStartAt = body.scheduleStartAt === null ? null : new Date(body.scheduleStartAt).toISOString();
    out.scheduleOffsetMinutes = body.scheduleStartAt === null ? (body.scheduleOffsetMinutes ?? 0) : 0;
  } else {
    if (previous?.scheduleStartAt !== undefined) out.scheduleStartAt = previous.scheduleStartAt;
    const offset = body.scheduleOffsetMinutes ?? previous?.scheduleOffsetMinutes;
    if (offset !== undefined) out.scheduleOffsetMinutes = offset;
  }
  if (body.source === 'tile') Object.assign(out, { dashboardId: body.dashboardId ?? null, tileId: body.tileId ?? null });
  else if (body.source === 'inline') Object.assign(out, { chartConfig: body.chartConfig ?? null });
  else {
    const kept = caller === 'hosted' && body.groupBy === undefined ? previous?.groupBy : undefined;
    Object.assign(out, { savedSearchId: body.savedSearchId ?? null, groupBy: body.groupBy ?? kept ?? null });
  }
  return out;
}

export function listAlerts(store: Store, query: PageQuery): DomainResult<JsonRecord[]> {
  return paginate(store.state.alerts, query, (a) => renderAlert(a, store.state.teamId, false));
}

export function getAlert(store: Store, id: string): DomainResult<JsonRecord> {
  const bad = invalidIdParam(id);
  if (bad) return bad;
  const alert = findById(store.state.alerts, id);
  return alert ? ok(renderAlert(alert, store.state.teamId)) : notFoundJson('Alert not found');
}

export function createAlert(
  store: Store,
  body: unknown,
  caller: CallerVariant = 'self-hosted',
  flags: TeamFlags = NO_FLAGS,
): DomainResult<JsonRecord> {
  const parsed = parseBody(store, body, caller, flags);
  if (!parsed.ok) return parsed;
  const now = store.nowIso();
  const alert: JsonRecord = { id: store.newId(), ...writable(parsed.body, undefined, caller), state: 'OK', createdAt: now, updatedAt: now };
  store.commit({ alerts: [...store.state.alerts, alert] });
  return ok(renderAlert(alert, store.state.teamId));
}

const SERVER_OWNED = ['id', 'state', 'silenced', 'executionErrors', 'createdAt'];

export function updateAlert(
  store: Store,
  id: string,
  body: unknown,
  caller: CallerVariant = 'self-hosted',
  flags: TeamFlags = NO_FLAGS,
): DomainResult<JsonRecord> {
  const parsed = parseBody(store, body, caller, flags, id);
  if (!parsed.ok) return parsed;
  const previous = findById(store.state.alerts, id);
  if (!previous) return notFoundJson('Alert not found');
  const kept = Object.fromEntries(Object.entries(previous).filter(([k]) => SERVER_OWNED.includes(k)));
  const alert: JsonRecord = { ...kept, ...writable(parsed.body, previous, caller), updatedAt: store.nowIso() };
  store.commit({ alerts: store.state.alerts.map((a) => (a.id === id ? alert : a)) });
  return ok(renderAlert(alert, store.state.teamId));
}

export function deleteAlert(store: Store, id: string): DomainResult<JsonRecord> {
  const bad = invalidIdParam(id);
  if (bad) return bad;
  if (!findById(store.state.alerts, id)) return notFoundJson('Alert not found');
  store.commit({ alerts: store.state.alerts.filter((a) => a.id !== id) });
  return ok({});
}
