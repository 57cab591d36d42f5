/**
 * The simulator's answer to a chart series `where` against the real server's, on a generated
 * corpus (issue 54): the same queries accepted, the same refused, with the same message. The
 * server side is ported here from HyperDX (b52a6fa8): the route trims `where` (charts.ts), the
 * builder parses only a non-empty one (SearchQueryBuilder), common-utils `parse` rewrites its
 * special tokens and calls `@hyperdx/lucene`, and the route answers what it throws as 500 `{error:
 * e.message}`. The simulator is reached through its domain entry point, as its HTTP route calls it.
 */
import { parse } from '@hyperdx/lucene';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { luceneSyntaxError } from './lucene.js';
import { DEMO_IDS } from './seed.js';
import { demoDomain } from './test-helpers.js';

/** common-utils queryParser.ts `encodeSpecialTokens`, as the server has it. */
function encodeSpecialTokens(query: string): string {
  return query
    .replace(/\\\\/g, 'HDX_BACKSLASH_LITERAL')
    .replace(/http:\/\//g, 'http_COLON_//')
    .replace(/https:\/\//g, 'https_COLON_//')
    .replace(/localhost:(\d{1,5})/g, 'localhost_COLON_$1')
    .replace(/\\:/g, 'HDX_COLON');
}

type Answer = { status: 200 } | { status: number; error: string };

/** What the real server answers a series with this `where` (on a source it has). */
function server(where: string): Answer {
  const condition = where.trim();
  if (!condition) return { status: 200 };
  try {
    parse(encodeSpecialTokens(condition));
    return { status: 200 };
  } catch (e) {
    return { status: 500, error: e instanceof Error ? e.message : 'Internal server error' };
  }
}

const domain = demoDomain();
const window = { startTime: 1767225600000, endTime: 1767226200000, granularity: '5m' };

function simulator(where: string): Answer {
  const result = domain.chartSeries({ series: [{ sourceId: DEMO_IDS.logs, aggFn: 'count', where, groupBy: [] }], ...window });
  if (result.ok) return { status: 200 };
  const body = result.error.selfHostedBody;
  const error = body?.type === 'json' ? (body.body as { error?: unknown }).error : undefined;
  return { status: result.error.status, error: typeof error === 'string' ? error : `(no error string: ${JSON.stringify(body)})` };
}

// A query language generator: fields, terms, phrases, ranges, groups, operators, modifiers, and the
// tokens HyperDX rewrites; then each query mutated by a character from the grammar's punctuation.
const word = fc.constantFrom('error', 'api', 'foo', 'bar*', '*bar', 'x?z', '42', 'a-b', 'a.b', 'a/b', 'TO', 'and', 'c3');
const field = fc.constantFrom('SeverityText', 'ServiceName', 'LogAttributes.error.message', 'Duration', 'a\\:b', '_id');
const special = fc.constantFrom(
  'http://a.com',
  'https://b.org/x',
  'localhost:8080',
  'host:localhost:9',
  'path\\\\dir',
  'a\\:b',
  'a\\ b',
  'x\\!',
);
const phrase = fc.array(word, { minLength: 1, maxLength: 3 }).map((ws) => `"${ws.join(' ')}"`);
const bound = fc.oneof(fc.constant('*'), fc.integer({ min: -5, max: 999 }).map(String), fc.constant('2024-01-01'));
const range = fc
  .tuple(fc.constantFrom('[', '{'), bound, bound, fc.constantFrom(']', '}'))
  .map(([open, min, max, close]) => `${open}${min} TO ${max}${close}`);
const modifier = fc.constantFrom('', '', '', '~', '~2', '~0.8', '^2', '^0.5', '~1^3');
const prefix = fc.constantFrom('', '', '', '-', '+', '!', 'NOT ');
const atom = fc
  .tuple(prefix, fc.option(field, { nil: undefined }), fc.oneof(word, phrase, range, special), modifier)
  .map(([p, f, t, m]) => `${p}${f === undefined ? '' : `${f}:`}${t}${m}`);
const operator = fc.constantFrom(' ', ' AND ', ' OR ', ' AND NOT ', ' OR NOT ', ' && ', ' || ', '  ');
const query: fc.Arbitrary<string> = fc.letrec<{ expr: string }>((tie) => ({
  expr: fc.oneof(
    { depthSize: 'xsmall', maxDepth: 3 },
    atom,
    fc.tuple(tie('expr'), operator, tie('expr')).map(([a, op, b]) => `${a}${op}${b}`),
    fc.tuple(fc.option(field, { nil: undefined }), tie('expr')).map(([f, e]) => `${f === undefined ? '' : `${f}:`}(${e})`),
  ),
})).expr;
const PUNCTUATION = [...'()[]{}":^~!+-*?\\/ \t&|'];
const mutated = fc
  .tuple(query, fc.nat(), fc.constantFrom(...PUNCTUATION), fc.constantFrom('insert', 'delete', 'replace'))
  .map(([q, at, c, how]) => {
    const i = at % (q.length + 1);
    if (how === 'insert') return q.slice(0, i) + c + q.slice(i);
    if (how === 'delete') return q.slice(0, i) + q.slice(i + 1);
    return q.slice(0, i) + c + q.slice(i + 1);
  });

/** The corpus: the same on every run (seeded), about half of it refused; 700 queries (a refusal costs the parser 1.4 ms). */
const CORPUS: readonly string[] = [
  ...fc.sample(query, { seed: 54, numRuns: 250 }),
  ...fc.sample(mutated, { seed: 4054, numRuns: 450 }),
  // Known edges: the bare trailing `!` the hand-written recogniser took, empty and blank queries, deep nesting.
  'foo !',
  'a AND !',
  '',
  '   ',
  '\t',
  `${'('.repeat(200)}a${')'.repeat(200)}`,
  '(invalid query',
  'duration:[1 TO',
  'foo:bar:baz',
  'a ^ b',
];

describe('a Lucene `where` of a chart series, the simulator against the real server', () => {
  it('answers every query of the generated corpus as the server does: accepted, or refused with its status and message', () => {
    const differ: string[] = [];
    let refused = 0;
    for (const [i, where] of CORPUS.entries()) {
      const expected = server(where);
      if ('error' in expected) refused += 1;
      const syntax = luceneSyntaxError(where);
      // The whole series request, as the route hands it to the simulator, for every fourth query.
      const got = i % 4 === 0 ? simulator(where) : syntax === undefined ? { status: 200 } : { status: 500, error: syntax };
      if (JSON.stringify(got) !== JSON.stringify(expected))
        differ.push(`${JSON.stringify(where)}: server ${JSON.stringify(expected)}, simulator ${JSON.stringify(got)}`);
    }
    expect(differ.slice(0, 10)).toEqual([]);
    // The corpus exercises both answers, and the server's wording (not a message of the simulator's own).
    expect(refused).toBeGreaterThan(CORPUS.length / 5);
    expect(CORPUS.length - refused).toBeGreaterThan(CORPUS.length / 5);
    expect(simulator('foo !')).toEqual({ status: 500, error: expect.stringMatching(/^Expected .* but end of input found\.$/) as unknown });
  });

  it('does not parse a query whose language is sql', () => {
    const result = domain.chartSeries({
      series: [{ sourceId: DEMO_IDS.logs, aggFn: 'count', where: 'Duration > (', whereLanguage: 'sql', groupBy: [] }],
      ...window,
    });
    expect(result.ok).toBe(true);
  });
});
