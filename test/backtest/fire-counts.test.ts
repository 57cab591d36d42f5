/**
 * Issue 26, "Prove it": a plan's backtest counts equal an independent computation from the same
 * series, on saved-search and tile alerts, above and below, at the boundary value (the threshold
 * is a value the series takes, so `above` fires on it and `below` does not), with groupBy; the
 * same plan twice gives the same backtest; an update compares before → after; a changed saved
 * search or tile backtests the alerts on it. The series are asked for here, through the port,
 * with queries written by hand, and the rule below is the checker's, written again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Backtest } from '../../src/core/backtest.js';
import type { Plan } from '../../src/core/plan.js';
import type { JsonObject, WireSeriesRow } from '../../src/core/wire.js';
import { DEMO_IDS } from '../../src/sandbox/domain/seed.js';
import { TrustHarness } from '../support/reconcile.js';

const STEP = 300_000;
const NOW = new Date(Date.UTC(2026, 10, 26, 12, 3, 17));
const END = Math.floor(NOW.getTime() / STEP) * STEP;
const WINDOWS = 288;
const START = END - WINDOWS * STEP;
const BACKTEST = { windowMs: 86_400_000, window: '1d', budget: 20, perAlert: 6, now: NOW };

const ERRORS = { sourceId: DEMO_IDS.logs, aggFn: 'count', where: 'SeverityText:error', whereLanguage: 'lucene', groupBy: [] };
const P99 = {
  sourceId: DEMO_IDS.traces,
  aggFn: 'quantile',
  level: 0.99,
  field: 'Duration',
  where: '',
  whereLanguage: 'lucene',
  groupBy: [],
};
const WARN = { sourceId: DEMO_IDS.logs, aggFn: 'count', where: 'SeverityText:warn', whereLanguage: 'lucene', groupBy: [] };
const WARN_BY_SERVICE = { ...WARN, groupBy: ['ServiceName'] };

let h: TrustHarness;
const series = new Map<string, WireSeriesRow[]>();

async function rows(spec: JsonObject): Promise<WireSeriesRow[]> {
  const key = JSON.stringify(spec);
  const known = series.get(key);
  if (known) return known;
  const charts = h.port.charts;
  if (!charts) throw new Error('the self-hosted port has a chart port');
  const got = await charts.series({ series: [spec], startTime: START, endTime: END, granularity: '5m' });
  series.set(key, got);
  return got;
}

/**
 * The checker's rule, again: a window's value is its row's (counts through parseInt), 0 without one; any group firing fires the
 * window. Notifications (numConsecutiveWindows 1): one per group per firing window; a resolution when a group fired in a window
 * and not in the next (for a groupBy alert above a threshold over 0, a group without a row in the next window is resolved too).
 */
function independent(data: WireSeriesRow[], type: 'above' | 'below', threshold: number): Omit<Backtest, 'status' | 'window'> {
  const fires = (v: number) => (type === 'above' ? v >= threshold : v < threshold);
  const byBucket = new Map<number, { group: string; value: number }[]>();
  for (const r of data) {
    const raw = r['series_0.data'];
    const value = typeof raw === 'string' ? Number.parseInt(raw, 10) : (raw as number);
    byBucket.set(r.ts_bucket as number, [...(byBucket.get(r.ts_bucket as number) ?? []), { group: JSON.stringify(r.group), value }]);
  }
  let firing = 0;
  let episodes = 0;
  let notifications = 0;
  let resolutions = 0;
  let first: string | null = null;
  let last: string | null = null;
  let previous = new Set<string>();
  for (let i = 0; i < WINDOWS; i++) {
    const bucket = START + i * STEP;
    const rows = byBucket.get(bucket) ?? [{ group: '[]', value: 0 }];
    const firingGroups = new Set(rows.filter((r) => fires(r.value)).map((r) => r.group));
    notifications += firingGroups.size;
    resolutions += [...previous].filter((g) => !firingGroups.has(g)).length;
    if (firingGroups.size > 0) {
      firing += 1;
      if (previous.size === 0) episodes += 1;
      first ??= new Date(bucket).toISOString();
      last = new Date(bucket).toISOString();
    }
    previous = firingGroups;
  }
  return { evaluated: WINDOWS, firing, episodes, firstFiringAt: first, lastFiringAt: last, notifications, resolutions };
}

/** A value the series takes, at a rank (the boundary: some window equals it). */
function valueAt(data: WireSeriesRow[], rank: number): number {
  const values = data.map((r) => r['series_0.data']).map((v) => (typeof v === 'string' ? Number.parseInt(v, 10) : (v as number)));
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(rank * (sorted.length - 1))] ?? 0;
}

const doc = (kind: string, name: string, spec: string) =>
  `apiVersion: obsync/v1\nkind: ${kind}\nmetadata: {name: ${name}}\nspec: ${spec}\n---\n`;

interface Thresholds {
  errorsAbove: number;
  p99Below: number;
  warnAbove: number;
  warnBelow: number;
  groupedAbove: number;
}

function manifests(t: Thresholds, warnWhere = 'SeverityText:warn', errorsWhere = 'SeverityText:error'): Record<string, string> {
  const tile = (key: string, config: string, x: number) => `{key: ${key}, name: ${key}, x: ${x}, y: 0, w: 6, h: 4, config: ${config}}`;
  const dashboard = doc(
    'Dashboard',
    'bt',
    `{name: Backtest, tiles: ` +
      `[${tile('errors', `{displayType: line, source: Logs, select: [{aggFn: count, where: '${errorsWhere}'}]}`, 0)}, ${tile(
        'p99',
        '{displayType: line, source: Traces, select: [{aggFn: count}, {aggFn: quantile, level: 0.99, valueExpression: Duration}]}',
        6,
      )}]}`,
  );
  const search = doc('SavedSearch', 'warnings', `{name: Warnings, source: Logs, where: '${warnWhere}'}`);
  const channel = 'channel: {type: webhook, webhook: ops-slack}';
  const alert = (name: string, target: string, type: string, threshold: number, more = '') =>
    doc('Alert', name, `{${target}, threshold: ${threshold}, thresholdType: ${type}, interval: 5m, ${channel}, name: ${name}${more}}`);
  return {
    'all.yaml':
      dashboard +
      search +
      alert('tile-above', 'dashboard: bt, tile: errors', 'above', t.errorsAbove) +
      alert('tile-below', 'dashboard: bt, tile: p99', 'below', t.p99Below) +
      alert('search-above', 'savedSearch: warnings', 'above', t.warnAbove) +
      alert('search-below', 'savedSearch: warnings', 'below', t.warnBelow) +
      alert('search-grouped', 'savedSearch: warnings', 'above', t.groupedAbove, ', groupBy: ServiceName'),
  };
}

function backtestOf(plan: Plan, address: string): Backtest {
  const found = plan.steps.find((s) => s.address === address)?.backtest;
  if (!found) throw new Error(`${address} has no backtest`);
  return found;
}

let thresholds: Thresholds;

beforeAll(async () => {
  h = await TrustHarness.start();
  thresholds = {
    errorsAbove: valueAt(await rows(ERRORS), 0.9),
    p99Below: valueAt(await rows(P99), 0.1),
    warnAbove: valueAt(await rows(WARN), 0.8),
    warnBelow: valueAt(await rows(WARN), 0.2),
    groupedAbove: valueAt(await rows(WARN_BY_SERVICE), 0.95),
  };
});
afterAll(() => h.close());

describe('backtest fire counts', () => {
  it(
    'equal an independent computation from the same series, on ' + 'tile and saved-search alerts, above and below, at the boundary',
    async () => {
      h.manifests(manifests(thresholds));
      const report = await h.run({ mode: 'plan', backtest: BACKTEST });
      const expected: [string, WireSeriesRow[], 'above' | 'below', number][] = [
        ['Alert/tile-above', await rows(ERRORS), 'above', thresholds.errorsAbove],
        ['Alert/tile-below', await rows(P99), 'below', thresholds.p99Below],
        ['Alert/search-above', await rows(WARN), 'above', thresholds.warnAbove],
        ['Alert/search-below', await rows(WARN), 'below', thresholds.warnBelow],
        ['Alert/search-grouped', await rows(WARN_BY_SERVICE), 'above', thresholds.groupedAbove],
      ];
      for (const [address, data, type, threshold] of expected) {
        const got = backtestOf(report.plan, address);
        const want = independent(data, type, threshold);
        expect(got, address).toMatchObject({ status: 'ok', window: '1d', granularity: '5m', ...want });
        // Non-trivial, and the threshold is a value some window takes: the boundary is exercised.
        expect(want.firing, address).toBeGreaterThan(0);
        expect(want.firing, address).toBeLessThan(WINDOWS);
      }
      // At the boundary: counting `above` as `>` instead of `>=` would give fewer firing windows.
      const errors = await rows(ERRORS);
      const atBoundary = errors.filter((r) => r['series_0.data'] === String(thresholds.errorsAbove)).length;
      expect(atBoundary).toBeGreaterThan(0);
      const grouped = backtestOf(report.plan, 'Alert/search-grouped');
      expect(grouped.groups).toBeGreaterThan(0);
      // More than one group notified, so the groups are told apart; the top groups add up to at most the whole.
      expect(grouped.topGroups?.length).toBeGreaterThan(1);
      expect(thresholds.groupedAbove).toBeGreaterThan(0);
      const top = (grouped.topGroups ?? []).reduce((sum, g) => sum + g.notifications, 0);
      expect(top).toBeLessThanOrEqual(grouped.notifications ?? 0);
    },
  );

  it('is the same for the same plan twice', async () => {
    h.manifests(manifests(thresholds));
    const first = await h.run({ mode: 'plan', backtest: BACKTEST });
    const second = await h.run({ mode: 'plan', backtest: BACKTEST });
    const all = (p: Plan) => p.steps.map((s) => [s.address, s.backtest ?? null]);
    expect(all(second.plan)).toEqual(all(first.plan));
    expect(first.plan.backtest).toMatchObject({ alerts: 5, skipped: 0 });
  });

  it('compares before and after for an update, and backtests the alerts on a changed saved search or tile', async () => {
    h.manifests(manifests(thresholds));
    expect((await h.run({ backtest: BACKTEST })).apply?.summary.failed).toBe(0);

    const raised = { ...thresholds, errorsAbove: thresholds.errorsAbove + 3 };
    h.manifests(manifests(raised, 'SeverityText:error', 'SeverityText:error'));
    const update = await h.run({ mode: 'plan', backtest: BACKTEST });
    const bt = backtestOf(update.plan, 'Alert/tile-above');
    expect(bt.before).toMatchObject({ status: 'ok', ...independent(await rows(ERRORS), 'above', thresholds.errorsAbove) });
    expect(bt).toMatchObject(independent(await rows(ERRORS), 'above', raised.errorsAbove));
    expect(bt.firing ?? 0).toBeLessThanOrEqual(bt.before?.firing ?? 0);

    // The saved search's where changes: its alerts are listed and backtested on the new where.
    h.manifests(manifests(thresholds, 'SeverityText:error'));
    const search = await h.run({ mode: 'plan', backtest: BACKTEST });
    const impact = search.plan.steps.find((s) => s.address === 'SavedSearch/warnings')?.impact?.[0];
    expect(impact).toMatchObject({ kind: 'search-alerts', what: 'where changed' });
    const above = impact?.objects.find((o) => o.address === 'Alert/search-above');
    expect(above?.backtest).toMatchObject({ status: 'ok', ...independent(await rows(ERRORS), 'above', thresholds.warnAbove) });
    expect(above?.backtest?.before).toMatchObject({ status: 'ok', ...independent(await rows(WARN), 'above', thresholds.warnAbove) });
    expect(impact?.objects.map((o) => o.address).sort()).toEqual(['Alert/search-above', 'Alert/search-below', 'Alert/search-grouped']);

    // A tile's query changes: the alerts on it.
    h.manifests(manifests(thresholds, 'SeverityText:warn', 'SeverityText:warn'));
    const tile = await h.run({ mode: 'plan', backtest: BACKTEST });
    const tileImpact = tile.plan.steps.find((s) => s.address === 'Dashboard/bt')?.impact;
    expect(tileImpact).toEqual([
      expect.objectContaining({
        kind: 'tile-alerts',
        what: 'tile errors: query changed',
        objects: [expect.objectContaining({ address: 'Alert/tile-above', owned: true })],
      }),
    ]);
    expect(tileImpact?.[0]?.objects[0]?.backtest).toMatchObject({
      status: 'ok',
      ...independent(await rows(WARN), 'above', thresholds.errorsAbove),
    });
  });

  it('splits a week into requests of at most 500 windows and makes each identical query once', async () => {
    // Every alert updated (the thresholds move): each is evaluated before and after on the same rows.
    const moved = Object.fromEntries(Object.entries(thresholds).map(([k, v]) => [k, v + 1])) as unknown as Thresholds;
    h.manifests(manifests(moved));
    h.sandbox.clearRequests();
    const week = { ...BACKTEST, windowMs: 7 * 86_400_000, window: '7d', perAlert: 5, budget: 100 };
    const report = await h.run({ mode: 'plan', backtest: week });
    const posts = h.sandbox.requests().filter((r) => r.method === 'POST' && r.path.endsWith('/charts/series'));
    // Four distinct queries (search-above and search-below, and each alert before and after, share theirs), five requests each;
    // and one hourly count per source (Logs, Traces): do they still have data?
    expect(posts).toHaveLength(22);
    expect(report.plan.backtest).toMatchObject({ requests: 22, deduplicated: 5, alerts: 5 });
    expect(backtestOf(report.plan, 'Alert/tile-above')).toMatchObject({ evaluated: 2016, requests: 5 });
  });
});
