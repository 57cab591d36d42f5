/**
 * `obsync search`: the rows of a source (self-hosted `POST /api/v2/search`), read page by page by
 * the service's search cursor through the port's `search` capability (src/remote/search-walk.ts).
 * A table by default — the timestamp first (ISO 8601, UTC), then the selected columns, long cells
 * cut — or one JSON object per line with `--output json` (each row as the service answered it).
 *
 * A walk that ends before the service said "done" and before it held --limit rows (its request
 * budget spent: the service has more time windows than obsync knows of) prints what it read, says
 * so on stderr and exits 0: the rows printed are the first ones in order, only fewer. A cursor the
 * service refuses fails the command with the walk's typed error (nothing is printed but the error).
 */
import { InvalidArgumentError, Option, type Command } from 'commander';
import { splitSqlList } from '../../core/sql-list.js';
import * as z from 'zod';
import { ConfigError } from '../../core/errors.js';
import { READ_ONLY } from '../../core/fence.js';
import { requireCapability, type SearchQuery, type ServicePort } from '../../core/ports.js';
import { collectionOf } from '../../kinds/registry.js';
import type { CliIO } from '../io.js';
import { timeoutSeconds, wholeNumber } from '../numbers.js';
import type { CommandRegistrar } from '../registrar.js';
import { openConnection } from '../connection.js';
import { formatTable } from '../table.js';
import { parseDuration } from './query.js';
import { incompleteNote, LIMIT_DEFAULT, LIMIT_MAX, rowCells, rowColumns, searchBudget, selectWithTimestamp } from '../search-rows.js';

interface SearchFlags {
  target?: string;
  config?: string;
  source: string;
  where: string;
  whereLanguage: 'lucene' | 'sql';
  since: string;
  from?: number;
  to?: number;
  select?: string;
  limit: number;
  order: 'asc' | 'desc';
  timeout?: number;
  output: 'text' | 'json';
}

/** What the command reads of a source (the rest of it is the kind's business). */
const searchedSource = z.looseObject({
  id: z.string(),
  name: z.string(),
  timestampValueExpression: z.string().optional(),
  defaultTableSelectExpression: z.string().optional(),
});
type SearchedSource = z.infer<typeof searchedSource>;

function instant(value: string): number {
  const ms = /^\d{4}-\d\d-\d\d/.test(value) ? Date.parse(value) : Number.NaN;
  if (!Number.isFinite(ms)) throw new InvalidArgumentError('expected an ISO 8601 time like 2026-11-29T12:00:00Z');
  return ms;
}

export const register: CommandRegistrar = (program: Command, io: CliIO) => {
  program
    .command('search')
    .description('the rows of a source, paged by the search cursor (self-hosted variant)')
    .option('--target <name>', 'target (self-hosted)')
    .option('--config <file>', 'obsync.yaml to use')
    .requiredOption('--source <name>', 'source name (e.g. Logs)')
    .option('--where <query>', 'filter', '')
    .addOption(new Option('--where-language <language>', 'language of --where').choices(['lucene', 'sql']).default('lucene'))
    .addOption(new Option('--since <duration>', 'time range ending now').default('1h').conflicts(['from', 'to']))
    .addOption(new Option('--from <time>', 'start of the range (ISO 8601; with --to)').argParser(instant))
    .addOption(new Option('--to <time>', 'end of the range (ISO 8601; with --from)').argParser(instant))
    .option('--select <columns>', "columns, comma-separated (default: the source's default columns); the timestamp always comes first")
    .option('--limit <n>', `rows to print, at most ${LIMIT_MAX}`, wholeNumber(1, LIMIT_MAX), LIMIT_DEFAULT)
    .addOption(new Option('--order <order>', 'newest first (desc) or oldest first (asc)').choices(['asc', 'desc']).default('desc'))
    .option('--timeout <seconds>', 'deadline of each request to the target', timeoutSeconds)
    .addOption(
      new Option('--output <format>', 'a table, or one JSON object per line (each row as the service answered it)')
        .choices(['text', 'json'])
        .default('text'),
    )
    .action(async (flags: SearchFlags) => {
      const range = timeRange(flags);
      const connection = await openConnection(io, {
        config: flags.config,
        target: flags.target,
        timeoutMs: flags.timeout === undefined ? undefined : flags.timeout * 1000,
        fence: READ_ONLY,
      });
      try {
        const search = requireCapability(connection.port, 'search');
        const source = await sourceNamed(connection.port, flags.source);
        const timestampExpression = source.timestampValueExpression?.trim() || 'Timestamp';
        // A composite timestamp (`TimestampTime, Timestamp`) orders by all its parts; the first is the column shown first.
        const timestamp = splitSqlList(timestampExpression)[0] ?? 'Timestamp';
        const columns = splitSqlList(flags.select ?? source.defaultTableSelectExpression ?? '');
        const { pageSize, maxRequests } = searchBudget(flags.limit, range.end - range.start);
        const query: SearchQuery = {
          sourceId: source.id,
          startTime: new Date(range.start).toISOString(),
          endTime: new Date(range.end).toISOString(),
          where: flags.where,
          whereLanguage: flags.whereLanguage,
          select: selectWithTimestamp(timestamp, columns),
          orderBy: `${timestampExpression.includes(',') ? `(${timestampExpression})` : timestampExpression} ${flags.order.toUpperCase()}`,
          maxResults: pageSize,
        };
        const walk = await search.rows(query, { maxRequests, maxRows: flags.limit });
        const rows = walk.rows.slice(0, flags.limit);
        if (flags.output === 'json') {
          for (const row of rows) io.stdout.write(`${JSON.stringify(row)}\n`);
        } else if (rows.length > 0) {
          const header = rowColumns(rows, timestamp);
          io.stdout.write(
            formatTable(
              header,
              rows.map((row) => rowCells(row, header, timestamp)),
            ),
          );
        } else {
          io.stderr.write(`no rows in '${flags.source}' for this range\n`);
        }
        const note = incompleteNote(walk, rows.length, flags.limit);
        if (note) io.stderr.write(`${note}\n`);
      } finally {
        await connection.close();
      }
    });
};

function timeRange(flags: SearchFlags): { start: number; end: number } {
  if ((flags.from === undefined) !== (flags.to === undefined)) throw new ConfigError('--from and --to go together: give both, or --since');
  if (flags.from !== undefined && flags.to !== undefined) {
    if (flags.from >= flags.to) throw new ConfigError('--from must be before --to');
    return { start: flags.from, end: flags.to };
  }
  const end = Date.now();
  return { start: end - parseDuration(flags.since), end };
}

async function sourceNamed(port: ServicePort, name: string): Promise<SearchedSource> {
  const sources = await collectionOf(port, 'Source').list();
  const matches = sources.filter((s) => s.name === name);
  const [only] = matches;
  if (!only || matches.length > 1) {
    throw new ConfigError(matches.length > 1 ? `${matches.length} sources are named '${name}'` : `no source named '${name}'`, {
      hint: `sources: ${sources.map((s) => s.name).join(', ')}`,
    });
  }
  const parsed = searchedSource.safeParse(only);
  if (!parsed.success) throw new ConfigError(`source '${name}': its timestampValueExpression is not text`, { hint: 'check the source' });
  return parsed.data;
}
