/**
 * The checker's own test cases (hyperdxio/hyperdx b52a6fa, packages/api/src/tasks/checkAlerts/
 * __tests__/checkAlerts.int.test.ts), ported: each run there evaluates one 5-minute window; the
 * webhook calls it counts per run are the notifications and resolutions here, window by window.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { evaluateWindows, FLAP_WINDOWS } from './backtest-counts.js';
import { exceedsThreshold, type AlertCondition, type SeriesPoint } from './checker.js';
import { replayChecker } from './notifications.js';

const STEP = 300_000;
const T0 = Date.UTC(2023, 10, 16, 22, 5);
const at = (i: number) => T0 + i * STEP;
const windows = (count: number) => ({ start: T0, count, stepMs: STEP });
const cond = (thresholdType: string, threshold: number, numConsecutiveWindows = 1): AlertCondition => ({
  thresholdType,
  threshold,
  interval: '5m',
  numConsecutiveWindows,
});
/** Rows per window: `{group: value}`; an empty object is a window without rows. */
const grouped = (perWindow: Record<string, number | null>[]): SeriesPoint[] =>
  perWindow.flatMap((w, i) => Object.entries(w).map(([group, value]) => ({ bucket: at(i), group: `ServiceName:${group}`, value })));
const single = (values: (number | undefined)[]): SeriesPoint[] =>
  values.flatMap((value, i) => (value === undefined ? [] : [{ bucket: at(i), group: '', value }]));
/** Per window: [groups notified, groups resolved], names without the column. */
const sent = (c: AlertCondition, n: number, points: SeriesPoint[], isGrouped: boolean) =>
  replayChecker(c, windows(n), points, isGrouped).map((w) => [w.notified.map(short), w.resolved.map(short)]);
const short = (g: string) => g.replace('ServiceName:', '');

describe('notifications, as the checker sends them (ported from checkAlerts.int.test.ts)', () => {
  it('Group-by alerts that resolve (missing data case): 2 alerts, then 1 alert and the resolution of the missing group', () => {
    const c = cond('above', 1);
    expect(sent(c, 2, grouped([{ 'service-a': 2, 'service-b': 2 }, { 'service-a': 2 }]), true)).toEqual([
      [['service-a', 'service-b'], []],
      [['service-a'], ['service-b']],
    ]);
    expect(evaluateWindows(c, windows(2), grouped([{ 'service-a': 2, 'service-b': 2 }, { 'service-a': 2 }]), true)).toMatchObject({
      notifications: 3,
      resolutions: 1,
      topGroups: [
        { group: 'ServiceName:service-a', notifications: 2, resolutions: 0 },
        { group: 'ServiceName:service-b', notifications: 1, resolutions: 1 },
      ],
    });
  });

  it('Group-by alerts with mixed transitions: one group stays in ALERT (notified again), one goes OK with data (resolved)', () => {
    expect(
      sent(
        cond('above', 1),
        2,
        grouped([
          { 'service-a': 2, 'service-b': 2 },
          { 'service-a': 2, 'service-b': 0 },
        ]),
        true,
      ),
    ).toEqual([
      [['service-a', 'service-b'], []],
      [['service-a'], ['service-b']],
    ]);
  });

  it('[1 error, 3 errors, 1 error] with threshold 2: an alert, then its resolution; nothing more after', () => {
    expect(sent(cond('above', 2), 4, single([1, 3, 1, 0]), false)).toEqual([
      [[], []],
      [[''], []],
      [[], ['']],
      [[], []],
    ]);
  });

  it('auto-resolves an above alert on a window without rows (zero-filled)', () => {
    expect(sent(cond('above', 1), 2, single([2, undefined]), false)).toEqual([
      [[''], []],
      [[], ['']],
    ]);
  });

  it('auto-resolves grouped alerts on zero-filled windows: 1, then 2 (app fires, api resolves), then 1 (app resolves)', () => {
    const c = cond('above', 2);
    const points = grouped([{ api: 2, app: 1 }, { app: 2 }, {}]);
    expect(sent(c, 3, points, true)).toEqual([
      [['api'], []],
      [['app'], ['api']],
      [[], ['app']],
    ]);
    expect(evaluateWindows(c, windows(3), points, true)).toMatchObject({
      firing: 2,
      episodes: 1,
      notifications: 2,
      resolutions: 2,
      groups: 2,
    });
  });

  it('does not alert a grouped below alert on zero-fill while some group has data; alerts group "" when no group has any', () => {
    const c = cond('below', 1);
    expect(sent(c, 2, grouped([{ api: 1, app: 1 }, { api: 1 }]), true)).toEqual([
      [[], []],
      [[], []],
    ]);
    expect(sent(c, 2, grouped([{ api: 1, app: 1 }, {}]), true)).toEqual([
      [[], []],
      [[''], []],
    ]);
  });

  it('same-tick breach-then-recover: an alert followed by a resolution', () => {
    expect(evaluateWindows(cond('above', 2), windows(2), single([3, 1]), false)).toMatchObject({ notifications: 1, resolutions: 1 });
  });

  describe('numConsecutiveWindows', () => {
    it('fires on the first violation with 1', () => {
      expect(sent(cond('above', 0, 1), 1, single([1]), false)).toEqual([[[''], []]]);
    });

    it('suppresses the notification until all M windows violated', () => {
      expect(sent(cond('above', 0, 3), 3, single([1, 1, 1]), false)).toEqual([
        [[], []],
        [[], []],
        [[''], []],
      ]);
    });

    it('sends no resolution when no alert had fired (PENDING, PENDING, OK)', () => {
      expect(sent(cond('above', 1, 3), 3, single([1, 1, undefined]), false)).toEqual([
        [[], []],
        [[], []],
        [[], []],
      ]);
    });

    it('tracks consecutive windows per group: one notification, service-a on its second violation', () => {
      expect(sent(cond('above', 0, 2), 2, grouped([{ 'service-a': 1 }, { 'service-a': 1, 'service-b': 1 }]), true)).toEqual([
        [[], []],
        [['service-a'], []],
      ]);
    });

    it('resolves a PENDING group that had fired (fired carried forward across a window without its history)', () => {
      // below 5, M 2: a fires in 1 (2 in a row); missing in 2 (0 breaches: no history); breaches in 3 (PENDING, fired
      // carried); OK in 4: resolved.
      expect(
        sent(cond('below', 5, 2), 5, grouped([{ a: 1, b: 9 }, { a: 1, b: 9 }, { b: 9 }, { a: 1, b: 9 }, { a: 9, b: 9 }]), true),
      ).toEqual([
        [[], []],
        [['a'], []],
        [[], []],
        [[], []],
        [[], ['a']],
      ]);
    });
  });
});

/** The firing windows and episodes as the backtest counted them before the replay: a streak per group. */
function streakFiring(c: AlertCondition, n: number, points: readonly SeriesPoint[], isGrouped: boolean): boolean[] {
  const needed = Math.max(1, c.numConsecutiveWindows ?? 1);
  let streaks = new Map<string, number>();
  const out: boolean[] = [];
  for (let i = 0; i < n; i++) {
    const rows = points.filter((p) => p.bucket === at(i));
    const breaches = new Map<string, boolean>();
    if (rows.length === 0) breaches.set('', exceedsThreshold(c, 0));
    for (const r of rows)
      if (r.value !== null)
        breaches.set(isGrouped ? r.group : '', (breaches.get(isGrouped ? r.group : '') ?? false) || exceedsThreshold(c, r.value));
    const next = new Map<string, number>();
    let fired = false;
    for (const [g, b] of breaches) {
      next.set(g, b ? (streaks.get(g) ?? 0) + 1 : 0);
      if (b && (next.get(g) ?? 0) >= needed) fired = true;
    }
    streaks = next;
    out.push(fired);
  }
  return out;
}

/** The lengths of the runs of true. */
function runLengths(flags: boolean[]): number[] {
  const out: number[] = [];
  let run = 0;
  for (const f of [...flags, false]) {
    if (f) run += 1;
    else if (run > 0) {
      out.push(run);
      run = 0;
    }
  }
  return out;
}

const N = 40;
const value = fc.option(fc.integer({ min: 0, max: 10 }), { nil: null, freq: 6 });
const groupedSeries = fc.array(fc.dictionary(fc.constantFrom('a', 'b', 'c'), value, { maxKeys: 3 }), { minLength: N, maxLength: N });

describe('properties', () => {
  it('firing windows are those of a streak per group; episodes are their runs; flapping runs are shorter than FLAP_WINDOWS', () => {
    fc.assert(
      fc.property(
        groupedSeries,
        fc.constantFrom('above', 'below', 'not_equal'),
        fc.integer({ min: 0, max: 10 }),
        fc.integer({ min: 1, max: 3 }),
        fc.boolean(),
        (w, type, t, m, isGrouped) => {
          const c = cond(type, t, m);
          const pts = grouped(w);
          const expected = streakFiring(c, N, pts, isGrouped);
          const counts = evaluateWindows(c, windows(N), pts, isGrouped);
          const runs = runLengths(expected);
          expect(counts.firing).toBe(expected.filter(Boolean).length);
          expect(counts.episodes).toBe(runs.length);
          expect(counts.flapping).toBe(runs.filter((l) => l < FLAP_WINDOWS).length);
        },
      ),
    );
  });

  it('without groupBy every firing window notifies once (re-notification), and each episode resolves at most once', () => {
    fc.assert(
      fc.property(
        fc.array(fc.option(fc.integer({ min: 0, max: 10 }), { nil: undefined }), { minLength: N, maxLength: N }),
        fc.integer({ min: 0, max: 10 }),
        fc.integer({ min: 1, max: 3 }),
        (vs, t, m) => {
          const counts = evaluateWindows(cond('above', t, m), windows(N), single(vs), false);
          expect(counts.notifications).toBe(counts.firing);
          expect(counts.resolutions).toBeLessThanOrEqual(counts.episodes);
          expect(counts.resolutions).toBeGreaterThanOrEqual(counts.episodes - 1);
        },
      ),
    );
  });
});
