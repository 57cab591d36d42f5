/**
 * Inline alerts (hyperdx newer than b52a6fa: `source: "inline"` with a `chartConfig`): the chart is
 * written in the same terms as a dashboard tile's config (src/kinds/dashboard/tile-config.ts), for
 * the display types the checker evaluates (line, stacked bar, number); a builder chart may add a
 * chart-level `where`. On the wire it is `chartConfig` in the v2 tile dialect (`sourceId`,
 * `connectionId`); the service's own chart `name` is kept out of manifests.
 */
import { isJsonObject, setOwn } from '../../core/json.js';
import type { Json, JsonObject } from '../../core/wire.js';
import { canonicalTileConfig } from '../dashboard/canonical.js';
import { configToManifest } from '../dashboard/export.js';
import { configToApi, configToTokens, liveConfigToTokens } from '../dashboard/references.js';
import type { ExportContext, SpecRef } from '../kind.js';
import { isNameOrId, type RefContext, type TokenContext } from '../refs.js';

export const INLINE_CHART_TYPES = ['line', 'stacked_bar', 'number'] as const;

type Obj = { [k: string]: Json };
type SpecObj = { [k: string]: unknown };

export interface InlineSpec {
  chart?: SpecObj | undefined;
  where?: string | undefined;
  whereLanguage?: string | undefined;
}

/** The chart's source and connection, as references of the alert. */
export function chartReferences(chart: SpecObj): SpecRef[] {
  const refs: SpecRef[] = [];
  if (isNameOrId(chart.source)) refs.push({ kind: 'Source', ref: chart.source, path: ['chart', 'source'] });
  if (isNameOrId(chart.connection)) refs.push({ kind: 'Connection', ref: chart.connection, path: ['chart', 'connection'] });
  return refs;
}

/** `configType: builder` is the manifests' spelling of an absent configType; the alert router refuses it. */
function withoutBuilderType(config: Obj): Obj {
  const out: Obj = {};
  for (const key in config) if (!(key === 'configType' && config[key] === 'builder')) setOwn(out, key, config[key] ?? null);
  return out;
}

function withChartWhere(config: Obj, spec: InlineSpec): Obj {
  if (config.configType !== 'sql' && spec.where) {
    config.where = spec.where;
    config.whereLanguage = spec.whereLanguage ?? 'lucene';
  }
  return config;
}

/** The `chartConfig` sent (ids). */
export function chartToApi(spec: InlineSpec, refs: RefContext, errors: string[]): Obj {
  return withChartWhere(withoutBuilderType(configToApi((spec.chart ?? {}) as Obj, refs, 'spec.chart', errors)), spec);
}

/** The desired chart in comparable terms (tokens, the service's output defaults). */
export function desiredChart(spec: InlineSpec, refs: RefContext, errors: string[]): Json {
  return canonicalChart(withChartWhere(withoutBuilderType(configToTokens((spec.chart ?? {}) as Obj, refs, 'spec.chart', errors)), spec));
}

/** The live `chartConfig` in comparable terms; null when the service answered none (an unrepresentable chart). */
export function liveChart(chartConfig: Json | undefined, tokens: TokenContext): Json {
  return isJsonObject(chartConfig) ? canonicalChart(liveConfigToTokens(chartConfig, tokens)) : null;
}

function canonicalChart(config: Obj): Obj {
  // The chart's own name is the service's (it names the alert when the alert has none): not managed.
  const out = canonicalTileConfig(config);
  delete out.name;
  if (out.configType !== 'sql' && !out.where) {
    delete out.where;
    delete out.whereLanguage;
  }
  return out;
}

/** A live chart as manifest fields: `chart` (tile terms), and the chart-level `where` beside it. */
export function chartToManifest(chartConfig: Json | undefined, ctx: ExportContext): JsonObject {
  if (!isJsonObject(chartConfig)) {
    ctx.note('the service answered no chartConfig for this inline alert (a chart its API cannot express): write spec.chart by hand');
    return {};
  }
  const { where, whereLanguage, name: _name, ...config } = chartConfig;
  const out: JsonObject = { chart: configToManifest(config, ctx) };
  if (typeof where === 'string' && where !== '') {
    out.where = where;
    if (whereLanguage !== 'lucene' && typeof whereLanguage === 'string') out.whereLanguage = whereLanguage;
  }
  return out;
}
