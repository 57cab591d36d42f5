/**
 * Dashboard operations (reference §1.2, §3.1, §4.1, §4.4): server-owned tile and filter ids,
 * name-descending list, tile-alert cascade on PUT and DELETE, hosted-gateway differences.
 */
import type { CallerVariant, DomainError, DomainResult, JsonRecord } from './contract.js';
import { renderDashboard } from './dashboard-output.js';
import { dashboardBodySchema, type DashboardBody, type FilterInput, type TileInput } from './dashboard-schema.js';
import { semanticProblem, type TileRefs } from './dashboard-validation.js';
import { convertLegacySeries } from './legacy-series.js';
import { badRequest, formatIssues, invalidIdParam, notFoundText, ok, parseRequest, zodFailure } from './result.js';
import { findById, type Store } from './store.js';
import { text } from './json.js';
import { ZOD3 } from './zod3-messages.js';

const ALERTABLE = ['line', 'stacked_bar', 'number'];
type Failure = { ok: false; error: DomainError };

export function listDashboards(store: Store): DomainResult<JsonRecord[]> {
  const byNameDesc = [...store.state.dashboards].sort((a, b) => {
    const [x, y] = [text(a.name), text(b.name)];
    return x < y ? 1 : x > y ? -1 : 0;
  });
  return ok(byNameDesc.map(renderDashboard));
}

export function getDashboard(store: Store, id: string): DomainResult<JsonRecord> {
  const bad = invalidIdParam(id);
  if (bad) return bad;
  const stored = findById(store.state.dashboards, id);
  return stored ? ok(renderDashboard(stored)) : notFoundText('Dashboard not found');
}

/** The hosted gateway validates the body against its own schema, which has no top-level `id`. */
function hostedIdCheck(body: unknown, caller: CallerVariant): Failure | undefined {
  const hasId = caller === 'hosted' && typeof body === 'object' && body !== null && 'id' in body;
  return hasId ? badRequest("request body property can't be validated: id") : undefined;
}

function tileConfigRecord(tile: TileInput): JsonRecord {
  if (!tile.config) return convertLegacySeries(tile.series ?? [], tile.asRatio);
  const config = structuredClone(tile.config) as JsonRecord;
  // Number tiles always hide their operands; the server stores that explicitly when formulas are set.
  if (config.displayType === 'number' && config.configType !== 'sql') {
    if (Array.isArray(config.formulas) && config.formulas.length > 0) config.showOperandSeries = false;
    else delete config.showOperandSeries;
  }
  return config;
}

function storedTile(tile: TileInput, id: string): JsonRecord {
  const out: JsonRecord = { id, name: tile.name, x: tile.x, y: tile.y, w: tile.w, h: tile.h, config: tileConfigRecord(tile) };
  if (tile.containerId !== undefined) out.containerId = tile.containerId;
  if (tile.tabId !== undefined) out.tabId = tile.tabId;
  return out;
}

function storedFilter(filter: FilterInput, id: string): JsonRecord {
  return { ...(structuredClone(filter) as unknown as JsonRecord), id };
}

function dedupe(tags: string[]): string[] {
  return [...new Set(tags)];
}

function savedQueryFields(body: DashboardBody, previous: JsonRecord | undefined): JsonRecord {
  if (body.savedQuery === undefined) {
    const language = body.savedQueryLanguage !== undefined ? body.savedQueryLanguage : (previous?.savedQueryLanguage ?? null);
    return { savedQuery: previous?.savedQuery ?? null, savedQueryLanguage: language };
  }
  const language = body.savedQueryLanguage !== undefined ? body.savedQueryLanguage : body.savedQuery === null ? null : 'lucene';
  return { savedQuery: body.savedQuery, savedQueryLanguage: language };
}

interface Built {
  dashboard: JsonRecord;
  refs: TileRefs[];
}

function buildDashboard(store: Store, body: DashboardBody, id: string, previous: JsonRecord | undefined): Built {
  const oldTiles = previous && Array.isArray(previous.tiles) ? (previous.tiles as JsonRecord[]) : [];
  const oldFilters = previous && Array.isArray(previous.filters) ? (previous.filters as JsonRecord[]) : [];
  const tiles = body.tiles.map((t) => {
    const kept = oldTiles.find((o) => t.id !== undefined && t.id !== '' && o.id === t.id);
    return storedTile(t, kept ? text(kept.id) : store.newId());
  });
  const refs: TileRefs[] = tiles.map((t) => {
    const prior = oldTiles.find((o) => o.id === t.id);
    const ref: TileRefs = { config: t.config as JsonRecord };
    if (typeof t.containerId === 'string') ref.containerId = t.containerId;
    if (typeof t.tabId === 'string') ref.tabId = t.tabId;
    if (prior) ref.previousConfig = prior.config as JsonRecord;
    return ref;
  });
  const filters = body.filters
    ? body.filters.map((f: FilterInput) =>
        storedFilter(f, oldFilters.some((o) => f.id !== undefined && o.id === f.id) ? String(f.id) : store.newId()),
      )
    : oldFilters;
  const dashboard: JsonRecord = {
    id,
    name: body.name,
    tiles,
    tags: body.tags ? dedupe(body.tags) : ((previous?.tags as string[] | undefined) ?? []),
    filters,
    ...savedQueryFields(body, previous),
    savedFilterValues: body.savedFilterValues ?? (previous?.savedFilterValues as JsonRecord[] | undefined) ?? [],
    containers: (body.containers as JsonRecord[] | undefined) ?? (previous?.containers as JsonRecord[] | undefined) ?? [],
  };
  return { dashboard, refs };
}

function checkSemantics(store: Store, built: Built): Failure | undefined {
  const problem = semanticProblem({
    tiles: built.refs,
    filters: built.dashboard.filters as JsonRecord[],
    containers: built.dashboard.containers as JsonRecord[],
    state: store.state,
  });
  return problem ? badRequest(problem) : undefined;
}

export function createDashboard(store: Store, body: unknown, caller: CallerVariant): DomainResult<JsonRecord> {
  const hosted = hostedIdCheck(body, caller);
  if (hosted) return hosted;
  const parsed = dashboardBodySchema('create').safeParse(body, ZOD3);
  if (!parsed.success) return zodFailure('Body', parsed.error);
  const built = buildDashboard(store, parsed.data, store.newId(), undefined);
  const bad = checkSemantics(store, built);
  if (bad) return bad;
  store.commit({ dashboards: [...store.state.dashboards, built.dashboard] });
  return ok(renderDashboard(built.dashboard));
}

function isAlertable(tile: JsonRecord | undefined): boolean {
  const config = tile?.config;
  return typeof config === 'object' && config !== null && !Array.isArray(config) && ALERTABLE.includes(text(config.displayType));
}

export function updateDashboard(store: Store, id: string, body: unknown, caller: CallerVariant): DomainResult<JsonRecord> {
  const hosted = hostedIdCheck(body, caller);
  if (hosted) return hosted;
  const parsed = parseRequest(dashboardBodySchema('update'), body, id);
  if (!parsed.ok) return parsed;
  const previous = findById(store.state.dashboards, id);
  if (!previous) return notFoundText('Dashboard not found');
  const built = buildDashboard(store, parsed.value, id, previous);
  const bad = checkSemantics(store, built);
  if (bad) return bad;
  const tiles = built.dashboard.tiles as JsonRecord[];
  // Tile alerts whose tile vanished or is no longer alertable are deleted with the write.
  const alerts = store.state.alerts.filter(
    (a) => a.source !== 'tile' || a.dashboardId !== id || isAlertable(tiles.find((t) => t.id === a.tileId)),
  );
  store.commit({ dashboards: store.state.dashboards.map((d) => (d.id === id ? built.dashboard : d)), alerts });
  return ok(renderDashboard(built.dashboard));
}

/** Always `{}` (idempotent, no 404); deletes the dashboard's tile alerts. */
export function deleteDashboard(store: Store, id: string): DomainResult<JsonRecord> {
  const badId = invalidIdParam(id);
  if (badId) return badId;
  const dashboards = store.state.dashboards.filter((d) => d.id !== id);
  const alerts = store.state.alerts.filter((a) => !(a.source === 'tile' && a.dashboardId === id));
  if (dashboards.length !== store.state.dashboards.length || alerts.length !== store.state.alerts.length) {
    store.commit({ dashboards, alerts });
  }
  return ok({});
}

/** `POST /dashboards/validate`: always a verdict, never persists. */
export function validateDashboard(store: Store, body: unknown): DomainResult<JsonRecord> {
  const parsed = dashboardBodySchema('create').safeParse(body, ZOD3);
  if (!parsed.success) {
    const errors = parsed.error.issues.map((i) => ({ path: i.path.map(String).join('.'), message: formatIssues([{ ...i, path: [] }]) }));
    return ok({ valid: false, errors, normalized: null });
  }
  const built = buildDashboard(store, parsed.data, '', undefined);
  const problem = checkSemantics(store, built);
  if (problem) return ok({ valid: false, errors: [{ path: '', message: problem.error.message }], normalized: null });
  return ok({ valid: true, errors: [], normalized: JSON.parse(JSON.stringify(parsed.data)) as JsonRecord });
}
