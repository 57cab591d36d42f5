/**
 * Which alerts a plan backtests, and on what (issue 26): every alert it creates or updates (the
 * body it sends on the target after the plan; for an update also the live alert on the live
 * target), and every alert on a tile or saved search whose query the plan changes (the same live
 * alert on the target before and after). An inline alert's chart (`chartConfig`) is a tile config
 * in its own body: it takes the tile path. Pure: the engine runs the series requests.
 */
import type { Backtest, ImpactItem } from '../core/backtest.js';
import { isJsonObject } from '../core/json.js';
import type { PlanStep } from '../core/plan.js';
import type { JsonObject } from '../core/wire.js';
import { alertEvaluation, type AlertEvaluation, type AlertTarget } from '../kinds/alert/series-query.js';
import { tileOf, type PlannedView } from './planned-view.js';

export interface BacktestSubject {
  /** How the alert is named in messages. */
  label: string;
  /** The alert as the plan leaves it. */
  after: AlertEvaluation;
  /** An update or an impact: the alert as it is now. */
  before?: AlertEvaluation;
  /** Where the result goes (a step's `backtest`, or an impact item's). */
  attach(result: Backtest): void;
}

export function backtestSubjects(view: PlannedView): BacktestSubject[] {
  const out: BacktestSubject[] = [];
  const ownSteps = new Set<string>();
  for (const step of view.steps) {
    if (step.kind !== 'Alert' || (step.action !== 'create' && step.action !== 'update') || !step.payload) continue;
    if (step.id !== undefined) ownSteps.add(step.id);
    const live = step.action === 'update' && step.id !== undefined ? view.liveObject('Alert', step.id) : undefined;
    out.push({
      label: step.address,
      after: alertEvaluation(step.payload, targetAfter(view, step.payload)),
      ...(live ? { before: alertEvaluation(live, targetNow(view, live)) } : {}),
      attach: (result) => void (step.backtest = result),
    });
  }
  for (const step of view.steps)
    for (const item of impactedAlerts(step))
      if (item.id !== undefined && !ownSteps.has(item.id)) out.push(...impactSubject(view, item, item.id));
  return out;
}

function impactedAlerts(step: PlanStep): ImpactItem[] {
  return (step.impact ?? []).filter((i) => i.kind === 'tile-alerts' || i.kind === 'search-alerts').flatMap((i) => i.objects);
}

/** An alert on a tile or saved search the step changes: the same alert, on the target now and after. */
function impactSubject(view: PlannedView, item: ImpactItem, id: string): BacktestSubject[] {
  const live = view.liveObject('Alert', id);
  if (!live) return [];
  return [
    {
      label: item.address ?? `Alert '${item.name ?? id}' (id ${id})`,
      after: alertEvaluation(live, targetAfter(view, live)),
      before: alertEvaluation(live, targetNow(view, live)),
      attach: (result) => void (item.backtest = result),
    },
  ];
}

/** What the alert watches once the plan is applied: the bodies the plan writes, else the live objects. */
function targetAfter(view: PlannedView, alert: JsonObject): AlertTarget {
  if (alert.source === 'inline') return inlineChart(view, alert, 'after');
  if (alert.source === 'saved_search') {
    const found = view.after('SavedSearch', view.ref(alert.savedSearchId));
    if (!found) return { kind: 'none', reason: 'its saved search is not on the target' };
    return withSource(view, found.body, 'search', 'after');
  }
  const dashboard = view.ref(alert.dashboardId);
  const found = view.after('Dashboard', dashboard);
  if (!found) return { kind: 'none', reason: 'its dashboard is not on the target' };
  const tile = tileOf(found.body, found.step, view.ref(alert.tileId));
  if (!tile || !isJsonObject(tile.config)) return { kind: 'none', reason: 'its tile is not on the dashboard' };
  return withSource(view, tile.config, 'tile', 'after');
}

/** What a live alert watches now: live objects only. */
function targetNow(view: PlannedView, alert: JsonObject): AlertTarget {
  if (alert.source === 'inline') return inlineChart(view, alert, 'now');
  if (alert.source === 'saved_search') {
    const search = typeof alert.savedSearchId === 'string' ? view.liveObject('SavedSearch', alert.savedSearchId) : undefined;
    return search ? withSource(view, search, 'search', 'now') : { kind: 'none', reason: 'its saved search is gone' };
  }
  const dashboard = typeof alert.dashboardId === 'string' ? view.liveObject('Dashboard', alert.dashboardId) : undefined;
  if (!dashboard) return { kind: 'none', reason: 'its dashboard is gone' };
  const tile = tileOf(dashboard, undefined, view.ref(alert.tileId));
  if (!tile || !isJsonObject(tile.config)) return { kind: 'none', reason: 'its tile is gone' };
  return withSource(view, tile.config, 'tile', 'now');
}

/** An inline alert watches the chart it carries (a payload's or the live alert's `chartConfig`). */
function inlineChart(view: PlannedView, alert: JsonObject, when: 'after' | 'now'): AlertTarget {
  if (!isJsonObject(alert.chartConfig)) return { kind: 'none', reason: 'the service answered no chartConfig for this inline alert' };
  return withSource(view, alert.chartConfig, 'tile', when);
}

/** The target with its source as a live id, or why its data cannot be read. */
function withSource(view: PlannedView, body: JsonObject, kind: 'tile' | 'search', when: 'after' | 'now'): AlertTarget {
  if (kind === 'tile' && body.configType === 'sql') return { kind, config: body };
  const ref = view.ref(body.sourceId);
  const creating = ref.address ? view.step(ref.address) : undefined;
  if (ref.id === undefined)
    return {
      kind: 'none',
      reason:
        creating?.action === 'create'
          ? `its source ${ref.address ?? ''} is created by this plan: it has no history yet`
          : 'it names no source',
    };
  if (view.reads('Source') && !view.liveObject('Source', ref.id))
    return { kind: 'none', reason: `its source (id ${ref.id}) is gone${when === 'after' ? '' : ' from the target'}` };
  const resolved: JsonObject = { ...body, sourceId: ref.id };
  return kind === 'tile' ? { kind, config: resolved } : { kind, search: resolved };
}
