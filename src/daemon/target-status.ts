/** The target as /api/status and the page show it, assembled from the daemon's in-memory state (never a request). */
import type { TargetStatus } from '../events/status-model.js';
import type { DaemonDeps, DaemonOptions } from './daemon-deps.js';
import type { TargetReadiness } from './health.js';
import { roleOf } from './leadership-role.js';
import type { HealthView, TargetHealth } from './target-health.js';
import type { TargetRun } from './target-run.js';

export function targetStatus(
  deps: DaemonDeps,
  opts: DaemonOptions,
  known: { health: TargetHealth; run: TargetRun; view: HealthView & { readiness: TargetReadiness; nextRun: TargetStatus['nextRun'] } },
  recentEvents: TargetStatus['recentEvents'],
): TargetStatus {
  const { health, run, view } = known;
  const { state, reason, since } = health.current(view);
  const { baseUrl, organizationId, serviceId } = deps.identity;
  const f = health.failing;
  return {
    name: deps.port.target,
    variant: deps.port.variant,
    embedded: deps.embedded ?? false,
    endpoint: {
      baseUrl,
      ...(organizationId === undefined ? {} : { organizationId }),
      ...(serviceId === undefined ? {} : { serviceId }),
    },
    mode: opts.mode,
    ...(opts.mode === 'apply' ? { drift: opts.drift ?? 'revert' } : {}),
    role: roleOf(deps.leadership, opts.mode),
    state,
    reason,
    since: since.toISOString(),
    ready: view.readiness.ready,
    readyReason: view.readiness.reason,
    failing: f && !view.stopping && !deps.leadership?.isStandby() ? { since: f.since.toISOString(), runs: f.runs, error: f.reason } : null,
    lastRun: health.lastRun,
    nextRun: view.nextRun,
    owned: { ...run.owned },
    manifests: { valid: run.manifests.valid, errors: run.manifests.errors },
    recentEvents,
    ...(opts.drift === 'propose' && deps.writeBack ? { proposal: run.proposal.status(deps.writeBack) } : {}),
    ...(run.driftHistory ? { ignoreSuggestions: run.driftHistory.open() } : {}),
    ...previewsOf(deps.port.target, run),
  };
}

/** The last plan's pictures, each with its address on this daemon. */
function previewsOf(target: string, run: TargetRun): Pick<TargetStatus, 'previews'> {
  const list = run.pictures.list();
  if (list.length === 0) return {};
  const base = `/targets/${encodeURIComponent(target)}/previews/`;
  return { previews: list.map((p) => ('file' in p ? { address: p.address, title: p.title, url: `${base}${p.file}` } : p)) };
}
