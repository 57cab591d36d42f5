/**
 * The pictures of one run's plan (issue 42): a preview of each dashboard it creates or updates and a
 * chart of each alert it backtested, drawn by the one drawing function (./dashboard.ts `picture`).
 * Shared by `plan --preview-dir` and the daemon's status page. ECharts and resvg are loaded only
 * when a plan has something to draw. Never throws: a picture that cannot be made is a skipped one.
 */
import type { Plan } from '../../core/plan.js';
import type { DashboardPreviewInput } from '../../core/preview.js';
import { errorMessage } from '../../core/errors.js';
import type { BacktestPreviewInput } from './backtest-pictures.js';
import type { DashboardPicture, PictureFormats } from './dashboard.js';

/** A picture and the display name it shows (a dashboard's or an alert's). */
export interface TitledPicture {
  picture: DashboardPicture;
  title: string;
}

export interface ReportPictureOptions extends PictureFormats {
  /** Draw at most this many; the rest are skipped pictures that say so. */
  max?: number;
}

export async function reportPictures(
  report: { plan: Plan; previews?: DashboardPreviewInput[] | undefined },
  opts: ReportPictureOptions,
): Promise<TitledPicture[]> {
  const dashboards = report.previews ?? [];
  const own = backtestInputs(report.plan);
  const impacts = impactBacktestInputs(report.plan);
  const backtests = [...own, ...impacts];
  if (dashboards.length + backtests.length === 0) return [];
  const max = opts.max ?? Number.POSITIVE_INFINITY;
  const over = (address: string): DashboardPicture => ({ address, skipped: `over the ${max} pictures kept of a plan` });
  try {
    const { dashboardPictures } = await import('./dashboard.js');
    const { backtestPictures } = await import('./backtest-pictures.js');
    const drawnDashboards = dashboards.slice(0, max);
    const drawnOwn = own.slice(0, Math.max(0, max - drawnDashboards.length));
    const drawnImpacts = impacts.slice(0, Math.max(0, max - drawnDashboards.length - drawnOwn.length));
    const pictures = [
      ...dashboardPictures(drawnDashboards, opts),
      ...dashboards.slice(drawnDashboards.length).map((d) => over(d.address)),
      ...backtestPictures(drawnOwn, opts),
      ...own.slice(drawnOwn.length).map((b) => over(b.address)),
      // Named `impact-…`: an alert step's chart is `backtest-…`, so no name of one can be the other's.
      ...backtestPictures(drawnImpacts, opts, 'impact'),
      ...impacts.slice(drawnImpacts.length).map((b) => over(b.address)),
    ];
    const titles = [...dashboards, ...backtests].map((i) => i.name);
    return pictures.map((picture, i) => ({ picture, title: titles[i] ?? '' }));
  } catch (err) {
    // The renderer itself could not be loaded: every picture says why.
    return [...dashboards, ...backtests].map((i) => ({ picture: { address: i.address, skipped: errorMessage(err) }, title: i.name }));
  }
}

/** The alerts of the plan whose backtest was evaluated: one chart each. */
function backtestInputs(plan: Plan): BacktestPreviewInput[] {
  return plan.steps.flatMap((step) => {
    const b = step.backtest;
    if (!b || b.status !== 'ok' || !b.series) return [];
    const name = typeof step.payload?.name === 'string' ? step.payload.name : step.name;
    return [{ address: step.address, name, backtest: b }];
  });
}

/**
 * The alerts an impact backtested (alerts on a tile or saved search the plan changes, not steps of
 * their own): one chart each, addressed as the plan names them (an undeclared alert by name and id).
 */
function impactBacktestInputs(plan: Plan): BacktestPreviewInput[] {
  return plan.steps.flatMap((step) =>
    (step.impact ?? []).flatMap((impact) =>
      impact.objects.flatMap((item) => {
        const b = item.backtest;
        if (!b || b.status !== 'ok' || !b.series) return [];
        const name = item.name ?? item.id ?? '';
        return [{ address: item.address ?? `Alert '${name}' (id ${item.id ?? '?'})`, name, backtest: b }];
      }),
    ),
  );
}
