/**
 * What a tile without a time axis shows of its series (number, table, pie, bar): one value per group
 * over the whole window, as the service computes it over the dashboard's range (HyperDX's number tile
 * asks one row without buckets). From 5-minute buckets that value is exact for a count or a sum (the
 * total), a max (the highest) and a min (the lowest); any other aggregate (an average, a quantile, a
 * ratio) cannot be rebuilt from its buckets, so the last bucket's value is shown and the caption says so.
 */
import { PREVIEW_WINDOW, type TilePoint } from '../../core/preview.js';

export type WindowAggregate = 'total' | 'highest' | 'lowest' | 'last';

export interface GroupValue {
  group: string;
  value: number;
}

export function windowAggregateOf(aggFn: string, ratio: boolean): WindowAggregate {
  if (ratio) return 'last';
  if (aggFn === 'count' || aggFn === 'sum') return 'total';
  if (aggFn === 'max') return 'highest';
  if (aggFn === 'min') return 'lowest';
  return 'last';
}

/** What the value is, under a number: `total over 6 h`, `last 5 min`. */
export function aggregateCaption(aggregate: WindowAggregate): string {
  const hours = `${PREVIEW_WINDOW.historyMs / 3_600_000} h`;
  if (aggregate === 'last') return `last ${PREVIEW_WINDOW.bucketMs / 60_000} min`;
  return `${aggregate} over ${hours}`;
}

/** Each group's value over the window, the largest first (a group with no value at all is left out). */
export function groupValues(points: readonly TilePoint[], aggregate: WindowAggregate): GroupValue[] {
  const byGroup = new Map<string, { bucket: number; value: number }[]>();
  for (const p of points) {
    if (p.value === null || !Number.isFinite(p.value) || !Number.isFinite(p.bucket)) continue;
    const list = byGroup.get(p.group) ?? [];
    list.push({ bucket: p.bucket, value: p.value });
    byGroup.set(p.group, list);
  }
  return [...byGroup]
    .map(([group, list]) => ({ group, value: windowValue(list, aggregate) }))
    .sort((a, b) => Math.abs(b.value) - Math.abs(a.value) || a.group.localeCompare(b.group));
}

function windowValue(list: readonly { bucket: number; value: number }[], aggregate: WindowAggregate): number {
  const values = list.map((p) => p.value);
  if (aggregate === 'total') return values.reduce((sum, v) => sum + v, 0);
  if (aggregate === 'highest') return Math.max(...values);
  if (aggregate === 'lowest') return Math.min(...values);
  return [...list].sort((a, b) => a.bucket - b.bucket).at(-1)?.value ?? 0;
}

/** A tile's numberFormat, as far as a picture follows it. */
export interface SimpleNumberFormat {
  output?: string;
  mantissa?: number;
  thousandSeparated?: boolean;
  average?: boolean;
  factor?: number;
  currencySymbol?: string;
}

const SUFFIXES = ['', 'k', 'm', 'b', 't'] as const;

/**
 * A value as the tile's format writes it when the format is simple (number, percent, currency; a
 * factor, digits, thousands separators, 1.2k abbreviations); the units of bytes, durations and rates
 * are not followed: the plain number is written.
 */
export function numberText(raw: number, format: SimpleNumberFormat = {}): string {
  let value = raw * (format.factor ?? 1);
  if (format.output === 'percent') value *= 100;
  let suffix = '';
  if (format.average) {
    let rank = 0;
    while (Math.abs(value) >= 1000 && rank < SUFFIXES.length - 1) {
      value /= 1000;
      rank += 1;
    }
    suffix = SUFFIXES[rank] ?? '';
  }
  // Without a mantissa: at most 2 digits after the point (1 from 100 on), trailing zeros dropped.
  const most = Math.max(0, Math.min(6, format.mantissa ?? (Math.abs(value) >= 100 ? 1 : 2)));
  const least = format.mantissa === undefined ? 0 : most;
  const text = value.toLocaleString('en-US', {
    minimumFractionDigits: least,
    maximumFractionDigits: most,
    useGrouping: format.thousandSeparated === true,
  });
  if (format.output === 'percent') return `${text}${suffix}%`;
  if (format.output === 'currency') return `${format.currencySymbol ?? '$'}${text}${suffix}`;
  return `${text}${suffix}`;
}
