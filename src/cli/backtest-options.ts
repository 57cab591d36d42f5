/** The backtests of a run: `--backtest` and its budget over obsync.yaml's `defaults.backtest` over the command's default. */
import { durationMs, MAX_BACKTEST_MS } from '../core/duration.js';
import { ConfigError } from '../core/errors.js';
import { BACKTEST_DEFAULTS, type BacktestOptions } from '../engine/backtest.js';
import type { BacktestSetting } from '../config/backtest-schema.js';

/** A backtest history: how long, and how the user wrote it. */
export interface BacktestWindow {
  windowMs: number;
  window: string;
}

/** `defaults.backtest` of obsync.yaml, resolved: false when turned off there. */
export type BacktestDefaults =
  | (BacktestWindow & { budget: number; perAlert: number; episodeBudget?: BacktestOptions['episodeBudget'] })
  | false;

/** `--backtest 7d`: a history of minutes, hours or days, at most 90 days. */
export function backtestWindow(text: string): BacktestWindow {
  const ms = durationMs(text, 'mhd');
  if (ms === null || ms > MAX_BACKTEST_MS) throw new ConfigError(`--backtest '${text}' is not a history like 1d, 12h or 7d (at most 90d)`);
  return { windowMs: ms, window: text };
}

/** `defaults.backtest` of obsync.yaml (already checked by its schema) as settings; undefined when not set. */
export function backtestDefaults(setting: BacktestSetting | undefined): BacktestDefaults | undefined {
  if (setting === undefined) return undefined;
  if (setting === false) return false;
  const spec = setting === true ? {} : typeof setting === 'string' ? { window: setting } : setting;
  const text = spec.window ?? BACKTEST_DEFAULTS.window;
  return {
    windowMs: durationMs(text, 'mhd') ?? BACKTEST_DEFAULTS.windowMs,
    window: text,
    budget: spec.budget ?? BACKTEST_DEFAULTS.budget,
    perAlert: spec.perAlert ?? BACKTEST_DEFAULTS.perAlert,
    ...(spec.episodeBudget ? { episodeBudget: { ...spec.episodeBudget, perMs: durationMs(spec.episodeBudget.per, 'mhd') ?? 1 } } : {}),
  };
}

/**
 * The backtests of a run: the flags over obsync.yaml's `defaults.backtest` over the command's
 * default (plan and apply: on, 7 days; the daemon: off, so a schedule does not spend the rate
 * limit on history unless asked).
 */
export function backtestSettings(
  opts: { backtest?: BacktestWindow | false | undefined; backtestBudget?: number | undefined },
  configured: BacktestDefaults | undefined,
  daemon: boolean,
): Omit<BacktestOptions, 'signal' | 'now'> | undefined {
  if (opts.backtest === false) return undefined;
  if (opts.backtest === undefined && (configured === false || (configured === undefined && daemon))) return undefined;
  const base = configured || undefined;
  const window = opts.backtest ?? base ?? { windowMs: BACKTEST_DEFAULTS.windowMs, window: BACKTEST_DEFAULTS.window };
  return {
    windowMs: window.windowMs,
    window: window.window,
    budget: opts.backtestBudget ?? base?.budget ?? BACKTEST_DEFAULTS.budget,
    perAlert: base?.perAlert ?? BACKTEST_DEFAULTS.perAlert,
    ...(base?.episodeBudget ? { episodeBudget: base.episodeBudget } : {}),
  };
}
