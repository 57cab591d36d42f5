import { describe, expect, it } from 'vitest';
import { configSchema } from '../config/schema.js';
import { backtestDefaults, backtestSettings } from './backtest-options.js';
import { parseRunOptions, type RawRunOptions } from './run-options.js';

const raw = (more: Partial<RawRunOptions> = {}): RawRunOptions => ({ target: [], selector: [], only: [], ...more });
const DEFAULT = { windowMs: 7 * 86_400_000, window: '7d', budget: 20, perAlert: 10 };

describe('backtest settings: flags over obsync.yaml over the command default', () => {
  it('plan and apply backtest 7 days by default; the daemon does not unless configured', () => {
    expect(backtestSettings(parseRunOptions(raw()), undefined, false)).toEqual(DEFAULT);
    expect(backtestSettings(parseRunOptions(raw()), undefined, true)).toBeUndefined();
    expect(backtestSettings(parseRunOptions(raw()), backtestDefaults('1d'), true)).toMatchObject({ window: '1d', windowMs: 86_400_000 });
    expect(backtestSettings(parseRunOptions(raw({ backtest: '2d' })), undefined, true)).toMatchObject({ window: '2d' });
  });

  it('--no-backtest and defaults.backtest: false turn it off; a flag wins over obsync.yaml', () => {
    expect(backtestSettings(parseRunOptions(raw({ backtest: false })), backtestDefaults(true), false)).toBeUndefined();
    expect(backtestSettings(parseRunOptions(raw()), backtestDefaults(false), false)).toBeUndefined();
    expect(backtestSettings(parseRunOptions(raw({ backtest: '12h' })), backtestDefaults(false), false)).toMatchObject({
      windowMs: 43_200_000,
    });
    const configured = backtestDefaults({ window: '3d', budget: 5, perAlert: 2 });
    expect(backtestSettings(parseRunOptions(raw({ backtestBudget: 9 })), configured, false)).toEqual({
      windowMs: 3 * 86_400_000,
      window: '3d',
      budget: 9,
      perAlert: 2,
    });
  });

  it('refuses a history that is not one', () => {
    expect(() => parseRunOptions(raw({ backtest: '7 days' }))).toThrow(/not a history like 1d, 12h or 7d/);
    expect(() => parseRunOptions(raw({ backtest: '91d' }))).toThrow(/at most 90d/);
    expect(() => parseRunOptions(raw({ backtest: '30s' }))).toThrow(/not a history/);
  });

  it('obsync.yaml accepts a history, true/false or {window, budget, perAlert}, and nothing else', () => {
    const config = (backtest: unknown) => configSchema.safeParse({ apiVersion: 'obsync/v1', kind: 'Config', defaults: { backtest } });
    for (const ok of [
      '7d',
      '12h',
      true,
      false,
      { window: '1d', budget: 0 },
      { perAlert: 3 },
      { episodeBudget: { episodes: 3, per: '7d' } },
    ])
      expect(config(ok).success, JSON.stringify(ok)).toBe(true);
    for (const bad of [
      '7 days',
      '100d',
      { window: '1d', extra: 1 },
      { budget: -1 },
      { episodeBudget: { episodes: 3, per: '0d' } },
      { episodeBudget: { episodes: 3 } },
    ])
      expect(config(bad).success, JSON.stringify(bad)).toBe(false);
  });

  it('carries defaults.backtest.episodeBudget into the backtests, with its period in milliseconds', () => {
    const configured = backtestDefaults({ episodeBudget: { episodes: 3, per: '7d' } });
    expect(backtestSettings(parseRunOptions(raw()), configured, false)).toMatchObject({
      episodeBudget: { episodes: 3, per: '7d', perMs: 7 * 86_400_000 },
    });
  });
});
