/** zod schema of an alert body (reference §3.2); read-only fields are stripped silently. */
import * as z from 'zod';
import { alertChartConfig } from './alert-chart-config.js';

/** `30s` is the Cloud API's alone (2026-09-05 spec), and only for a team with its feature flag (./alerts.ts checks the flag). */
export const INTERVAL_MINUTES = {
  '30s': 0.5,
  '1m': 1,
  '5m': 5,
  '15m': 15,
  '30m': 30,
  '1h': 60,
  '6h': 360,
  '12h': 720,
  '1d': 1440,
} as const;
type Interval = keyof typeof INTERVAL_MINUTES;
const MINUTE_INTERVALS = ['1m', '5m', '15m', '30m', '1h', '6h', '12h', '1d'] as const satisfies readonly Interval[];
const thresholdType = z.enum(['above', 'below', 'above_exclusive', 'below_or_equal', 'equal', 'not_equal', 'between', 'not_between']);
const channel = z.object({ type: z.literal('webhook'), webhookId: z.string().min(1) });
const YEAR_MS = 365 * 24 * 3600 * 1000;

type Ctx = z.core.$RefinementCtx;
type Body = z.output<ReturnType<typeof bodyFields>>;

/**
 * Self-hosted servers newer than b52a6fa take `source: "inline"` with a `chartConfig`; the Cloud spec does not list it.
 * The Cloud spec of 2026-09-05 adds the interval `30s`; hyperdx's own schema (api utils/zod.ts @ 011f0b3a) does not.
 */
const bodyFields = (sources: [string, ...string[]], intervals: readonly Interval[]) =>
  z.object({
    source: z.enum(sources as ['saved_search', 'tile', 'inline']),
    chartConfig: alertChartConfig.optional(),
    savedSearchId: z.string().min(1).optional(),
    groupBy: z.string().nullable().optional(),
    dashboardId: z.string().min(1).optional(),
    tileId: z.string().min(1).optional(),
    interval: z.enum(intervals as [Interval, ...Interval[]]),
    threshold: z.number(),
    thresholdType,
    thresholdMax: z.number().optional(),
    channel: channel.optional(),
    channels: z.array(channel).min(1).max(10).optional(),
    name: z.string().min(1).max(512).nullable().optional(),
    message: z.string().min(1).max(4096).nullable().optional(),
    note: z.string().min(1).max(4096).nullable().optional(),
    numConsecutiveWindows: z.number().int().min(1).nullable().optional(),
    scheduleOffsetMinutes: z.number().int().min(0).max(1439).optional(),
    scheduleStartAt: z.iso.datetime().nullable().optional(),
  });

// Built once per variant (zod compiles a schema on its first parse); only the clock-dependent part below is per call.
const BASE = {
  selfHosted: bodyFields(['saved_search', 'tile', 'inline'], MINUTE_INTERVALS),
  hosted: bodyFields(['saved_search', 'tile'], ['30s', ...MINUTE_INTERVALS]),
};

function checkChannels(body: Body, ctx: Ctx): void {
  const issue = (message: string, path: string[]) => ctx.addIssue({ code: 'custom', message, path });
  if (!body.channel && !body.channels) return issue('Provide either "channel" or "channels"', []);
  if (body.channel && body.channels && body.channels[0]?.webhookId !== body.channel.webhookId) {
    issue('When both "channel" and "channels" are provided, "channel" must match the first entry of "channels"', ['channel']);
  }
  const ids = (body.channels ?? []).map((c) => c.webhookId);
  if (new Set(ids).size !== ids.length) issue('Duplicate notification channels are not allowed', ['channels']);
}

function checkSchedule(body: Body, now: Date, ctx: Ctx): void {
  const issue = (message: string, path: string[]) => ctx.addIssue({ code: 'custom', message, path });
  const offset = body.scheduleOffsetMinutes;
  if (offset !== undefined && offset >= INTERVAL_MINUTES[body.interval]) {
    issue('scheduleOffsetMinutes must be less than the alert interval in minutes', ['scheduleOffsetMinutes']);
  }
  if (typeof body.scheduleStartAt === 'string') {
    if (offset !== undefined && offset > 0) issue('scheduleOffsetMinutes cannot be used with scheduleStartAt', ['scheduleOffsetMinutes']);
    const at = Date.parse(body.scheduleStartAt);
    if (at > now.getTime() + YEAR_MS) issue('scheduleStartAt must be within 1 year in the future', ['scheduleStartAt']);
    if (at < now.getTime() - 10 * YEAR_MS) issue('scheduleStartAt must be within 10 years in the past', ['scheduleStartAt']);
  }
}

export function alertBodySchema(now: Date, selfHosted = true) {
  return (selfHosted ? BASE.selfHosted : BASE.hosted).pipe(
    z.custom<Body>().superRefine((body, ctx) => {
      const issue = (message: string, path: string[]) => ctx.addIssue({ code: 'custom', message, path });
      if (body.source === 'saved_search' && !body.savedSearchId)
        issue('savedSearchId is required for saved_search alerts', ['savedSearchId']);
      if (body.source === 'tile' && !body.dashboardId) issue('dashboardId is required for tile alerts', ['dashboardId']);
      if (body.source === 'tile' && !body.tileId) issue('tileId is required for tile alerts', ['tileId']);
      const ranged = body.thresholdType === 'between' || body.thresholdType === 'not_between';
      if (ranged && body.thresholdMax === undefined)
        issue('thresholdMax is required for between/not_between threshold types', ['thresholdMax']);
      if (ranged && body.thresholdMax !== undefined && body.thresholdMax < body.threshold) {
        issue('thresholdMax must be greater than or equal to threshold', ['thresholdMax']);
      }
      checkChannels(body, ctx);
      checkSchedule(body, now, ctx);
    }),
  );
}
export type AlertBody = z.output<ReturnType<typeof alertBodySchema>>;
