import { describe, expect, it } from 'vitest';
import type { Backtest } from '../core/backtest.js';
import type { Plan } from '../core/plan.js';
import type { ChartsPort, SeriesQuery } from '../core/ports.js';
import type { JsonObject, WireSeriesRow } from '../core/wire.js';
import { alertEvaluation } from '../kinds/alert/series-query.js';
import type { BacktestSubject } from '../planner/backtest-subjects.js';
import { HOSTED_UNAVAILABLE, HOSTED_UNAVAILABLE_SHORT, runBacktests, SERIES_MAX_BUCKETS, type BacktestOptions } from './backtest.js';

const NOW = new Date(Date.UTC(2026, 10, 26, 12, 0, 0));
const SOURCE = '5eedc0de0000000000000003';

function emptyPlan(): Plan {
  return {
    formatVersion: 2,
    target: 't',
    variant: 'self-hosted',
    steps: [],
    summary: { create: 0, update: 0, delete: 0, noop: 0, move: 0 },
    prune: { requested: false, cascade: false, candidates: [], refused: [], blocked: [] },
    forget: [],
    diagnostics: [],
    errored: false,
  };
}

const alert = (more: JsonObject = {}): JsonObject => ({ interval: '5m', threshold: 10, thresholdType: 'above', ...more });
const search = (where: string): JsonObject => ({ sourceId: SOURCE, where, whereLanguage: 'lucene' });

/** A subject on a saved search; its result lands in `results[label]`. */
function subject(label: string, where: string, results: Map<string, Backtest>, more: JsonObject = {}, before?: string): BacktestSubject {
  return {
    label,
    after: alertEvaluation(alert(more), { kind: 'search', search: search(where) }),
    ...(before !== undefined ? { before: alertEvaluation(alert(), { kind: 'search', search: search(before) }) } : {}),
    attach: (r) => void results.set(label, r),
  };
}

/** Every bucket holds `value` (a count, as a string). `calls`: the alerts' requests; `sources`: the hourly counts of a source. */
function fakeCharts(value = '12'): ChartsPort & { calls: SeriesQuery[]; sources: SeriesQuery[]; fail?: boolean } {
  const calls: SeriesQuery[] = [];
  const sources: SeriesQuery[] = [];
  const port = {
    calls,
    sources,
    fail: false,
    series(q: SeriesQuery): Promise<WireSeriesRow[]> {
      (q.granularity === '1h' ? sources : calls).push(q);
      if (port.fail) return Promise.reject(new Error('POST /api/v2/charts/series: HTTP 500 (bad where)'));
      const step = 300_000;
      const rows: WireSeriesRow[] = [];
      for (let t = q.startTime; t < q.endTime; t += step) rows.push({ ts_bucket: t, group: [], 'series_0.data': value });
      return Promise.resolve(rows);
    },
  };
  return port;
}

const opts = (more: Partial<BacktestOptions> = {}): BacktestOptions => ({
  windowMs: 7 * 86_400_000,
  window: '7d',
  budget: 20,
  perAlert: 6,
  now: NOW,
  ...more,
});

describe('runBacktests', () => {
  it(
    'suggests the nearest threshold within defaults.backtest.episodeBudget, from the same rows (no ' + 'request more), never applied',
    async () => {
      const calls: SeriesQuery[] = [];
      const first = NOW.getTime() - 7 * 86_400_000;
      // 15 every 30 minutes (336 episodes above 10), 50 in three windows: two episodes.
      const big = new Set([100, 101, 900].map((i) => first + i * 300_000));
      const charts: ChartsPort = {
        series(q: SeriesQuery): Promise<WireSeriesRow[]> {
          if (q.granularity === '5m') calls.push(q);
          const rows: WireSeriesRow[] = [];
          for (let t = q.startTime; t < q.endTime; t += 300_000) {
            const value = big.has(t) ? '50' : ((t - first) / 300_000) % 6 === 0 ? '15' : '0';
            rows.push({ ts_bucket: t, group: [], 'series_0.data': value });
          }
          return Promise.resolve(rows);
        },
      };
      const results = new Map<string, Backtest>();
      const budget = { episodes: 3, per: '7d', perMs: 7 * 86_400_000 };
      await runBacktests(emptyPlan(), [subject('a', 'x:1', results)], charts, 'self-hosted', opts({ episodeBudget: budget }));
      expect(calls).toHaveLength(5);
      expect(results.get('a')).toMatchObject({
        status: 'ok',
        episodes: 336,
        suggestion: { threshold: 50, episodes: 2, firing: 3, notifications: 3, budget: { episodes: 3, per: '7d' }, allowed: 3 },
      });
      // Within the budget: no suggestion.
      const quiet = new Map<string, Backtest>();
      await runBacktests(
        emptyPlan(),
        [subject('a', 'x:1', quiet, { threshold: 40 })],
        charts,
        'self-hosted',
        opts({ episodeBudget: budget }),
      );
      expect(quiet.get('a')?.episodes).toBe(2);
      expect(quiet.get('a')?.suggestion).toBeUndefined();
    },
  );

  it('splits a week of 5-minute windows into requests of at most 500 buckets, consecutive and aligned', async () => {
    const results = new Map<string, Backtest>();
    const charts = fakeCharts();
    const run = await runBacktests(emptyPlan(), [subject('a', 'level:error', results)], charts, 'self-hosted', opts());
    expect(charts.calls).toHaveLength(5);
    for (const [i, c] of charts.calls.entries()) {
      expect((c.endTime - c.startTime) / 300_000).toBeLessThanOrEqual(SERIES_MAX_BUCKETS);
      if (i > 0) expect(c.startTime).toBe(charts.calls[i - 1]?.endTime);
    }
    expect(charts.calls.at(-1)?.endTime).toBe(Date.UTC(2026, 10, 26, 12, 0, 0));
    expect(results.get('a')).toMatchObject({
      status: 'ok',
      window: '7d',
      granularity: '5m',
      evaluated: 2016,
      firing: 2016,
      episodes: 1,
      requests: 5,
    });
    // 5 for the alert, 1 to check that its source still has data.
    expect(run).toMatchObject({ requests: 6, needed: 6, alerts: 1, skipped: 0 });
  });

  it('makes identical queries once: thresholds differ, the series do not', async () => {
    const results = new Map<string, Backtest>();
    const charts = fakeCharts();
    const run = await runBacktests(
      emptyPlan(),
      [subject('a', 'x:1', results, { threshold: 10 }), subject('b', 'x:1', results, { threshold: 20 })],
      charts,
      'self-hosted',
      opts(),
    );
    expect(charts.calls).toHaveLength(5);
    expect(run.deduplicated).toBe(5);
    expect(results.get('a')?.firing).toBe(2016);
    expect(results.get('b')?.firing).toBe(0);
  });

  it('never makes more requests than the budget, and says which alerts it skipped', async () => {
    const results = new Map<string, Backtest>();
    const charts = fakeCharts();
    const subjects = Array.from({ length: 10 }, (_, i) => subject(`s${i}`, `service:s${i}`, results));
    const run = await runBacktests(emptyPlan(), subjects, charts, 'self-hosted', opts({ budget: 12 }));
    expect(charts.calls.length + charts.sources.length).toBeLessThanOrEqual(12);
    // The two requests left over check the source once (one source).
    expect(charts.sources).toHaveLength(1);
    expect(run).toMatchObject({ requests: 11, skipped: 8, needed: 51, budget: 12 });
    expect([...results.values()].filter((r) => r.status === 'ok')).toHaveLength(2);
    expect(results.get('s9')?.status).toBe('skipped');
    expect(results.get('s9')?.reason).toContain('budget of 12 series requests is spent');
  });

  it('shortens a history longer than the cap per alert, and says so', async () => {
    const results = new Map<string, Backtest>();
    const charts = fakeCharts();
    await runBacktests(emptyPlan(), [subject('a', '', results, { interval: '1m' })], charts, 'self-hosted', opts({ perAlert: 2 }));
    expect(charts.calls).toHaveLength(2);
    expect(results.get('a')).toMatchObject({ status: 'ok', evaluated: 1000 });
    expect(results.get('a')?.reason).toContain('history shortened to 16h 40m');
  });

  it('evaluates an update before and after, sharing what they share', async () => {
    const results = new Map<string, Backtest>();
    const charts = fakeCharts();
    await runBacktests(
      emptyPlan(),
      [subject('a', 'level:error', results, { threshold: 13 }, 'level:error')],
      charts,
      'self-hosted',
      opts(),
    );
    expect(charts.calls).toHaveLength(5);
    expect(results.get('a')).toMatchObject({ firing: 0, before: { status: 'ok', firing: 2016, episodes: 1 } });
  });

  it('turns a failed request into the status of the alerts that needed it, never an error of the plan', async () => {
    const results = new Map<string, Backtest>();
    const charts = fakeCharts();
    charts.fail = true;
    const plan = emptyPlan();
    await runBacktests(plan, [subject('a', 'level:error', results)], charts, 'self-hosted', opts());
    expect(results.get('a')?.status).toBe('unavailable');
    expect(results.get('a')?.reason).toContain('a series request failed: POST /api/v2/charts/series: HTTP 500');
    expect(plan.errored).toBe(false);
  });

  it('passes an alert the series API cannot evaluate through with its reason, making no request for it', async () => {
    const results = new Map<string, Backtest>();
    const charts = fakeCharts();
    const raw: BacktestSubject = {
      label: 'raw',
      after: alertEvaluation(alert(), { kind: 'tile', config: { displayType: 'line', configType: 'sql', sqlTemplate: 'SELECT 1' } }),
      attach: (r) => void results.set('raw', r),
    };
    await runBacktests(emptyPlan(), [raw], charts, 'self-hosted', opts());
    expect(charts.calls).toHaveLength(0);
    expect(results.get('raw')?.status).toBe('unavailable');
    expect(results.get('raw')?.reason).toContain('Raw SQL tile');
  });

  it('says "not available on hosted" for every alert of a hosted target', async () => {
    const results = new Map<string, Backtest>();
    const plan = emptyPlan();
    await runBacktests(plan, [subject('a', '', results)], undefined, 'hosted', opts());
    expect(results.get('a')).toEqual({ status: 'unavailable', reason: HOSTED_UNAVAILABLE_SHORT, window: '7d' });
    expect(plan.backtest?.unavailable).toBe(HOSTED_UNAVAILABLE);
  });

  it('gives up at its deadline: the alerts say they timed out', async () => {
    const results = new Map<string, Backtest>();
    const hanging: ChartsPort = {
      series: (_q, o) => new Promise((_, reject) => o?.signal?.addEventListener('abort', () => reject(new Error('aborted')))),
    };
    await runBacktests(emptyPlan(), [subject('a', '', results)], hanging, 'self-hosted', opts({ deadlineMs: 50 }));
    expect(results.get('a')).toMatchObject({ status: 'unavailable', reason: 'the backtests timed out after 50 ms' });
  });

  it('reads an answer matching none of the asked buckets or series as unavailable, not as a week that never fired', async () => {
    const rewrites: [string, (row: WireSeriesRow) => WireSeriesRow][] = [
      ['half a window late', (row) => ({ ...row, ts_bucket: (row.ts_bucket as number) + 150_000 })],
      ['a year earlier', (row) => ({ ...row, ts_bucket: (row.ts_bucket as number) - 365 * 86_400_000 })],
      ['another series', (row) => ({ ts_bucket: row.ts_bucket ?? 0, group: [], 'series_5.data': '12' })],
    ];
    for (const [label, rewrite] of rewrites) {
      const results = new Map<string, Backtest>();
      const honest = fakeCharts('0');
      const hostile: ChartsPort = { series: async (q) => (await honest.series(q)).map(rewrite) };
      await runBacktests(emptyPlan(), [subject('a', 'level:error', results, {}, 'level:warn')], hostile, 'self-hosted', opts());
      const got = results.get('a');
      expect(got, label).toMatchObject({ status: 'unavailable', before: { status: 'unavailable' } });
      expect(got?.reason, label).toMatch(/^the chart series answer does not answer the request: none of its 500 row\(s\)/);
    }
    // No rows is an answer: nothing happened, and the windows are evaluated (a below alert would fire).
    const results = new Map<string, Backtest>();
    await runBacktests(emptyPlan(), [subject('a', 'level:error', results)], { series: () => Promise.resolve([]) }, 'self-hosted', opts());
    expect(results.get('a')).toMatchObject({ status: 'ok', evaluated: 2016, firing: 0 });
  });
});
