/**
 * The data checks of a changed alert (issue 47), from the facts its backtest gathered within the
 * request budget: a query that matched nothing over the window (the alert can never fire, or
 * fires on no data alone), a source with no data since a time, a groupBy with too many groups.
 * Warnings by default at the manifest's file:line; `policy.rules` makes them errors or off.
 */
import type { Backtest } from '../core/backtest.js';
import type { DesiredResource } from '../core/resource.js';
import { findingAt, type Finding } from './model.js';
import { DEFAULT_MAX_ALERT_GROUPS, severityOf, type PolicySettings } from './settings.js';

export function dataFindings(res: DesiredResource, backtest: Backtest, settings: PolicySettings | undefined): Finding[] {
  const data = backtest.data;
  if (!data) return [];
  const out: Finding[] = [];
  const empty = severityOf('empty-query', settings);
  if (empty && data.matched === 0) {
    const fires = (backtest.firing ?? 0) > 0 ? 'it fires only because there is no data' : 'this alert can never fire';
    out.push(
      findingAt(
        res,
        'empty-query',
        empty,
        `${res.address}: its query matched no rows over the last ${backtest.window}: ${fires} — check its where and source`,
      ),
    );
  }
  const stale = severityOf('stale-source', settings);
  if (stale && data.noDataSince !== undefined) {
    const since = data.noDataSince === null ? `over the last ${backtest.window}` : `since ${utc(data.noDataSince)}`;
    out.push(findingAt(res, 'stale-source', stale, `${res.address}: its source has had no data ${since}`));
  }
  const many = severityOf('group-cardinality', settings);
  const max = settings?.maxAlertGroups ?? DEFAULT_MAX_ALERT_GROUPS;
  if (many && data.groups !== undefined && data.groups > max)
    out.push(
      findingAt(
        res,
        'group-cardinality',
        many,
        `${res.address}: its groupBy has ${data.groups} groups over the last ${backtest.window} (more than ${max}): each group ` +
          `notifies on its own`,
      ),
    );
  return out;
}

/** `2026-11-25 14:00 UTC`. */
function utc(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}
