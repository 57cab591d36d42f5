/**
 * Runs a plan's backtests (issue 26): the series requests its alerts need, through the target's
 * chart port (so paced under the target's rate limit by its transport), then the checker's rule
 * on the rows. The one place that enforces the request budget, the cap per alert, the split of a
 * long history into requests the service answers in full, and that identical queries are made
 * once per run. A backtest never fails the plan: a failure, a timeout or an exhausted budget is
 * the alert's status, with the reason.
 */
import type { Backtest, BacktestRun, BacktestSide, EpisodeBudget } from '../core/backtest.js';
import { errorMessage } from '../core/errors.js';
import type { Plan } from '../core/plan.js';
import type { ChartsPort, Variant } from '../core/ports.js';
import type { WireSeriesRow } from '../core/wire.js';
import { alertWindows, INTERVAL_MS, seriesPoints, type Windows } from '../kinds/alert/checker.js';
import { chartSeries } from '../kinds/alert/chart-series.js';
import { unansweredRequest } from '../kinds/alert/series-answer.js';
import { seriesRequests, type AlertEvaluation, type SeriesRequest } from '../kinds/alert/series-query.js';
import type { BacktestSubject } from '../planner/backtest-subjects.js';
import { stableJson } from '../planner/diff.js';
import { sideOf } from './backtest-side.js';
import { sourceRequest, staleSince } from './source-freshness.js';

/**
 * Buckets asked for in one request. The real route has no cap (hyperdx b52a6fa8
 * routers/external-api/v2/charts.ts); the sandbox answers at most 500, and a bounded answer keeps
 * every response body bounded: a longer history is split into requests of this many windows.
 */
export const SERIES_MAX_BUCKETS = 500;

export const BACKTEST_DEFAULTS = { windowMs: 7 * 86_400_000, window: '7d', budget: 20, perAlert: 10, deadlineMs: 120_000 } as const;

export interface BacktestOptions {
  /** The history, and how the user wrote it (`7d`). */
  windowMs: number;
  window: string;
  /** Series requests one plan may make for backtests. */
  budget: number;
  /** Series requests one alert may make; a longer history is shortened to fit. */
  perAlert: number;
  /** Episodes an alert may have per period; more, and the plan suggests the nearest threshold within it. */
  episodeBudget?: EpisodeBudget & { perMs: number };
  /** The end of the history (default: now; tests fix it). */
  now?: Date;
  /** The longest the backtests of one plan may take. */
  deadlineMs?: number;
  signal?: AbortSignal;
}

interface Side {
  evaluation: Extract<AlertEvaluation, { ok: true }>;
  windows: Windows;
  keys: string[];
}

type Outcome = { rows: WireSeriesRow[] } | { error: string };

/** Why a hosted target's plan backtests nothing (the plan's summary), and the short form under each alert. */
export const HOSTED_UNAVAILABLE = 'not available on hosted: the hosted API serves no chart series queries';
export const HOSTED_UNAVAILABLE_SHORT = 'not available on hosted (no chart series API)';

export async function runBacktests(
  plan: Plan,
  subjects: readonly BacktestSubject[],
  charts: ChartsPort | undefined,
  variant: Variant,
  opts: BacktestOptions,
): Promise<BacktestRun> {
  const run: BacktestRun = {
    window: opts.window,
    budget: opts.budget,
    perAlert: opts.perAlert,
    needed: 0,
    requests: 0,
    deduplicated: 0,
    alerts: subjects.length,
    skipped: 0,
  };
  plan.backtest = run;
  if (!charts) {
    run.unavailable = variant === 'hosted' ? HOSTED_UNAVAILABLE : 'not available: the target serves no chart series queries';
    const reason = variant === 'hosted' ? HOSTED_UNAVAILABLE_SHORT : run.unavailable;
    for (const s of subjects) s.attach({ status: 'unavailable', reason, window: opts.window });
    return run;
  }
  const requests = new Map<string, SeriesRequest>();
  const at = { ...opts, now: opts.now ?? new Date() };
  const planned = subjects.map((subject) => reserve(subject, requests, run, at));
  const sources = reserveSources(planned, requests, run, at);
  const outcomes = await fetchAll(charts, requests, at);
  for (const [i, subject] of subjects.entries()) {
    const p = planned[i];
    if (p) subject.attach(withFreshness(result(p, outcomes, requests, at), p, sources, outcomes, requests));
  }
  return run;
}

/** One count per source the evaluated alerts read, each while budget is left after the alerts' own requests. */
function reserveSources(planned: readonly Reserved[], requests: Map<string, SeriesRequest>, run: BacktestRun, opts: BacktestOptions) {
  const keys = new Map<string, string>();
  const now = (opts.now ?? new Date()).getTime();
  for (const p of planned) {
    if (!('evaluation' in p.after)) continue;
    for (const { sourceId } of p.after.evaluation.query.series) {
      if (keys.has(sourceId) || run.requests + 1 > opts.budget) continue;
      const request = sourceRequest(sourceId, now - opts.windowMs, now);
      const key = stableJson(request);
      keys.set(sourceId, key);
      if (requests.has(key)) continue;
      requests.set(key, request);
      run.needed += 1;
      run.requests += 1;
    }
  }
  return keys;
}

/** The first of the alert's sources that has had no data for a while, as `data.noDataSince`. */
function withFreshness(
  b: Backtest,
  p: Reserved,
  sources: ReadonlyMap<string, string>,
  outcomes: ReadonlyMap<string, Outcome>,
  requests: ReadonlyMap<string, SeriesRequest>,
): Backtest {
  if (b.status !== 'ok' || !b.data || !('evaluation' in p.after)) return b;
  for (const { sourceId } of p.after.evaluation.query.series) {
    const key = sources.get(sourceId);
    const outcome = key === undefined ? undefined : outcomes.get(key);
    const request = key === undefined ? undefined : requests.get(key);
    if (!outcome || !request || 'error' in outcome) continue;
    const since = staleSince(request, outcome.rows);
    if (since !== undefined) return { ...b, data: { ...b.data, noDataSince: since } };
  }
  return b;
}

interface Reserved {
  after: Side | BacktestSide;
  before?: Side | BacktestSide;
  requests: number;
  note?: string;
}

/** The requests of one alert, within its cap and the plan's budget (all or none of them). */
function reserve(subject: BacktestSubject, requests: Map<string, SeriesRequest>, run: BacktestRun, opts: BacktestOptions): Reserved {
  const after = subject.after;
  if (!after.ok) return { after: { status: 'unavailable', reason: after.reason }, requests: 0 };
  const evaluations = [after, ...(subject.before?.ok ? [subject.before] : [])];
  const distinct = [...new Set(evaluations.map(queryKey))];
  const chunks = Math.floor(opts.perAlert / distinct.length);
  if (chunks < 1) {
    run.skipped += 1;
    return {
      after: { status: 'skipped', reason: `it needs ${distinct.length} series requests, more than the cap of ${opts.perAlert} per alert` },
      requests: 0,
    };
  }
  const sides = evaluations.map((e) => side(e, chunks, opts));
  const keys = [...new Set(sides.flatMap((s) => s.keys))];
  const fresh = keys.filter((k) => !requests.has(k));
  run.needed += fresh.length;
  if (run.requests + fresh.length > opts.budget) {
    run.skipped += 1;
    return {
      after: {
        status: 'skipped',
        reason:
          `the plan's backtest budget of ${opts.budget} series requests is spent (${fresh.length} more needed); ` +
          `raise it with --backtest-budget or defaults.backtest.budget`,
      },
      requests: 0,
    };
  }
  run.requests += fresh.length;
  run.deduplicated += keys.length - fresh.length;
  for (const s of sides) s.keys.forEach((k, i) => requests.set(k, requestsOf(s)[i] as SeriesRequest));
  const [afterSide, beforeSide] = sides as [Side, Side | undefined];
  const full = Math.floor(opts.windowMs / (INTERVAL_MS[afterSide.evaluation.condition.interval] ?? 1));
  const note =
    afterSide.windows.count < full
      ? `history shortened to ${duration(afterSide.windows)} (the cap of ${opts.perAlert} series requests per alert)`
      : undefined;
  const before = subject.before && !subject.before.ok ? { status: 'unavailable' as const, reason: subject.before.reason } : beforeSide;
  return { after: afterSide, ...(before ? { before } : {}), requests: fresh.length, ...(note ? { note } : {}) };
}

function side(evaluation: Extract<AlertEvaluation, { ok: true }>, chunks: number, opts: BacktestOptions): Side {
  const intervalMs = INTERVAL_MS[evaluation.condition.interval] ?? 60_000;
  const windows = alertWindows((opts.now ?? new Date()).getTime(), opts.windowMs, intervalMs, chunks * SERIES_MAX_BUCKETS);
  const out: Side = { evaluation, windows, keys: [] };
  out.keys = requestsOf(out).map((r) => stableJson(r));
  return out;
}

function requestsOf(s: Side): SeriesRequest[] {
  return seriesRequests(s.evaluation.query, s.evaluation.condition.interval, s.windows, SERIES_MAX_BUCKETS);
}

/** Two evaluations ask the same rows when their series and interval agree (thresholds do not matter). */
function queryKey(e: Extract<AlertEvaluation, { ok: true }>): string {
  return stableJson({ series: e.query.series, interval: e.condition.interval });
}

/** Every distinct request once, concurrently (the transport paces them); a failure is an outcome, not a throw. */
async function fetchAll(
  charts: ChartsPort,
  requests: ReadonlyMap<string, SeriesRequest>,
  opts: BacktestOptions,
): Promise<Map<string, Outcome>> {
  const deadline = AbortSignal.timeout(opts.deadlineMs ?? BACKTEST_DEFAULTS.deadlineMs);
  const signal = opts.signal ? AbortSignal.any([opts.signal, deadline]) : deadline;
  const entries = [...requests];
  const settled = await Promise.all(
    entries.map(async ([key, request]): Promise<[string, Outcome]> => {
      try {
        // Not retried: a deterministic 500 (a where the server cannot parse) would spend the budget again.
        return [key, { rows: await charts.series(request, { signal, retries: 0 }) }];
      } catch (err) {
        const timedOut = deadline.aborted && !opts.signal?.aborted;
        const ms = opts.deadlineMs ?? BACKTEST_DEFAULTS.deadlineMs;
        const after = ms < 1000 ? `${ms} ms` : `${Math.round(ms / 1000)} s`;
        return [key, { error: timedOut ? `the backtests timed out after ${after}` : `a series request failed: ${errorMessage(err)}` }];
      }
    }),
  );
  return new Map(settled);
}

function result(
  reserved: Reserved,
  outcomes: ReadonlyMap<string, Outcome>,
  requests: ReadonlyMap<string, SeriesRequest>,
  opts: BacktestOptions,
): Backtest {
  const after = evaluated(reserved.after, outcomes, requests, opts.episodeBudget, true);
  const out: Backtest = { ...after, window: opts.window };
  if ('evaluation' in reserved.after) {
    out.granularity = reserved.after.evaluation.condition.interval;
    out.requests = reserved.requests;
  }
  if (reserved.note && after.status === 'ok') out.reason = reserved.note;
  if (reserved.before) out.before = evaluated(reserved.before, outcomes, requests);
  return out;
}

/** One side's counts from its answers; an answer that failed, or that answers none of what was asked, makes it unavailable. */
function evaluated(
  s: Side | BacktestSide,
  outcomes: ReadonlyMap<string, Outcome>,
  requests: ReadonlyMap<string, SeriesRequest>,
  budget?: BacktestOptions['episodeBudget'],
  withSeries = false,
): BacktestSide & Pick<Backtest, 'series'> {
  if (!('evaluation' in s)) return s;
  const rows: WireSeriesRow[] = [];
  for (const key of s.keys) {
    const outcome = outcomes.get(key);
    const request = requests.get(key);
    if (!outcome || !request) return { status: 'unavailable', reason: 'a series request was not made' };
    if ('error' in outcome) return { status: 'unavailable', reason: outcome.error };
    const unanswered = unansweredRequest(request, outcome.rows);
    if (unanswered !== null) return { status: 'unavailable', reason: unanswered };
    rows.push(...outcome.rows);
  }
  const { condition, query } = s.evaluation;
  const points = seriesPoints(rows, query.groupBy, query.ratio);
  const side = sideOf(condition, s.windows, points, query.groupBy.length > 0, budget);
  return withSeries ? { ...side, series: chartSeries(condition, s.windows, points) } : side;
}

/** `3d 11h 40m`: how much history the windows cover. */
function duration(w: Windows): string {
  let minutes = Math.round((w.count * w.stepMs) / 60_000);
  const parts: string[] = [];
  for (const [unit, size] of [
    ['d', 1440],
    ['h', 60],
    ['m', 1],
  ] as const) {
    const n = Math.floor(minutes / size);
    minutes -= n * size;
    if (n > 0) parts.push(`${n}${unit}`);
  }
  return parts.join(' ') || '0m';
}
