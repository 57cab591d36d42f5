/**
 * Semantic checks of a dashboard write that need stored data (reference §3.1.9), in the
 * server's order; the first failing step wins. Tiles are given in stored (config) form.
 */
import type { JsonRecord, JsonValue } from './contract.js';
import type { DomainState } from './store.js';
import { text } from './json.js';

export interface TileRefs {
  config: JsonRecord;
  containerId?: string;
  tabId?: string;
  /** On PUT, the stored config of the tile this one keeps the id of (unchanged tiles are not re-checked for source kind). */
  previousConfig?: JsonRecord;
}

export interface SemanticInput {
  tiles: TileRefs[];
  filters: JsonRecord[];
  containers: JsonRecord[];
  state: Readonly<DomainState>;
}

const rec = (v: JsonValue | undefined): JsonRecord => (v !== null && typeof v === 'object' && !Array.isArray(v) ? v : {});
const str = (v: JsonValue | undefined): string | undefined => (typeof v === 'string' ? v : undefined);
const unique = (values: string[]): string[] => [...new Set(values)];

function containerProblems(tiles: TileRefs[], containers: JsonRecord[]): string | undefined {
  const problems: string[] = [];
  tiles.forEach((t, i) => {
    const container = t.containerId === undefined ? undefined : containers.find((c) => c.id === t.containerId);
    if (t.containerId !== undefined && !container)
      problems.push(`tiles.${i}.containerId: Tile references unknown containerId "${t.containerId}"`);
    if (t.tabId === undefined) return;
    if (t.containerId === undefined) problems.push(`tiles.${i}.tabId: tabId requires containerId to be set`);
    else if (container && !(Array.isArray(container.tabs) ? container.tabs : []).some((tab) => rec(tab).id === t.tabId)) {
      problems.push(`tiles.${i}.tabId: Tile references unknown tabId "${t.tabId}" in container "${t.containerId}"`);
    }
  });
  return problems.length > 0 ? problems.join('; ') : undefined;
}

function onClickTargetId(config: JsonRecord, type: 'search' | 'dashboard'): string | undefined {
  const onClick = rec(config.onClick);
  if (onClick.type !== type) return undefined;
  const target = rec(onClick.target);
  return target.mode === 'id' ? str(target.id) : undefined;
}

const sameJson = (a: JsonValue | undefined, b: JsonValue | undefined): boolean => JSON.stringify(a) === JSON.stringify(b);

/**
 * `filterChangedHeatmapTiles` on PUT: a heatmap tile is re-checked unless it was already a builder
 * heatmap on the same source (a source whose kind changed later must not block unrelated edits).
 */
function heatmapNeedsCheck(t: TileRefs): boolean {
  const before = t.previousConfig;
  return before === undefined || before.configType === 'sql' || before.displayType !== 'heatmap' || before.sourceId !== t.config.sourceId;
}

/** `filterChangedFormulaTiles` on PUT: re-checked unless the same formulas were already on the same source. */
function formulasNeedCheck(t: TileRefs): boolean {
  const before = t.previousConfig;
  return (
    before === undefined ||
    before.configType === 'sql' ||
    !sameJson(before.formulas, t.config.formulas) ||
    before.sourceId !== t.config.sourceId
  );
}

const hasFormulas = (config: JsonRecord): boolean => Array.isArray(config.formulas) && config.formulas.length > 0;

function sourceKindProblem(input: SemanticInput, kindOf: (id: string) => string | undefined): string | undefined {
  const gate = (needsCheck: (t: TileRefs) => boolean, applies: (config: JsonRecord) => boolean, allowed: string[]) =>
    unique(
      input.tiles
        .filter((t) => t.config.configType !== 'sql' && applies(t.config) && needsCheck(t))
        .map((t) => str(t.config.sourceId))
        .filter((id): id is string => id !== undefined && id !== '' && kindOf(id) !== undefined && !allowed.includes(kindOf(id) ?? '')),
    );
  const heatmaps = gate(heatmapNeedsCheck, (c) => c.displayType === 'heatmap', ['trace']);
  if (heatmaps.length > 0)
    return `Heatmap tiles require a Trace source. The following source IDs are not Trace sources: ${heatmaps.join(', ')}`;
  const formulas = gate(formulasNeedCheck, hasFormulas, ['metric', 'log', 'trace']);
  if (formulas.length > 0) {
    return (
      `Tiles with formulas require a Metric, Log, or Trace source. The following source IDs are not ` +
      `formula-capable: ${formulas.join(', ')}`
    );
  }
  return undefined;
}

export function semanticProblem(input: SemanticInput): string | undefined {
  const { tiles, filters, state } = input;
  const containers = containerProblems(tiles, input.containers);
  if (containers) return containers;
  const sourceById = new Map(state.sources.map((s) => [text(s.id), s]));
  const kindOf = (id: string) => str(sourceById.get(id)?.kind);
  const referenced = [
    ...tiles.map((t) => str(t.config.sourceId)),
    ...filters.map((f) => str(f.sourceId)),
    ...tiles.map((t) => onClickTargetId(t.config, 'search')),
  ].filter((id): id is string => id !== undefined);
  const missingSources = unique(referenced.filter((id) => !sourceById.has(id)));
  if (missingSources.length > 0) return `Could not find the following source IDs: ${missingSources.join(', ')}`;
  const sql = tiles.filter((t) => t.config.configType === 'sql');
  const connectionIds = new Set(state.connections.map((c) => c.id));
  const missingConnections = unique(sql.map((t) => text(t.config.connectionId)).filter((id) => !connectionIds.has(id)));
  if (missingConnections.length > 0) return `Could not find the following connection IDs: ${missingConnections.join(', ')}`;
  const mismatched = unique(
    sql
      .filter((t) => t.config.sourceId !== undefined && sourceById.get(text(t.config.sourceId))?.connection !== t.config.connectionId)
      .map((t) => text(t.config.sourceId)),
  );
  if (mismatched.length > 0) return `The following source IDs do not match the specified connections: ${mismatched.join(', ')}`;
  const kinds = sourceKindProblem(input, kindOf);
  if (kinds) return kinds;
  const dashboardTargets = tiles.map((t) => onClickTargetId(t.config, 'dashboard')).filter((id): id is string => id !== undefined);
  const missingDashboards = unique(dashboardTargets.filter((id) => !state.dashboards.some((d) => d.id === id)));
  if (missingDashboards.length > 0) return `Could not find the following onClick dashboard IDs: ${missingDashboards.join(', ')}`;
  const notSearchable = unique(
    tiles
      .map((t) => onClickTargetId(t.config, 'search'))
      .filter((id): id is string => id !== undefined && !['log', 'trace'].includes(kindOf(id) ?? '')),
  );
  if (notSearchable.length > 0) return `The following onClick search source IDs are not log or trace sources: ${notSearchable.join(', ')}`;
  return undefined;
}
