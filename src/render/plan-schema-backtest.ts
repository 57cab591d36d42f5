/** The JSON plan's schema of what a plan predicts: an alert's backtest, the plan's backtests as a whole, what else a change touches. */
import * as z from 'zod';
import { address, anyKind } from './plan-schema-parts.js';

const backtestCounts = {
  evaluated: z.number().int().optional().describe("Alert windows evaluated (the history ÷ the alert's interval)"),
  firing: z.number().int().optional().describe('Windows in which the checker would have put the alert in ALERT (any group, with groupBy)'),
  episodes: z.number().int().optional().describe('Runs of consecutive firing windows: what would have paged'),
  firstFiringAt: z.string().nullable().optional().describe('Start of the first firing window (ISO 8601), null when none fired'),
  lastFiringAt: z.string().nullable().optional().describe('Start of the last firing window (ISO 8601), null when none fired'),
  groups: z.number().int().optional().describe('Distinct groups that fired (groupBy alerts)'),
  notifications: z
    .number()
    .int()
    .optional()
    .describe(
      'ALERT notifications the checker would have sent: one per group per firing window (hyperdx b52a6fa ' +
        'notifies again on every evaluation while a group stays in ALERT)',
    ),
  resolutions: z.number().int().optional().describe('Resolution notifications: a group that had notified going back to OK'),
  flapping: z.number().int().optional().describe('Episodes shorter than 3 windows (paged, then cleared at once)'),
  topGroups: z
    .array(
      z.object({
        group: z.string().describe("The group as the checker names it (column:value, …); '' for the alert's no-data group"),
        notifications: z.number().int(),
        resolutions: z.number().int(),
      }),
    )
    .optional()
    .describe('groupBy alerts: the groups that notified most, most first (at most 5)'),
  suggestion: z
    .object({
      threshold: z.number().describe('The nearest threshold that would have stayed within the episode budget'),
      episodes: z.number().int().describe('Episodes with it over the same history'),
      firing: z.number().int(),
      notifications: z.number().int(),
      budget: z.object({ episodes: z.number().int(), per: z.string() }).describe('defaults.backtest.episodeBudget'),
      allowed: z.number().describe('Episodes the budget allows over this history (episodes × history ÷ per)'),
    })
    .optional()
    .describe('More episodes than defaults.backtest.episodeBudget allows: a suggestion computed from the same series, never applied'),
  data: z
    .object({
      matched: z.number().int().describe('Buckets in which the query matched something (0: nothing over the history)'),
      groups: z.number().int().optional().describe('Distinct groups in its rows (groupBy alerts)'),
      noDataSince: z
        .string()
        .nullable()
        .optional()
        .describe('Its source has had no data since then; null: none over the history; absent: fresh or not asked (budget)'),
    })
    .optional()
    .describe('What the data says of the query and source (policy rules empty-query, stale-source, group-cardinality)'),
  fired: z
    .array(z.tuple([z.number(), z.number()]))
    .optional()
    .describe('The windows it would have fired in, one span per episode: [start, end) in epoch ms (what a backtest chart shades)'),
  threshold: z
    .object({ type: z.string(), value: z.number(), max: z.number().optional().describe('between and not_between') })
    .optional()
    .describe('The condition evaluated: where a backtest chart draws its threshold line(s)'),
};
const backtestStatus = z
  .enum(['ok', 'unavailable', 'skipped'])
  .describe('ok: evaluated; unavailable: the service cannot answer it (see reason); skipped: not asked (budget or cap)');
const backtestSide = z.object({
  status: backtestStatus,
  reason: z.string().optional().describe('Why it is not ok; with ok, a note (a history shortened to fit the cap)'),
  ...backtestCounts,
});
export const backtest = z
  .object({
    status: backtestStatus,
    reason: z.string().optional().describe('Why it is not ok; with ok, a note (a history shortened to fit the cap)'),
    window: z.string().describe('The history asked for, e.g. 7d'),
    granularity: z.string().optional().describe("The alert's interval: one evaluation window, one series bucket"),
    requests: z.number().int().optional().describe('Series requests this alert made (queries shared with another alert are counted there)'),
    ...backtestCounts,
    before: backtestSide.optional().describe('An update (or an alert on a changed tile or search): the same counts for it as it is now'),
    series: z
      .object({
        start: z.number().describe('Start of the first point (epoch ms)'),
        stepMs: z.number().describe('The span of one point'),
        values: z
          .array(z.number().nullable())
          .describe('Per point the value nearest to breaching (highest; lowest for below), null: no row'),
      })
      .optional()
      .describe('The series the alert reads, downsampled to at most 120 points, for the backtest charts (docs/backtests.md)'),
  })
  .describe('How often the alert would have fired over the history, as the service’s alert checker evaluates it');
export const impactItem = z.object({
  kind: anyKind,
  id: z.string().optional().describe('Absent for an object this plan creates'),
  name: z.string().nullable(),
  address: address.optional(),
  owned: z.boolean(),
  declared: z.boolean(),
  backtest: backtest.optional(),
});
export const impact = z
  .array(
    z.object({
      kind: z
        .enum(['tile-alerts', 'search-alerts', 'readers', 'webhook-users'])
        .describe(
          'tile-alerts: alerts on a tile whose query changes; search-alerts: alerts on a saved search whose ' +
            'query changes; readers: what reads a changed or deleted source or connection; webhook-users: alerts ' +
            'notifying a webhook whose destination changes or that goes',
        ),
      what: z.string(),
      objects: z.array(impactItem),
    }),
  )
  .describe('Other objects this change touches');
export const backtestRun = z
  .object({
    window: z.string(),
    budget: z.number().int().describe('Series requests the plan may make for backtests'),
    perAlert: z.number().int().describe('Series requests one alert may make'),
    needed: z.number().int().describe('Series requests the backtests needed (identical queries once)'),
    requests: z.number().int().describe('Series requests made'),
    deduplicated: z.number().int().describe('Queries several alerts asked, made once'),
    alerts: z.number().int(),
    skipped: z.number().int().describe('Alerts not evaluated: budget spent, or more than the cap'),
    unavailable: z.string().optional().describe('Why no alert can be backtested on this target (hosted)'),
  })
  .describe("The plan's backtests as a whole (present when backtests are on)");
