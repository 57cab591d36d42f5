/**
 * The sandbox's synthetic telemetry, for `POST /charts/series`: a bucket's value depends only on
 * the source, the series (aggregation, field, where, level, metric), the group, the bucket's
 * start and the granularity — never on the rest of the request — so two overlapping queries
 * agree on every bucket they share and a backtest finds what a chart would show. Seeded and
 * deterministic. Each source has:
 * - traffic with a daily cycle (busiest at 14:00 UTC, quietest at 02:00) and Poisson-like noise;
 * - a where that selects a share of it (an error-like where a small share, which incidents swell);
 * - incidents on about half of the days (15 to 120 minutes, 3 to 8 times the errors, slower
 *   responses), hitting one group hardest;
 * - rare gaps with no data at all (10 to 40 minutes): a bucket inside one has no row;
 * - a where naming a SeverityText that is no log level (`SeverityText:eror`, a typo) matches
 *   nothing: no bucket has a row, as ClickHouse returns none for a count of no rows.
 */

const SEED = 'obsync-sandbox-telemetry-1';
const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
const MINUTE_MS = 60_000;

/** One series of a request, as the route parsed it. */
export interface SeriesInput {
  sourceId: string;
  aggFn: string;
  where: string;
  whereLanguage?: string | undefined;
  field?: string | undefined;
  level?: number | undefined;
  metricName?: string | undefined;
}

/** FNV-1a over the parts, finished by a mulberry32 round: a uniform number in [0, 1). */
export function unit(...parts: (string | number)[]): number {
  let h = 0x811c9dc5;
  const text = parts.join('\u0000');
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  let t = (h + 0x6d2b79f5) >>> 0;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}

interface Episode {
  start: number;
  end: number;
  severity: number;
  /** The group (by index) hit hardest. */
  group: number;
}

/** Incidents (or gaps) of a source on the UTC days a bucket spans, and the day before (one may run past midnight). */
function episodes(sourceId: string, what: 'incident' | 'gap', from: number, to: number): Episode[] {
  const chance = what === 'incident' ? 0.45 : 0.12;
  const out: Episode[] = [];
  for (let day = Math.floor(from / DAY_MS) - 1; day <= Math.floor((to - 1) / DAY_MS); day++) {
    if (unit(SEED, sourceId, what, day) >= chance) continue;
    const start = day * DAY_MS + Math.floor((unit(SEED, sourceId, what, 'start', day) * DAY_MS) / MINUTE_MS) * MINUTE_MS;
    const minutes =
      what === 'incident' ? 15 + 105 * unit(SEED, sourceId, what, 'len', day) : 10 + 30 * unit(SEED, sourceId, what, 'len', day);
    out.push({
      start,
      end: start + Math.round(minutes) * MINUTE_MS,
      severity: 3 + 5 * unit(SEED, sourceId, what, 'sev', day),
      group: Math.floor(unit(SEED, sourceId, what, 'grp', day) * 3),
    });
  }
  return out;
}

function overlap(e: Episode, from: number, to: number): number {
  return Math.max(0, Math.min(e.end, to) - Math.max(e.start, from)) / (to - from);
}

/** The daily cycle, averaged over the bucket (hourly samples for long buckets). */
function daily(from: number, stepMs: number): number {
  const cycle = (t: number) => 1 + 0.5 * Math.sin((2 * Math.PI * ((t % DAY_MS) / HOUR_MS - 8)) / 24);
  if (stepMs <= HOUR_MS) return cycle(from + stepMs / 2);
  const samples = Math.min(720, Math.round(stepMs / HOUR_MS));
  let sum = 0;
  for (let i = 0; i < samples; i++) sum += cycle(from + (i + 0.5) * (stepMs / samples));
  return sum / samples;
}

const ERRORISH = /error|fatal|exception|fail|5\d\d|critical/i;
const LEVELS = new Set([
  'trace',
  'debug',
  'info',
  'notice',
  'warn',
  'warning',
  'error',
  'err',
  'fatal',
  'critical',
  'crit',
  'alert',
  'emerg',
  'panic',
]);

/** A where that names a SeverityText outside the log levels: nothing matches it. */
function matchesNothing(where: string): boolean {
  for (const m of where.matchAll(/SeverityText\s*[:=]\s*["']?([\w*?]+)/g)) {
    const value = m[1] ?? '';
    if (!/[*?]/.test(value) && !LEVELS.has(value.toLowerCase())) return true;
  }
  return false;
}

/** A normal deviate from two uniforms (Box–Muller). */
function normal(a: number, b: number): number {
  return Math.sqrt(-2 * Math.log(Math.max(a, 1e-12))) * Math.cos(2 * Math.PI * b);
}

/** The group values of one groupBy: three per column, two each with several columns. */
export function groupValues(groupBy: readonly string[]): string[][] {
  if (groupBy.length === 0) return [[]];
  const per = groupBy.length === 1 ? 3 : 2;
  let combos: string[][] = [[]];
  for (const col of groupBy) combos = combos.flatMap((c) => Array.from({ length: per }, (_, k) => [...c, `${col}-${k + 1}`]));
  return combos;
}

/**
 * The value of one series for one group and bucket, as ClickHouse JSON would carry it (counts as
 * strings); null when the source has no data in the bucket (the route then has no row).
 */
export function bucketValue(
  s: SeriesInput,
  group: readonly string[],
  groupIndex: number,
  groupCount: number,
  from: number,
  stepMs: number,
): string | number | null {
  const to = from + stepMs;
  const gaps = episodes(s.sourceId, 'gap', from, to);
  const coverage = Math.max(0, 1 - gaps.reduce((sum, g) => sum + overlap(g, from, to), 0));
  const where = s.where.trim();
  if (coverage === 0 || matchesNothing(where)) return null;
  const errorish = ERRORISH.test(where);
  const share = where === '' ? 1 : errorish ? 0.004 + 0.016 * unit(SEED, 'where', where) : 0.02 + 0.25 * unit(SEED, 'where', where);
  const weights = Array.from({ length: groupCount }, (_, k) => 0.5 + unit(SEED, s.sourceId, 'group', groupCount, k));
  const groupShare = groupCount <= 1 ? 1 : (weights[groupIndex] ?? 1) / weights.reduce((a, b) => a + b, 0);
  const rate = 50 + 450 * unit(SEED, s.sourceId, 'rate');
  const incident = episodes(s.sourceId, 'incident', from, to).reduce((factor, e) => {
    const hit = overlap(e, from, to);
    const strength = groupCount <= 1 || e.group % groupCount === groupIndex ? 1 : 0.15;
    const swell = errorish ? e.severity * 3 : 1 + (e.severity - 1) * 0.3;
    return factor + (swell - 1) * hit * strength;
  }, 1);
  const key = [
    SEED,
    s.sourceId,
    s.aggFn,
    s.field ?? '',
    s.metricName ?? '',
    where,
    s.whereLanguage ?? 'lucene',
    s.level ?? '',
    group.join('|'),
    from,
    stepMs,
  ];
  const expected = rate * share * groupShare * daily(from, stepMs) * incident * (stepMs / MINUTE_MS) * coverage;
  const count = Math.max(0, Math.round(expected + Math.sqrt(expected) * normal(unit(...key, 'n1'), unit(...key, 'n2'))));
  if (s.aggFn === 'count') return String(count);
  if (s.aggFn === 'count_distinct') return String(Math.min(count, Math.round(Math.sqrt(count) * 3)));
  if (s.aggFn === 'increase') return count;
  if (count === 0) return null;
  const level = 20 + 480 * unit(SEED, s.sourceId, 'level', s.field ?? s.metricName ?? '');
  const slow = 1 + (incident - 1) * (errorish ? 0.05 : 0.5);
  const avg = level * (0.9 + 0.2 * daily(from, stepMs)) * slow * (1 + 0.12 * (2 * unit(...key, 'jitter') - 1));
  return Math.round(aggregate(s, avg, count) * 100) / 100;
}

function aggregate(s: SeriesInput, avg: number, count: number): number {
  switch (s.aggFn) {
    case 'quantile': {
      const q = s.level ?? 0.5;
      return avg * (0.6 + 2.4 * q ** 3);
    }
    case 'max':
      return avg * 5;
    case 'min':
      return avg * 0.05;
    case 'sum':
      return avg * count;
    default:
      return avg;
  }
}
