/**
 * Property: for any valid desired state d, plan(d) against the live state that apply(d)
 * produced has no changes (no perpetual diff), and applying twice creates nothing twice.
 */
import { collectionOf } from '../../src/kinds/registry.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { DesiredResource } from '../../src/core/resource.js';
import { applyPlanned, makePlan } from '../../src/engine/run.js';
import { SELECT_ALL } from '../../src/engine/selection.js';
import { memoryInventory } from '../../src/inventory/memory-store.js';
import { dashboardSpecSchema } from '../../src/kinds/dashboard/schema.js';
import { alertSpecSchema } from '../../src/kinds/alert/schema.js';
import { connectionSpecSchema } from '../../src/kinds/connection/schema.js';
import { savedSearchSpecSchema } from '../../src/kinds/saved-search/schema.js';
import { sourceSpecSchema } from '../../src/kinds/source/schema.js';
import { webhookSpecSchema } from '../../src/kinds/webhook/schema.js';
import { SENSITIVE_PATHS } from '../../src/kinds/sensitive-paths.js';
import { createObservabilityDomain } from '../../src/sandbox/domain/index.js';
import { inProcessPort } from '../../src/sandbox/in-process-port.js';

const source = fc.constantFrom('Logs', 'Traces', 'Metrics');
const aggSelect = fc.oneof(
  fc.record({ aggFn: fc.constant('count'), where: fc.constantFrom('', 'level:error', 'ServiceName:api') }, { requiredKeys: ['aggFn'] }),
  fc.record(
    {
      aggFn: fc.constantFrom('avg', 'max', 'min', 'sum'),
      valueExpression: fc.constantFrom('Duration', 'Value'),
      alias: fc.constantFrom('a', 'b'),
    },
    { requiredKeys: ['aggFn', 'valueExpression'] },
  ),
  fc.record({ aggFn: fc.constant('quantile'), level: fc.constantFrom(0.5, 0.9, 0.95, 0.99), valueExpression: fc.constant('Duration') }),
);
const config = fc.oneof(
  fc.record(
    {
      displayType: fc.constant('line'),
      source,
      select: fc.array(aggSelect, { minLength: 1, maxLength: 3 }),
      fillNulls: fc.boolean(),
      groupBy: fc.constantFrom('ServiceName', 'SpanName'),
    },
    { requiredKeys: ['displayType', 'source', 'select'] },
  ),
  fc.record({ displayType: fc.constant('number'), source, select: aggSelect.map((s) => [s]) }),
  fc.record(
    {
      displayType: fc.constant('table'),
      source,
      select: fc.array(aggSelect, { minLength: 1, maxLength: 2 }),
      groupBy: fc.constant('ServiceName'),
    },
    { requiredKeys: ['displayType', 'source', 'select'] },
  ),
  fc.record({ displayType: fc.constant('markdown'), markdown: fc.constantFrom('# Notes', 'runbook: see wiki') }),
  fc.record(
    {
      displayType: fc.constant('search'),
      source: fc.constantFrom('Logs', 'Traces'),
      select: fc.constantFrom('Body', 'ServiceName, Body'),
      where: fc.constantFrom('', 'level:error'),
    },
    { requiredKeys: ['displayType', 'source', 'select'] },
  ),
);
const tile = fc.record({
  name: fc.constantFrom('Latency', 'Errors', 'Throughput', 'Notes', 'Log lines'),
  x: fc.integer({ min: 0, max: 23 }),
  y: fc.integer({ min: 0, max: 20 }),
  w: fc.integer({ min: 1, max: 24 }),
  h: fc.integer({ min: 1, max: 6 }),
  config,
});
const dashboard = fc.record({
  name: fc.constantFrom('API', 'Checkout', 'Payments', 'Search'),
  tags: fc.array(fc.constantFrom('team-a', 'team-b', 'prod'), { maxLength: 4 }),
  tiles: fc.array(tile, { minLength: 1, maxLength: 5 }),
});

function resources(
  specs: { name: string; tags: string[]; tiles: { name: string; config: { displayType: string } }[] }[],
): DesiredResource[] {
  const seen = new Set<string>();
  const out: DesiredResource[] = [];
  specs.forEach((raw, i) => {
    if (seen.has(raw.name)) return;
    seen.add(raw.name);
    const tiles = raw.tiles.map((t, j) => ({ ...t, key: `t${j}` }));
    const spec = dashboardSpecSchema.parse({ ...raw, tiles });
    const name = `d${i}`;
    out.push({ kind: 'Dashboard', name, address: `Dashboard/${name}`, labels: {}, spec, source: { file: 'gen.yaml', line: 1, col: 1 } });
    const alertable = tiles.findIndex((t) => t.config.displayType === 'line' || t.config.displayType === 'number');
    if (alertable >= 0) {
      const alertSpec = alertSpecSchema.parse({
        dashboard: name,
        tile: `t${alertable}`,
        threshold: 5,
        thresholdType: 'above',
        interval: '5m',
        channel: { type: 'webhook', webhook: 'ops-slack' },
        name: `alert on ${raw.name}`,
      });
      out.push({
        kind: 'Alert',
        name: `a${i}`,
        address: `Alert/a${i}`,
        labels: {},
        spec: alertSpec,
        source: { file: 'gen.yaml', line: 1, col: 1 },
      });
    }
  });
  return out;
}

const at = { file: 'gen.yaml', line: 1, col: 1 };
const declare = (kind: DesiredResource['kind'], name: string, spec: unknown): DesiredResource => ({
  kind,
  name,
  address: `${kind}/${name}`,
  labels: {},
  spec,
  source: at,
});

type Of<A> = A extends fc.Arbitrary<infer T> ? T : never;

/** Optional fields: each present or absent. */
const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });

const webhookArb = fc.oneof(
  fc.record({
    service: fc.constant('slack'),
    url: fc.constantFrom('https://hooks.slack.com/services/T1/B1/aaaa1111', 'https://hooks.slack.com/services/T1/B2/bbbb2222'),
    description: maybe(fc.constantFrom('', 'pager')),
  }),
  fc.record({
    service: fc.constantFrom('generic', 'incidentio'),
    url: fc.constantFrom('https://example.com/hook-one-9a8b', 'https://example.org/hook-two-7c6d?token=t0k3n-5e4f'),
    description: maybe(fc.constantFrom('', 'on call')),
    body: maybe(fc.constantFrom('{"text":"{{title}}-body-3a2b"}', '')),
    headers: maybe(fc.constantFrom({}, { 'X-Key-1f2e': 'value-3d4c-secret' })),
    queryParams: maybe(fc.constantFrom({}, { 'tenant-5b6a': 'q-7f8e-secret' })),
  }),
);
const connectionArb = fc.record({
  host: fc.constantFrom('http://ch-a:8123', 'https://ch-b:8443'),
  username: fc.constantFrom('default', 'reader'),
  password: maybe(fc.constantFrom('pw-one-2c3d4e5f', 'pw-two-6a7b8c9d')),
  hyperdxSettingPrefix: maybe(fc.constantFrom('hdx', 'team_a')),
  isPrometheusEndpoint: maybe(fc.boolean()),
});
const granularity = fc.constantFrom('1m', '1 minute', '15s', '1 hour');
const logSourceArb = fc.record({
  serviceNameExpression: maybe(fc.constantFrom('', 'ServiceName')),
  disabled: maybe(fc.boolean()),
  querySettings: maybe(fc.constantFrom([], [{ setting: 'max_threads', value: '4' }])),
  highlightedRowAttributeExpressions: maybe(fc.constantFrom([], [{ sqlExpression: 'ServiceName', alias: 'svc' }])),
  materializedViews: maybe(
    granularity.map((g) => [
      {
        databaseName: 'default',
        tableName: 'mv',
        dimensionColumns: 'ServiceName',
        minGranularity: g,
        timestampColumn: 'Timestamp',
        aggregatedColumns: [{ aggFn: 'count', mvColumn: 'c' }],
      },
    ]),
  ),
  /** A link to the seeded Traces, or to an earlier generated source (links never form a cycle). */
  link: fc.constantFrom<'none' | 'Traces' | 'earlier'>('none', 'Traces', 'earlier'),
});
const searchArb = fc.record({
  where: maybe(fc.constantFrom('', 'level:error')),
  whereLanguage: maybe(fc.constantFrom<'lucene' | 'sql'>('lucene', 'sql')),
  tags: maybe(fc.constantFrom([], ['a', 'a'], ['b'])),
  filters: maybe(
    fc.constantFrom([], [{ condition: "ServiceName IN ('api')" }], [{ type: 'sql' as const, condition: 'Duration BETWEEN 1 AND 5' }]),
  ),
  onOwnSource: fc.boolean(),
});

/** Webhooks, connections, sources, saved searches and the alerts on them (self-hosted: every kind but Pipe). */
function otherKinds(
  hooks: Of<typeof webhookArb>[],
  conns: Of<typeof connectionArb>[],
  sources: Of<typeof logSourceArb>[],
  searches: Of<typeof searchArb>[],
): DesiredResource[] {
  const out: DesiredResource[] = [];
  hooks.forEach((h, i) => out.push(declare('Webhook', `w${i}`, webhookSpecSchema.parse({ ...h, name: `hook ${i}` }))));
  conns.forEach((c, i) => out.push(declare('Connection', `c${i}`, connectionSpecSchema.parse({ ...c, name: `conn ${i}` }))));
  sources.forEach(({ link, ...s }, i) => {
    const traceSource = link === 'Traces' ? 'Traces' : link === 'earlier' && i > 0 ? `s${i - 1}` : undefined;
    const connection = conns.length > 0 ? `c${i % conns.length}` : 'Default';
    const spec = {
      kind: 'log',
      name: `source ${i}`,
      connection,
      from: { databaseName: 'default', tableName: `logs_${i}` },
      timestampValueExpression: 'TimestampTime',
      defaultTableSelectExpression: 'Body',
      ...s,
      ...(traceSource ? { traceSource } : {}),
    };
    out.push(declare('Source', `s${i}`, sourceSpecSchema.parse(spec)));
  });
  searches.forEach(({ onOwnSource, ...s }, i) => {
    const source = onOwnSource && sources.length > 0 ? `s${i % sources.length}` : 'Logs';
    out.push(declare('SavedSearch', `q${i}`, savedSearchSpecSchema.parse({ ...s, name: `search ${i}`, source })));
    const webhook = hooks.length > 0 ? `w${i % hooks.length}` : 'ops-slack';
    out.push(
      declare(
        'Alert',
        `qa${i}`,
        alertSpecSchema.parse({
          savedSearch: `q${i}`,
          threshold: i,
          thresholdType: 'above',
          interval: '15m',
          channel: { type: 'webhook', webhook },
          name: `on search ${i}`,
        }),
      ),
    );
  });
  return out;
}

describe('convergence property', () => {
  it(
    'plans nothing after applying any valid desired state of webhooks, connections, sources and saved searches, from nothing and from ' +
      'another one',
    async () => {
      const pairs = <T>(arb: fc.Arbitrary<T>, maxLength: number) => fc.array(fc.tuple(arb, arb), { maxLength });
      await fc.assert(
        fc.asyncProperty(
          pairs(webhookArb, 3),
          pairs(connectionArb, 2),
          pairs(logSourceArb, 3),
          pairs(searchArb, 3),
          async (hooks, conns, sources, searches) => {
            const port = inProcessPort(createObservabilityDomain({ seed: 'demo' }), 'self-hosted', 'prop');
            const inventory = memoryInventory('prop');
            const converge = async (pick: 0 | 1) => {
              const desired = otherKinds(
                hooks.map((p) => p[pick]),
                conns.map((p) => p[pick]),
                sources.map((p) => p[pick]),
                searches.map((p) => p[pick]),
              );
              const args = { port, inventory, desired, sensitive: SENSITIVE_PATHS, selection: SELECT_ALL, prune: false, maxDeletes: 10 };
              const first = await makePlan(args);
              expect(first.plan.diagnostics).toEqual([]);
              const report = await applyPlanned(first, { port, inventory, concurrency: 2 });
              expect(report.results.filter((r) => r.outcome === 'failed' || r.nonConvergent)).toEqual([]);
              const second = await makePlan(args);
              expect(second.plan.steps.filter((s) => s.action !== 'noop').map((s) => ({ a: s.address, c: s.changes }))).toEqual([]);
            };
            await converge(0);
            await converge(1);
            expect((await collectionOf(port, 'Webhook').list()).length).toBe(2 + hooks.length);
            expect((await collectionOf(port, 'Source').list()).length).toBe(3 + sources.length);
          },
        ),
        { numRuns: 40 },
      );
    },
  );

  it('plans nothing after applying any valid desired state', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(dashboard, { minLength: 1, maxLength: 3 }), async (specs) => {
        const desired = resources(specs);
        const port = inProcessPort(createObservabilityDomain({ seed: 'demo' }), 'self-hosted', 'prop');
        const inventory = memoryInventory('prop');
        const args = { port, inventory, desired, sensitive: SENSITIVE_PATHS, selection: SELECT_ALL, prune: false, maxDeletes: 10 };
        const first = await makePlan(args);
        expect(first.plan.errored).toBe(false);
        const report = await applyPlanned(first, { port, inventory, concurrency: 2 });
        expect(report.summary.failed).toBe(0);
        const second = await makePlan(args);
        expect(second.plan.steps.filter((s) => s.action !== 'noop').map((s) => ({ a: s.address, c: s.changes }))).toEqual([]);
        expect((await collectionOf(port, 'Dashboard').list()).length).toBe(new Set(specs.map((s) => s.name)).size);
      }),
      { numRuns: 60 },
    );
  });
});
