/**
 * What a plan predicts beyond the field diff (issue 26): how often a created or updated alert
 * would have fired over a history window (the backtest), and which other objects a change
 * touches (the impact). Values, like the rest of a plan: they go into saved plans and every
 * output format.
 */
import type { AnyKind, Kind } from './kind-name.js';

/** `Kind/name` (the plan's Address; spelled here so that plan.ts and this module do not import each other). */
type Address = `${Kind}/${string}`;

/**
 * `ok`: evaluated; `unavailable`: the service cannot answer it (hosted targets, a Raw SQL tile, a
 * source that is gone, a failed request); `skipped`: obsync did not ask (budget, cap).
 */
export type BacktestStatus = 'ok' | 'unavailable' | 'skipped';

/** The counts of one alert condition over the window (one side of an update). */
export interface BacktestCounts {
  /** Alert windows evaluated (the window length ÷ the alert's interval). */
  evaluated: number;
  /** Windows in which the checker would have put the alert in ALERT (any group, for a groupBy alert). */
  firing: number;
  /** Runs of consecutive firing windows: what would have paged. */
  episodes: number;
  /** Start of the first and last firing window (ISO 8601), null when none fired. */
  firstFiringAt: string | null;
  lastFiringAt: string | null;
  /** Distinct groups that fired (groupBy alerts only). */
  groups?: number;
  /**
   * Notifications the checker would have sent for ALERT: one per group per firing window (it
   * notifies again on every evaluation while a group stays in ALERT).
   */
  notifications: number;
  /** Resolution notifications: a group that had notified going back to OK. */
  resolutions: number;
  /** Episodes shorter than FLAP_WINDOWS windows: an alert that pages and clears at once. */
  flapping: number;
  /** groupBy alerts: the groups that notified most, most first (at most 5). */
  topGroups?: GroupNotifications[];
  /** The windows it would have fired in, one span per episode: `[start, end)` in epoch ms (what a backtest chart shades). */
  fired?: [number, number][];
}

/** One group's notifications over the history; `group` as the checker names it (`column:value, …`). */
export interface GroupNotifications {
  group: string;
  notifications: number;
  resolutions: number;
}

export interface BacktestSide extends Partial<BacktestCounts> {
  status: BacktestStatus;
  /** Why it is not `ok` (also a note when the window was shortened). */
  reason?: string;
  /** More episodes than the episode budget allows: the nearest threshold that would have stayed within it. */
  suggestion?: ThresholdSuggestion;
  /** What the data says of the alert's query and source (the alert as the plan leaves it). */
  data?: BacktestData;
  /** The condition evaluated: where a backtest chart draws its threshold line(s). */
  threshold?: ThresholdLine;
}

/** An alert's threshold as a chart draws it: `max` only for `between` and `not_between`. */
export interface ThresholdLine {
  type: string;
  value: number;
  max?: number;
}

/**
 * The alert's value over the history, downsampled for a chart (issue 42): point i covers
 * `[start + i·stepMs, start + (i+1)·stepMs)`; its value is the one nearest to breaching over the
 * windows and groups it covers (the highest; the lowest for a `below` alert), null where no row had one.
 */
export interface BacktestSeries {
  start: number;
  stepMs: number;
  values: (number | null)[];
}

/** Facts of the data an alert reads (issue 47 data checks; the policy rules empty-query, stale-source, group-cardinality judge them). */
export interface BacktestData {
  /** Buckets in which its query matched something (a row with a value other than 0): 0, it matched nothing over the history. */
  matched: number;
  /** Distinct groups in its rows (groupBy alerts). */
  groups?: number;
  /** Its source has had no data since then (ISO 8601); null: none over the whole history. Absent: fresh, or not asked (budget). */
  noDataSince?: string | null;
}

/** `defaults.backtest.episodeBudget`: at most `episodes` per `per` (e.g. 3 per 7d). */
export interface EpisodeBudget {
  episodes: number;
  per: string;
}

/**
 * The threshold nearest the alert's own that would have kept it within the episode budget over the
 * same history (the same series: no request). A suggestion, never applied.
 */
export interface ThresholdSuggestion {
  threshold: number;
  /** What the alert would have done with it. */
  episodes: number;
  firing: number;
  notifications: number;
  budget: EpisodeBudget;
  /** Episodes the budget allows over this history (`episodes` × history ÷ `per`). */
  allowed: number;
}

export interface Backtest extends BacktestSide {
  /** The history window asked for, e.g. `7d`. */
  window: string;
  /** The alert's evaluation window, the series granularity (e.g. `5m`). */
  granularity?: string;
  /** Series requests this alert made (identical queries of other alerts are made once and counted there). */
  requests?: number;
  /** An update: the same counts for the live alert (and, for an impact, the alert on the live tile or search). */
  before?: BacktestSide;
  /** The series the alert as the plan leaves it reads, for the backtest charts. */
  series?: BacktestSeries;
}

/** The backtests of one plan, as a whole: its share of the plan's requests. */
export interface BacktestRun {
  window: string;
  /** Series requests the plan may make for backtests. */
  budget: number;
  /** Series requests one alert may make (a longer history is shortened to fit). */
  perAlert: number;
  /** Series requests the backtests needed, before the budget (identical queries counted once). */
  needed: number;
  /** Series requests made. */
  requests: number;
  /** Queries asked by several alerts, made once. */
  deduplicated: number;
  /** Alerts backtested (created or updated alerts, and alerts on changed tiles and saved searches). */
  alerts: number;
  /** Alerts not evaluated: the budget was spent, or one needed more than the cap. */
  skipped: number;
  /** Set when no alert could be evaluated on this target (hosted: no chart series API). */
  unavailable?: string;
}

/** An object a change touches, named as cascades are. */
export interface ImpactItem {
  kind: AnyKind;
  /** Absent for an object this plan creates. */
  id?: string;
  name: string | null;
  address?: Address;
  owned: boolean;
  declared: boolean;
  /** An alert on a changed tile or saved search: how its firing changes. */
  backtest?: Backtest;
}

/**
 * `tile-alerts`: alerts on a tile whose query changes; `search-alerts`: alerts on a saved search
 * whose query changes; `readers`: what reads a changed or deleted source or connection;
 * `webhook-users`: alerts that notify a webhook whose destination changes or that is deleted.
 */
export type ImpactKind = 'tile-alerts' | 'search-alerts' | 'readers' | 'webhook-users';

export interface Impact {
  kind: ImpactKind;
  /** What changes, in words: `tile p99: query changed`, `where changed`, `deleted`. */
  what: string;
  objects: ImpactItem[];
}
