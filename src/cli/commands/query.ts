/**
 * `obsync query`: chart series from a source (self-hosted charts API), as a table by default —
 * times in ISO 8601 (UTC), a column per --group-by, values as numbers — or one JSON object per
 * line with `--output json` (`{"time", "group", "value"}`).
 */
import { InvalidArgumentError, Option, type Command } from 'commander';
import { durationMs } from '../../core/duration.js';
import { ConfigError } from '../../core/errors.js';
import { requireCapability } from '../../core/ports.js';
import type { Json, WireSeriesRow } from '../../core/wire.js';
import { collectionOf } from '../../kinds/registry.js';
import type { CliIO } from '../io.js';
import { decimal, timeoutSeconds } from '../numbers.js';
import type { CommandRegistrar } from '../registrar.js';
import { openConnection } from '../connection.js';
import { formatTable } from '../table.js';
import { setOwn } from '../../core/json.js';

interface QueryFlags {
  target?: string;
  config?: string;
  source: string;
  agg: string;
  field?: string;
  where: string;
  groupBy: string[];
  since: string;
  granularity: string;
  level?: number;
  timeout?: number;
  output: 'text' | 'json';
}

/** One bucket of the series: when, for which group, the value (numbers as numbers, or text the service sent). */
export interface SeriesPoint {
  time: string | null;
  group: Record<string, string>;
  value: number | string | null;
}

const AGGS = ['avg', 'count', 'count_distinct', 'last_value', 'max', 'min', 'quantile', 'sum', 'any', 'none', 'increase'];
const GRANULARITIES = ['30s', '1m', '5m', '10m', '15m', '30m', '1h', '2h', '6h', '12h', '1d', '2d', '7d', '30d', 'auto'];
export function parseDuration(value: string): number {
  const ms = durationMs(value);
  if (ms === null) throw new InvalidArgumentError('expected a duration like 15m, 1h or 7d');
  return ms;
}

export const register: CommandRegistrar = (program: Command, io: CliIO) => {
  program
    .command('query')
    .description('query chart series from a source (self-hosted variant)')
    .option('--target <name>', 'target (self-hosted)')
    .option('--config <file>', 'obsync.yaml to use')
    .requiredOption('--source <name>', 'source name (e.g. Logs)')
    .addOption(new Option('--agg <fn>', 'aggregation').choices(AGGS).default('count'))
    .option('--field <expr>', 'value expression for non-count aggregations')
    .option('--where <query>', 'filter (Lucene)', '')
    .option('--group-by <column>', 'group by (repeatable)', (v: string, prev: string[]) => [...prev, v], [])
    .option('--since <duration>', 'time range ending now', '1h')
    .addOption(new Option('--granularity <g>', 'bucket size').choices(GRANULARITIES).default('auto'))
    .option('--level <q>', 'quantile level (0-1)', decimal({ min: 0, max: 1 }))
    .option('--timeout <seconds>', 'deadline of each request to the target', timeoutSeconds)
    .addOption(
      new Option('--output <format>', 'a table, or one JSON object per line ({"time", "group", "value"})')
        .choices(['text', 'json'])
        .default('text'),
    )
    .action(async (flags: QueryFlags) => {
      if (flags.agg !== 'count' && !flags.field) throw new ConfigError(`--agg ${flags.agg} needs --field`);
      const since = parseDuration(flags.since);
      const connection = await openConnection(io, {
        config: flags.config,
        target: flags.target,
        timeoutMs: flags.timeout === undefined ? undefined : flags.timeout * 1000,
      });
      try {
        const charts = requireCapability(connection.port, 'charts');
        const sources = await collectionOf(connection.port, 'Source').list();
        const matches = sources.filter((s) => s.name === flags.source);
        const [source] = matches;
        if (!source || matches.length > 1) {
          throw new ConfigError(
            matches.length > 1 ? `${matches.length} sources are named '${flags.source}'` : `no source named '${flags.source}'`,
            { hint: `sources: ${sources.map((s) => s.name).join(', ')}` },
          );
        }
        const endTime = Date.now();
        const rows = await charts.series({
          series: [
            {
              sourceId: source.id,
              aggFn: flags.agg,
              where: flags.where,
              groupBy: flags.groupBy,
              ...(flags.field ? { field: flags.field } : {}),
              ...(flags.level !== undefined ? { level: flags.level } : {}),
            },
          ],
          startTime: endTime - since,
          endTime,
          granularity: flags.granularity,
        });
        const points = rows.map((row) => seriesPoint(row, flags.groupBy));
        if (flags.output === 'json') {
          for (const p of points) io.stdout.write(`${JSON.stringify(p)}\n`);
        } else if (points.length === 0) {
          io.stderr.write(`no data for '${flags.source}' in the last ${flags.since}\n`);
        } else {
          const value = valueLabel(flags);
          io.stdout.write(
            formatTable(
              ['TIME (UTC)', ...flags.groupBy, value],
              points.map((p) => [p.time ?? '-', ...flags.groupBy.map((g) => p.group[g] ?? ''), p.value === null ? '-' : String(p.value)]),
              ['left', ...flags.groupBy.map(() => 'left' as const), 'right'],
            ),
          );
        }
      } finally {
        await connection.close();
      }
    });
};

/** `count`, `avg(Duration)`, `quantile(0.99, Duration)`: what the value column holds. */
function valueLabel(flags: QueryFlags): string {
  if (flags.agg === 'count') return 'count';
  const args = [flags.agg === 'quantile' && flags.level !== undefined ? String(flags.level) : undefined, flags.field].filter(Boolean);
  return `${flags.agg}(${args.join(', ')})`;
}

/**
 * A row of the service (`{ts_bucket: ms, group: [...], "series_0.data": "652"}`, or the column
 * form `{__hdx_time_bucket: "2026-11-26 12:03:00", series_0: 652, <group columns>}`) as a point.
 */
export function seriesPoint(row: WireSeriesRow, groupBy: readonly string[]): SeriesPoint {
  const groupValues = Array.isArray(row.group) ? row.group : groupBy.map((g) => row[g] ?? null);
  const group: Record<string, string> = {};
  groupBy.forEach((g, i) => setOwn(group, g, textOf(groupValues[i] ?? null)));
  return {
    time: timeOf(row.ts_bucket ?? row.__hdx_time_bucket ?? null),
    group,
    value: numberOf(row['series_0.data'] ?? row.series_0 ?? null),
  };
}

/** Epoch milliseconds (or seconds), or a ClickHouse `YYYY-MM-DD hh:mm:ss` in UTC, as ISO 8601. */
export function timeOf(value: Json | undefined): string | null {
  let ms: number | undefined;
  if (typeof value === 'number') ms = value < 1e12 ? value * 1000 : value;
  else if (typeof value === 'string' && /^\d+$/.test(value)) ms = Number(value) < 1e12 ? Number(value) * 1000 : Number(value);
  else if (typeof value === 'string') ms = Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(value) ? value : `${value.replace(' ', 'T')}Z`);
  if (ms === undefined || !Number.isFinite(ms)) return typeof value === 'string' ? value : null;
  return new Date(ms).toISOString().replace('.000Z', 'Z');
}

/** ClickHouse sends 64-bit integers as strings: a number when it fits exactly, else the digits as they came. */
function numberOf(value: Json): number | string | null {
  if (value === null || typeof value === 'number') return value;
  if (typeof value === 'string' && /^-?\d+(\.\d+)?([eE][-+]?\d+)?$/.test(value)) {
    const n = Number(value);
    return Number.isFinite(n) && (!/^-?\d+$/.test(value) || Number.isSafeInteger(n)) ? n : value;
  }
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function textOf(value: Json): string {
  return typeof value === 'string' ? value : value === null ? '' : JSON.stringify(value);
}
