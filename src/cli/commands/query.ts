/** `obsync query`: chart series from a source (self-hosted charts API). */
import { InvalidArgumentError, Option, type Command } from 'commander';
import { durationMs } from '../../core/duration.js';
import { ConfigError } from '../../core/errors.js';
import { requireCapability } from '../../core/ports.js';
import { collectionOf } from '../../kinds/registry.js';
import type { CliIO } from '../io.js';
import { decimal, timeoutSeconds } from '../numbers.js';
import type { CommandRegistrar } from '../registrar.js';
import { openConnection } from '../session.js';

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
        for (const row of rows) io.stdout.write(JSON.stringify(row) + '\n');
      } finally {
        await connection.close();
      }
    });
};
