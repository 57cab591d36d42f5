/**
 * One evaluated side of a backtest, from its series points: the checker's counts, the facts of
 * the data (issue 47 data checks), and — over the episode budget — the suggested threshold.
 */
import type { BacktestData, BacktestSide, EpisodeBudget } from '../core/backtest.js';
import { evaluateWindows } from '../kinds/alert/backtest-counts.js';
import type { AlertCondition, SeriesPoint, Windows } from '../kinds/alert/checker.js';
import { suggestThreshold } from '../kinds/alert/suggest-threshold.js';
import { thresholdLine } from '../kinds/alert/chart-series.js';

export function sideOf(
  condition: AlertCondition,
  windows: Windows,
  points: readonly SeriesPoint[],
  grouped: boolean,
  budget: (EpisodeBudget & { perMs: number }) | undefined,
): BacktestSide {
  const counts = {
    ...evaluateWindows(condition, windows, points, grouped),
    data: dataOf(points, grouped),
    threshold: thresholdLine(condition),
  };
  if (!budget) return { status: 'ok', ...counts };
  // The budget scaled to the history evaluated (3 per 7d over a 1-day history: 3/7).
  const allowed = (budget.episodes * windows.count * windows.stepMs) / budget.perMs;
  if (counts.episodes <= allowed) return { status: 'ok', ...counts };
  const found = suggestThreshold(condition, windows, points, grouped, Math.floor(allowed));
  if (!found) return { status: 'ok', ...counts };
  const { counts: quieter, threshold } = found;
  const suggestion = {
    threshold,
    episodes: quieter.episodes,
    firing: quieter.firing,
    notifications: quieter.notifications,
    budget: { episodes: budget.episodes, per: budget.per },
    allowed: Math.round(allowed * 100) / 100,
  };
  return { status: 'ok', ...counts, suggestion };
}

/** Buckets that matched something (a value other than 0), and the distinct groups (groupBy). */
function dataOf(points: readonly SeriesPoint[], grouped: boolean): BacktestData {
  const matched = points.filter((p) => p.value !== null && p.value !== 0).length;
  if (!grouped) return { matched };
  return { matched, groups: new Set(points.filter((p) => p.value !== null).map((p) => p.group)).size };
}
