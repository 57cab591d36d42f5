/** obsync.yaml's `backtest` setting: how far back alert rules are replayed before they are written. */
import * as z from 'zod';
import { durationMs, MAX_BACKTEST_MS } from '../core/duration.js';

const backtestWindow = z
  .string()
  .refine((text) => {
    const ms = durationMs(text, 'mhd');
    return ms !== null && ms <= MAX_BACKTEST_MS;
  }, 'a history like 1d, 12h or 7d (minutes, hours or days; at most 90d)')
  .describe('How far back: 1d, 12h, 7d… (at most 90d).');

export const backtestSetting = z
  .union([
    z.boolean().describe('true: the default history (7d); false: no backtests.'),
    backtestWindow,
    z
      .strictObject({
        window: backtestWindow.optional().describe('How far back (default 7d).'),
        budget: z.number().int().min(0).max(1000).optional().describe('Series requests one plan may make for backtests (default 20).'),
        perAlert: z
          .number()
          .int()
          .min(1)
          .max(100)
          .optional()
          .describe(
            'Series requests one alert may make; a longer history is shortened to fit (default 10: a week of 5-minute windows ' +
              'before and after a change of query).',
          ),
        episodeBudget: z
          .strictObject({
            episodes: z.number().int().min(0).max(10_000).describe('Episodes (runs of firing windows) allowed per period.'),
            per: z
              .string()
              .refine((text) => durationMs(text, 'mhd') !== null, 'a period like 1d, 12h or 7d (minutes, hours or days)')
              .describe('The period: 1d, 7d…'),
          })
          .optional()
          .describe(
            'How often an alert may page: an alert whose backtest has more episodes (scaled to the history) gets the nearest ' +
              'threshold that would have stayed within it, computed from the same series, shown as a suggestion and never applied. ' +
              'E.g. {episodes: 3, per: 7d}.',
          ),
      })
      .describe('The history and the request limits.'),
  ])
  .meta({
    id: 'Backtest',
    description: "Backtests of alerts over the service's own data (the self-hosted chart series API; not available on hosted targets).",
  });

export type BacktestSetting = z.infer<typeof backtestSetting>;
