/**
 * The Alert manifest spec (selfhosted-api §3.2) with references by name: a tile alert names a
 * Dashboard manifest (`dashboard`) and a tile key (`tile`); a saved-search alert names a saved
 * search. Channels name webhooks. The server's own rules are checked here so an invalid alert
 * fails at validate time, not at apply time.
 */
import * as z from 'zod';
import { tileConfig } from '../dashboard/tile-config.js';
import { refTo } from '../ref-schema.js';
import { INLINE_CHART_TYPES } from './inline-chart.js';
import type { AlertSpecView } from './model.js';

/** `30s` only on the Cloud API, for a service with its feature flag: obsync lets the service decide (it may refuse it). */
export const ALERT_INTERVALS = ['1m', '5m', '15m', '30m', '1h', '6h', '12h', '1d', '30s'] as const;
export const THRESHOLD_TYPES = [
  'above',
  'below',
  'above_exclusive',
  'below_or_equal',
  'equal',
  'not_equal',
  'between',
  'not_between',
] as const;
/** An interval's length in minutes: the one table the schema, the editor schema and the checker read. */
export const INTERVAL_MINUTES: Readonly<Record<(typeof ALERT_INTERVALS)[number], number>> = {
  '30s': 0.5,
  '1m': 1,
  '5m': 5,
  '15m': 15,
  '30m': 30,
  '1h': 60,
  '6h': 360,
  '12h': 720,
  '1d': 1440,
};
const RANGE_TYPES = new Set<string>(['between', 'not_between']);

const channel = z
  .strictObject({
    type: z.literal('webhook').describe('Always webhook.'),
    webhook: refTo('webhook').describe('Webhook notified, by its name on the service, or {id: "..."}.'),
  })
  .meta({ id: 'AlertChannel', description: 'Where the alert notifies: a webhook of the service.' });
const finite = z.number().refine(Number.isFinite, { error: 'must be a finite number' });

export const alertSpecSchema = z
  .strictObject({
    source: z
      .literal('inline')
      .optional()
      .describe('inline: the alert carries its own chart (spec.chart), with no dashboard or saved search (self-hosted only).'),
    chart: tileConfig
      .optional()
      .describe(
        'The chart an inline alert evaluates, written as a dashboard tile config: a line, stacked_bar or number chart, builder or Raw SQL.',
      ),
    where: z.string().max(10000).optional().describe("Condition on the rows of an inline alert's builder chart (default: none)."),
    whereLanguage: z.enum(['lucene', 'sql']).optional().describe('Language of where: lucene (the default) or sql.'),
    dashboard: refTo('dashboard (metadata.name of a Dashboard manifest)')
      .optional()
      .describe(
        'Dashboard of the watched tile: the metadata.name of a Dashboard manifest, or {id: "..."} for one obsync does not manage. ' +
          'With tile; not with savedSearch.',
      ),
    tile: refTo('tile (its key in the dashboard)')
      .optional()
      .describe('The watched tile: its key in that dashboard, or {id: "..."} (needed when the dashboard is given by id).'),
    savedSearch: refTo('saved search')
      .optional()
      .describe('The watched saved search, by name, or {id: "..."}. Not with dashboard and tile.'),
    groupBy: z.string().optional().describe('Column to evaluate the threshold per group of (saved-search alerts only).'),
    interval: z
      .enum(ALERT_INTERVALS)
      .describe(
        'How often the alert is evaluated, over a window of the same length: 1m, 5m, 15m, 30m, 1h, 6h, 12h or 1d; 30s on a hosted ' +
          'service whose team has the 30s feature flag (the service refuses it otherwise).',
      ),
    threshold: finite.describe('The value compared with the tile or search result.'),
    thresholdType: z
      .enum(THRESHOLD_TYPES)
      .describe(
        'How the value is compared: above, below, above_exclusive, below_or_equal, equal, not_equal, between or not_between (the ' +
          'last two need thresholdMax).',
      ),
    thresholdMax: finite.optional().describe('Upper bound for between and not_between (at least threshold); not used by the other types.'),
    channel: channel.optional().describe('The one webhook notified. Give channel or channels, not both.'),
    channels: z
      .array(channel)
      .min(1)
      .max(10)
      .optional()
      .describe('Webhooks notified (1-10, no duplicates). Give channel or channels, not both.'),
    name: z
      .string()
      .min(1)
      .max(512)
      .optional()
      .describe('Name of the alert on the service; with dashboard and tile (or savedSearch), how an existing alert is adopted.'),
    message: z
      .string()
      .min(1)
      .max(4096)
      .optional()
      .describe('Text of the notification; may use {{value}} and the other template variables of the service.'),
    note: z.string().min(1).max(4096).optional().describe('A note for whoever handles the alert, in Markdown.'),
    numConsecutiveWindows: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe('Windows in a row that must breach the threshold before it fires (default 1).'),
    scheduleOffsetMinutes: z
      .number()
      .int()
      .min(0)
      .max(1439)
      .optional()
      .describe('Minutes to shift the evaluation windows by; less than the interval, and 0 when scheduleStartAt is set.'),
    scheduleStartAt: z.iso
      .datetime({ offset: false, error: 'scheduleStartAt must be an ISO-8601 UTC datetime ending in Z, e.g. 2026-01-01T00:00:00Z' })
      .optional()
      .describe('When the windows start: an ISO-8601 UTC time ending in Z, e.g. 2026-01-01T00:00:00Z (at most 10 years back, 1 ahead).'),
  })
  .superRefine((spec, ctx) => {
    checkTarget(spec, ctx);
    checkThreshold(spec, ctx);
    checkChannels(spec, ctx);
    checkSchedule(spec, ctx);
  })
  .meta({
    id: 'AlertSpec',
    description:
      'An alert: what it watches (a dashboard tile, a saved search, or its own chart), the threshold and interval, and the webhooks ' +
      'it notifies.',
  });

export type AlertSpec = z.output<typeof alertSpecSchema>;
// The definition (./definition.ts) reads specs through AlertSpecView: keep the schema assignable.
const _assignable: (s: AlertSpec) => AlertSpecView = (s) => s;
void _assignable;

function checkInline(spec: AlertSpec, ctx: z.RefinementCtx): void {
  const issue = (path: string[], message: string) => ctx.addIssue({ code: 'custom', path, message });
  if (spec.source === undefined) {
    if (spec.chart !== undefined) issue(['chart'], 'chart is the chart of an inline alert: add source: inline');
    if (spec.where !== undefined || spec.whereLanguage !== undefined)
      issue(['where'], 'where is only used by inline alerts (source: inline)');
    return;
  }
  if (spec.chart === undefined)
    return issue(['chart'], 'Chart config is required: an inline alert needs chart (a line, stacked_bar or number tile config)');
  if (spec.dashboard !== undefined || spec.tile !== undefined || spec.savedSearch !== undefined)
    issue(['source'], 'an inline alert watches its own chart: no dashboard, tile or savedSearch');
  if (spec.groupBy !== undefined) issue(['groupBy'], 'groupBy is only used by saved-search alerts');
  if (!(INLINE_CHART_TYPES as readonly string[]).includes(spec.chart.displayType))
    issue(['chart', 'displayType'], 'Inline chart alerts are only supported for Line, Stacked Bar, or Number display types');
  if (spec.chart.configType === 'sql' && spec.where !== undefined)
    issue(['where'], 'a Raw SQL chart has no chart-level where: filter in its SQL');
}

function checkTarget(spec: AlertSpec, ctx: z.RefinementCtx): void {
  if (spec.source !== undefined || spec.chart !== undefined || spec.where !== undefined || spec.whereLanguage !== undefined)
    return checkInline(spec, ctx);
  const tileForm = spec.dashboard !== undefined || spec.tile !== undefined;
  const searchForm = spec.savedSearch !== undefined;
  if (tileForm && searchForm) {
    ctx.addIssue({
      code: 'custom',
      path: ['savedSearch'],
      message: 'an alert watches either a tile (dashboard + tile) or a saved search (savedSearch), not both',
    });
    return;
  }
  if (!tileForm && !searchForm) {
    ctx.addIssue({ code: 'custom', path: [], message: 'an alert needs what it watches: dashboard + tile, or savedSearch' });
    return;
  }
  if (tileForm && spec.dashboard === undefined)
    ctx.addIssue({
      code: 'custom',
      path: ['tile'],
      message: 'a tile alert needs dashboard (the metadata.name of a Dashboard manifest, or {id})',
    });
  if (tileForm && spec.tile === undefined)
    ctx.addIssue({ code: 'custom', path: ['dashboard'], message: 'a tile alert needs tile (the key of a tile in that dashboard)' });
  if (typeof spec.dashboard === 'object' && typeof spec.tile === 'string')
    ctx.addIssue({
      code: 'custom',
      path: ['tile'],
      message: 'a dashboard given by {id} is not managed here, so it has no tile keys: give the tile as {id: ...} too',
    });
  if (tileForm && spec.groupBy !== undefined)
    ctx.addIssue({ code: 'custom', path: ['groupBy'], message: 'groupBy is only used by saved-search alerts' });
}

function checkThreshold(spec: AlertSpec, ctx: z.RefinementCtx): void {
  const range = RANGE_TYPES.has(spec.thresholdType);
  if (range && spec.thresholdMax === undefined)
    ctx.addIssue({ code: 'custom', path: ['thresholdMax'], message: 'thresholdMax is required for between/not_between threshold types' });
  else if (range && spec.thresholdMax !== undefined && spec.thresholdMax < spec.threshold)
    ctx.addIssue({ code: 'custom', path: ['thresholdMax'], message: 'thresholdMax must be greater than or equal to threshold' });
  else if (!range && spec.thresholdMax !== undefined)
    ctx.addIssue({
      code: 'custom',
      path: ['thresholdMax'],
      message: `thresholdMax is only used with between/not_between, not with thresholdType '${spec.thresholdType}'`,
    });
}

function channelKey(c: { webhook: string | { id: string } }): string {
  return typeof c.webhook === 'string' ? `name:${c.webhook}` : `id:${c.webhook.id}`;
}

function checkChannels(spec: AlertSpec, ctx: z.RefinementCtx): void {
  if (spec.channel !== undefined && spec.channels !== undefined) {
    ctx.addIssue({ code: 'custom', path: ['channels'], message: 'Provide either "channel" or "channels", not both' });
    return;
  }
  if (spec.channel === undefined && spec.channels === undefined) {
    ctx.addIssue({
      code: 'custom',
      path: [],
      message: 'Provide either "channel" or "channels" (e.g. channel: {type: webhook, webhook: ops-slack})',
    });
    return;
  }
  const seen = new Set<string>();
  spec.channels?.forEach((c, i) => {
    const key = channelKey(c);
    if (seen.has(key)) ctx.addIssue({ code: 'custom', path: ['channels', i], message: 'Duplicate notification channels are not allowed' });
    seen.add(key);
  });
}

function checkSchedule(spec: AlertSpec, ctx: z.RefinementCtx): void {
  const offset = spec.scheduleOffsetMinutes;
  if (offset === undefined) return;
  const minutes = INTERVAL_MINUTES[spec.interval];
  if (offset >= minutes && offset > 0)
    ctx.addIssue({
      code: 'custom',
      path: ['scheduleOffsetMinutes'],
      message: `scheduleOffsetMinutes must be less than the interval (${minutes} minutes for ${spec.interval})`,
    });
  if (offset > 0 && spec.scheduleStartAt !== undefined)
    ctx.addIssue({
      code: 'custom',
      path: ['scheduleOffsetMinutes'],
      message: 'scheduleOffsetMinutes must be 0 or absent when scheduleStartAt is set',
    });
}
