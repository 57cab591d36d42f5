/**
 * What the alert checker would have sent, window by window: its per-group histories replayed in
 * steady state (one run per window, each run evaluating the window that just ended), from
 * hyperdxio/hyperdx at b52a6fa83a1a8f6d1cc70e8b676103ade6a1b207, packages/api/src/tasks/checkAlerts/index.ts
 * (`processAlert`, `getPreviousAlertHistories`, `getConsecutiveWindowHistories`). Pure.
 *
 * One history per group per run; `previous` is a group's latest history of the last 7 days.
 * - A window without rows is one value 0: when 0 breaches, the group '' breaches; otherwise the
 *   group '' is OK, unless the alert is grouped and some group was ALERT or PENDING (those are
 *   resolved below instead).
 * - A window with rows: per group (groupBy values, '' without groupBy) the group breaches when
 *   any of its rows with a value does; rows without a value (null) leave no history.
 * - A breach is ALERT when the group's previous M-1 windows (numConsecutiveWindows) each left an
 *   ALERT or PENDING history, else PENDING; PENDING carries `fired` from the group's previous
 *   history. No breach is OK.
 * - Grouped: a group that was ALERT or PENDING and has no history this run gets an OK history,
 *   unless 0 would breach. A run that wrote nothing writes an OK history for ''.
 * - Notifications: every ALERT history sends one, on every run the group stays in ALERT (the
 *   checker re-notifies each evaluation: hyperdxio/hyperdx #2464, unchanged at b52a6fa; the
 *   re-notify interval of #2754 is not merged there). An OK history whose group's previous history
 *   was ALERT or PENDING with `fired` not false sends one resolution.
 * - The history starts empty: every group is as new before the first window (no previous state).
 */
import { exceedsThreshold, type AlertCondition, type SeriesPoint, type Windows } from './checker.js';

type State = 'OK' | 'PENDING' | 'ALERT';

interface History {
  state: State;
  fired: boolean;
  window: number;
}

/** `getPreviousAlertHistories` reads the last 7 days of histories. */
const PREVIOUS_LOOKBACK_MS = 7 * 86_400_000;

/** One window of the replay: the groups in ALERT, and the notifications it sent. */
export interface ReplayedWindow {
  bucket: number;
  alerting: string[];
  notified: string[];
  resolved: string[];
}

/** Each window's groups in ALERT and notifications, oldest first. */
export function replayChecker(c: AlertCondition, windows: Windows, points: readonly SeriesPoint[], grouped: boolean): ReplayedWindow[] {
  const byBucket = new Map<number, SeriesPoint[]>();
  for (const p of points) {
    const list = byBucket.get(p.bucket);
    if (list) list.push(p);
    else byBucket.set(p.bucket, [p]);
  }
  const needed = Math.max(1, c.numConsecutiveWindows ?? 1);
  const zeroBreaches = exceedsThreshold(c, 0);
  const lookback = Math.max(1, Math.ceil(PREVIOUS_LOOKBACK_MS / windows.stepMs));
  const latest = new Map<string, History>();
  const streaks = new Map<string, number>();
  const out: ReplayedWindow[] = [];
  for (let i = 0; i < windows.count; i++) {
    const bucket = windows.start + i * windows.stepMs;
    const previous = (group: string): History | undefined => {
      const h = latest.get(group);
      return h && i - h.window < lookback ? h : undefined;
    };
    const written = new Map<string, History>();
    const breach = (group: string) => {
      const streak = streaks.get(group) ?? 0;
      written.set(
        group,
        streak >= needed - 1
          ? { state: 'ALERT', fired: true, window: i }
          : { state: 'PENDING', fired: previous(group)?.fired === true, window: i },
      );
    };
    const ok = (group: string) => written.set(group, { state: 'OK', fired: false, window: i });
    const rows = byBucket.get(bucket) ?? [];
    if (rows.length === 0) {
      if (zeroBreaches) breach('');
      else if (!grouped || ![...latest.keys()].some((g) => isActive(previous(g)))) ok('');
    } else {
      for (const [group, breaches] of groupBreaches(c, rows, grouped)) (breaches ? breach : ok)(group);
    }
    if (grouped && !zeroBreaches) for (const group of latest.keys()) if (!written.has(group) && isActive(previous(group))) ok(group);
    if (written.size === 0) ok('');
    out.push(notificationsOf(bucket, written, previous));
    for (const [group, h] of written) latest.set(group, h);
    advanceStreaks(streaks, written);
  }
  return out;
}

function isActive(h: History | undefined): boolean {
  return h?.state === 'ALERT' || h?.state === 'PENDING';
}

/** Per group with a value in the window, whether any of its rows breaches. */
function groupBreaches(c: AlertCondition, rows: readonly SeriesPoint[], grouped: boolean): Map<string, boolean> {
  const out = new Map<string, boolean>();
  for (const row of rows) {
    if (row.value === null) continue;
    const group = grouped ? row.group : '';
    out.set(group, (out.get(group) ?? false) || exceedsThreshold(c, row.value));
  }
  return out;
}

function notificationsOf(
  bucket: number,
  written: ReadonlyMap<string, History>,
  previous: (g: string) => History | undefined,
): ReplayedWindow {
  const w: ReplayedWindow = { bucket, alerting: [], notified: [], resolved: [] };
  for (const [group, h] of written) {
    if (h.state === 'ALERT') {
      w.alerting.push(group);
      w.notified.push(group);
    }
    const before = previous(group);
    if (h.state === 'OK' && isActive(before) && before?.fired !== false) w.resolved.push(group);
  }
  return w;
}

/** A group's run of ALERT/PENDING windows (`getConsecutiveWindowHistories`): a window without its history breaks it. */
function advanceStreaks(streaks: Map<string, number>, written: ReadonlyMap<string, History>): void {
  const carried = new Map<string, number>();
  for (const [group, h] of written) if (isActive(h)) carried.set(group, (streaks.get(group) ?? 0) + 1);
  streaks.clear();
  for (const [group, n] of carried) streaks.set(group, n);
}
