/**
 * The data of the last hours for the tiles of the previewed dashboards drawn with data (line,
 * stacked bar, number, table, pie, bar), after
 * the plan and, for an update, before it: one chart series request per distinct tile query through
 * the target's chart port (self-hosted only), within what the backtests left of the plan's request
 * budget, the after sides first. The tile's query as the checker reads it (its last
 * select item, or the ratio of two): the same translation as the backtests. Never throws: a tile
 * without data says why.
 */
import { errorMessage } from '../core/errors.js';
import { isJsonObject } from '../core/json.js';
import type { ChartsPort, Variant } from '../core/ports.js';
import { type DashboardPreviewInput, PREVIEW_WINDOW, type TileData } from '../core/preview.js';
import type { JsonObject } from '../core/wire.js';
import { alertWindows, seriesPoints } from '../kinds/alert/checker.js';
import { alertEvaluation, seriesRequests } from '../kinds/alert/series-query.js';
import { stableJson } from '../planner/diff.js';
import { SERIES_MAX_BUCKETS } from './backtest.js';

/** The displays drawn from a grouped series: over time (line, stacked bar) or summed over the window (the others). */
export const DATA_DISPLAYS: ReadonlySet<string> = new Set(['line', 'stacked_bar', 'number', 'table', 'pie', 'bar']);
/** The displays the checker reads itself; the others are asked as a line tile of the same select, where and groupBy. */
const ALERTABLE_DISPLAYS = new Set(['line', 'stacked_bar', 'number']);
export const PREVIEW_HISTORY_MS = PREVIEW_WINDOW.historyMs;
const PREVIEW_INTERVAL = '5m';
/** The tile's query, asked as an alert of the checker would ask it (the threshold does not matter). */
const AS_ALERT: JsonObject = { interval: PREVIEW_INTERVAL, threshold: 0, thresholdType: 'above' };

export interface PreviewDataOptions {
  charts: ChartsPort | undefined;
  variant: Variant;
  /** Series requests left of the plan's budget. */
  budget: number;
  now: Date;
  signal?: AbortSignal;
}

export async function fillPreviewData(inputs: readonly DashboardPreviewInput[], opts: PreviewDataOptions): Promise<void> {
  const asked = new Map<string, TileData>();
  const budget = { left: opts.budget };
  // The after sides first (what the plan makes), then the before sides of updates; a query asked once answers both.
  for (const input of inputs) input.data = await tilesData(input.after, asked, budget, opts);
  for (const input of inputs) if (input.before) input.beforeData = await tilesData(input.before, asked, budget, opts);
}

async function tilesData(
  body: JsonObject,
  asked: Map<string, TileData>,
  budget: { left: number },
  opts: PreviewDataOptions,
): Promise<(TileData | undefined)[]> {
  const tiles = Array.isArray(body.tiles) ? body.tiles : [];
  const data: (TileData | undefined)[] = [];
  for (const tile of tiles) {
    const config = isJsonObject(tile) && isJsonObject(tile.config) ? tile.config : undefined;
    if (!config || typeof config.displayType !== 'string' || !DATA_DISPLAYS.has(config.displayType)) {
      data.push(undefined);
      continue;
    }
    const request = requestOf(config, opts);
    if ('reason' in request) {
      data.push(request);
      continue;
    }
    const key = stableJson(request.request);
    const known = asked.get(key);
    if (known) data.push(known);
    else if (budget.left < 1) data.push({ reason: "the plan's series request budget is spent" });
    else {
      budget.left -= 1;
      const answer = await fetched(request, opts);
      asked.set(key, answer);
      data.push(answer);
    }
  }
  return data;
}

type Request = { request: ReturnType<typeof seriesRequests>[number]; groupBy: string[]; ratio: boolean };

function requestOf(config: JsonObject, opts: PreviewDataOptions): Request | { reason: string } {
  if (!opts.charts) return { reason: opts.variant === 'hosted' ? 'hosted: no chart series API' : 'the target serves no chart series' };
  if (typeof config.sourceId !== 'string') return { reason: 'its source is created by this plan' };
  const asked =
    typeof config.displayType === 'string' && ALERTABLE_DISPLAYS.has(config.displayType) ? config : { ...config, displayType: 'line' };
  const evaluation = alertEvaluation(AS_ALERT, { kind: 'tile', config: asked });
  if (!evaluation.ok) return { reason: evaluation.reason };
  const windows = alertWindows(opts.now.getTime(), PREVIEW_HISTORY_MS, PREVIEW_WINDOW.bucketMs, SERIES_MAX_BUCKETS);
  const [request] = seriesRequests(evaluation.query, PREVIEW_INTERVAL, windows, SERIES_MAX_BUCKETS);
  if (!request) return { reason: 'no window to ask for' };
  return { request, groupBy: evaluation.query.groupBy, ratio: evaluation.query.ratio };
}

async function fetched(r: Request, opts: PreviewDataOptions): Promise<TileData> {
  try {
    const rows = await (opts.charts as ChartsPort).series(r.request, { retries: 0, ...(opts.signal ? { signal: opts.signal } : {}) });
    return { points: seriesPoints(rows, r.groupBy, r.ratio) };
  } catch (err) {
    return { reason: `its series request failed: ${errorMessage(err)}` };
  }
}
