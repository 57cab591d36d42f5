/** Durations as users write them in flags and obsync.yaml: `15m`, `12h`, `7d`. */

const UNIT_MS: Readonly<Record<string, number>> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** A whole number and one unit of s, m, h or d (those in `units`); null when the text is not one. */
export function durationMs(text: string, units = 'smhd'): number | null {
  const m = /^(\d+)([smhd])$/.exec(text);
  const unit = m?.[2];
  if (!m || unit === undefined || !units.includes(unit)) return null;
  const n = Number(m[1]);
  return n > 0 ? n * (UNIT_MS[unit] ?? 0) : null;
}

/** The longest history a backtest reads (the chart series API answers what the service keeps). */
export const MAX_BACKTEST_MS = 90 * 86_400_000;
