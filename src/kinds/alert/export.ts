/**
 * A live alert as a manifest (obsync export): its dashboard by the exported manifest's name and
 * its tile by the exported key (else both by `{id}`), or its saved search by name; webhooks by
 * name; the values the service stores as defaults (no schedule offset, no start) left out.
 */
import type { Json, JsonObject, WireAlert } from '../../core/wire.js';
import { nameOrIdJson } from '../export-helpers.js';
import { assignOwn } from '../../core/json.js';
import type { ExportContext } from '../kind.js';
import { chartToManifest } from './inline-chart.js';

const RANGE_TYPES = new Set(['between', 'not_between']);

export function alertToManifest(live: WireAlert, ctx: ExportContext): JsonObject {
  const spec: JsonObject = {};
  if (live.source === 'inline') {
    spec.source = 'inline';
    assignOwn(spec, chartToManifest(live.chartConfig, ctx));
  } else if (live.source === 'saved_search') {
    spec.savedSearch = nameOrIdJson(ctx.ref('SavedSearch', live.savedSearchId ?? ''));
    if (typeof live.groupBy === 'string') spec.groupBy = live.groupBy;
  } else {
    const dashboardId = live.dashboardId ?? '';
    const dashboard = ctx.declaredRef('Dashboard', dashboardId);
    spec.dashboard = nameOrIdJson(dashboard);
    // A dashboard given by {id} has no tile keys in the manifests: the tile goes by {id} too.
    spec.tile =
      typeof dashboard === 'string' ? nameOrIdJson(ctx.partRef('Dashboard', dashboardId, live.tileId ?? '')) : { id: live.tileId ?? '' };
  }
  if (live.name != null) spec.name = live.name;
  spec.interval = live.interval;
  spec.threshold = live.threshold;
  spec.thresholdType = live.thresholdType;
  if (RANGE_TYPES.has(live.thresholdType) && live.thresholdMax != null) spec.thresholdMax = live.thresholdMax;
  const channels = channelsOf(live, ctx);
  if (channels.length === 1) spec.channel = channels[0] ?? null;
  else if (channels.length > 1) spec.channels = channels;
  else ctx.note('the alert notifies no webhook; a manifest needs channel or channels: add one before applying');
  if (live.message != null) spec.message = live.message;
  if (live.note != null) spec.note = live.note;
  if (live.numConsecutiveWindows != null) spec.numConsecutiveWindows = live.numConsecutiveWindows;
  if (live.scheduleStartAt != null) spec.scheduleStartAt = live.scheduleStartAt;
  else if (live.scheduleOffsetMinutes != null && live.scheduleOffsetMinutes !== 0) spec.scheduleOffsetMinutes = live.scheduleOffsetMinutes;
  return spec;
}

function channelsOf(live: WireAlert, ctx: ExportContext): Json[] {
  const list = live.channels ?? (live.channel ? [live.channel] : []);
  return list.map((c) => ({
    type: 'webhook',
    webhook: typeof c.webhookId === 'string' ? nameOrIdJson(ctx.ref('Webhook', c.webhookId)) : null,
  }));
}
