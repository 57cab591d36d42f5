/**
 * The counts a backtest reports for one alert condition, from the checker's replay
 * (notifications.ts): firing windows and episodes at the alert's level (any group), the
 * notifications it would have sent and from which groups, and how many episodes flapped.
 */
import type { BacktestCounts, GroupNotifications } from '../../core/backtest.js';
import type { AlertCondition, SeriesPoint, Windows } from './checker.js';
import { replayChecker } from './notifications.js';

/** An episode shorter than this many windows flaps: it paged, then cleared almost at once. */
export const FLAP_WINDOWS = 3;
/** The groups named in a plan, by notifications. */
export const TOP_GROUPS = 5;

/** The counts of a condition over the windows, from the series points. */
export function evaluateWindows(c: AlertCondition, windows: Windows, points: readonly SeriesPoint[], grouped: boolean): BacktestCounts {
  const counts: BacktestCounts = {
    evaluated: windows.count,
    firing: 0,
    episodes: 0,
    firstFiringAt: null,
    lastFiringAt: null,
    notifications: 0,
    resolutions: 0,
    flapping: 0,
    fired: [],
  };
  const byGroup = new Map<string, GroupNotifications>();
  const tally = (group: string) => {
    let g = byGroup.get(group);
    if (!g) byGroup.set(group, (g = { group, notifications: 0, resolutions: 0 }));
    return g;
  };
  const firedGroups = new Set<string>();
  let run = 0;
  const endRun = () => {
    if (run > 0 && run < FLAP_WINDOWS) counts.flapping += 1;
    run = 0;
  };
  for (const w of replayChecker(c, windows, points, grouped)) {
    for (const group of w.notified) tally(group).notifications += 1;
    for (const group of w.resolved) tally(group).resolutions += 1;
    counts.notifications += w.notified.length;
    counts.resolutions += w.resolved.length;
    if (w.alerting.length === 0) {
      endRun();
      continue;
    }
    for (const group of w.alerting) firedGroups.add(group);
    counts.firing += 1;
    if (run === 0) {
      counts.episodes += 1;
      counts.fired?.push([w.bucket, w.bucket]);
    }
    run += 1;
    const span = counts.fired?.at(-1);
    if (span) span[1] = w.bucket + windows.stepMs;
    const at = new Date(w.bucket).toISOString();
    counts.firstFiringAt ??= at;
    counts.lastFiringAt = at;
  }
  endRun();
  if (grouped) {
    counts.groups = firedGroups.size;
    counts.topGroups = topGroups([...byGroup.values()]);
  }
  return counts;
}

/** The groups that notified most (resolutions, then the name, break ties); groups that sent nothing are left out. */
function topGroups(groups: GroupNotifications[]): GroupNotifications[] {
  return groups
    .filter((g) => g.notifications + g.resolutions > 0)
    .sort(
      (a, b) => b.notifications - a.notifications || b.resolutions - a.resolutions || (a.group < b.group ? -1 : a.group > b.group ? 1 : 0),
    )
    .slice(0, TOP_GROUPS);
}
