/**
 * `alert-tile-type`: a tile alert on a tile the service cannot evaluate. The server evaluates alerts
 * on line, stacked bar and number tiles only: it refuses one on any other Raw SQL tile (400 "Alerts on
 * Raw SQL tiles are only supported for Line, Stacked Bar, or Number display types"), accepts one on
 * any other builder tile, and then deletes it at the dashboard's next update (selfhosted-api §4.4) —
 * an alert that comes and goes on every apply. Only tiles of Dashboard manifests are checked (a
 * dashboard given by {id} is not in the manifests).
 */
import type { DesiredResource } from '../core/resource.js';
import { isAlertable } from '../kinds/dashboard/tiles.js';
import { findingAt, type Finding, type Severity } from './model.js';

interface TileView {
  key?: string;
  config?: Record<string, unknown>;
}

export function alertsOnUnalertableTiles(resources: readonly DesiredResource[], s: Severity): Finding[] {
  const tilesOf = new Map<string, readonly TileView[]>();
  for (const r of resources) if (r.kind === 'Dashboard') tilesOf.set(r.name, (r.spec as { tiles?: TileView[] }).tiles ?? []);
  const out: Finding[] = [];
  for (const alert of resources) {
    if (alert.kind !== 'Alert') continue;
    const { dashboard, tile } = alert.spec as { dashboard?: unknown; tile?: unknown };
    if (typeof dashboard !== 'string' || typeof tile !== 'string') continue;
    const config = tilesOf.get(dashboard)?.find((t) => t.key === tile)?.config;
    if (!config || isAlertable(config)) continue;
    const display = typeof config.displayType === 'string' ? config.displayType : 'untyped';
    const fate =
      config.configType === 'sql'
        ? 'the service refuses it on a Raw SQL tile of that type'
        : "the service deletes it at the dashboard's next update";
    out.push(
      findingAt(
        alert,
        'alert-tile-type',
        s,
        `${alert.address} watches tile '${tile}' of Dashboard/${dashboard}, a ${display} tile: alerts are evaluated on line, ` +
          `stacked_bar and number tiles only (${fate})`,
      ),
    );
  }
  return out;
}
