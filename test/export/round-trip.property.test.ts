/**
 * Property (issue 18): whatever a team made on the service — generated dashboards of every tile
 * type with any mix of optional fields and server defaults, tile alerts, saved searches and
 * their alerts — its export plans to zero changes against the same service, on both variants,
 * and exporting twice gives the same bytes.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ServicePort } from '../../src/core/ports.js';
import { collectionOf } from '../../src/kinds/registry.js';
import type { JsonObject } from '../../src/core/wire.js';
import { readLive } from '../../src/engine/live.js';
import { makePlan } from '../../src/engine/run.js';
import { SELECT_ALL } from '../../src/engine/selection.js';
import { exportLive } from '../../src/export/exporter.js';
import { memoryInventory } from '../../src/inventory/memory-store.js';
import { REGISTRY } from '../../src/kinds/registry.js';
import { loadManifests } from '../../src/manifests/load.js';
import { createObservabilityDomain } from '../../src/sandbox/domain/index.js';
import { DEMO_IDS } from '../../src/sandbox/domain/seed.js';
import { inProcessPort } from '../../src/sandbox/in-process-port.js';

const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });
const defined = (o: Record<string, unknown>): JsonObject =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as JsonObject;

const where = maybe(fc.constantFrom('', 'level:error', 'ServiceName:api'));
const language = maybe(fc.constantFrom('lucene', 'sql'));
const select = fc
  .oneof(
    fc.record({
      aggFn: fc.constant('count'),
      valueExpression: maybe(fc.constant('')),
      where: fc.constantFrom('', 'level:error'),
      whereLanguage: language,
      alias: maybe(fc.constant('n')),
    }),
    fc.record({
      aggFn: fc.constantFrom('avg', 'max', 'sum'),
      valueExpression: fc.constant('Duration'),
      where: fc.constant(''),
      whereLanguage: language,
    }),
    fc.record({
      aggFn: fc.constant('quantile'),
      level: fc.constantFrom(0.5, 0.9, 0.95, 0.99),
      valueExpression: fc.constant('Duration'),
      where: fc.constant(''),
    }),
  )
  .map(defined);
const source = fc.constantFrom(DEMO_IDS.logs, DEMO_IDS.traces);
const config = fc
  .oneof(
    fc.record({
      displayType: fc.constant('line'),
      sourceId: source,
      select: fc.array(select, { minLength: 1, maxLength: 2 }),
      fillNulls: maybe(fc.boolean()),
      groupBy: maybe(fc.constant('ServiceName')),
      compareToPreviousPeriod: maybe(fc.boolean()),
    }),
    fc.record({
      displayType: fc.constant('stacked_bar'),
      sourceId: source,
      select: fc.array(select, { minLength: 1, maxLength: 2 }),
      fillNulls: maybe(fc.boolean()),
      fitYAxisToData: maybe(fc.boolean()),
    }),
    fc.record({
      displayType: fc.constant('number'),
      sourceId: source,
      select: select.map((s) => [s]),
      backgroundChart: maybe(fc.constant({ type: 'line' })),
    }),
    fc.record({
      displayType: fc.constant('table'),
      sourceId: source,
      select: fc.array(select, { minLength: 1, maxLength: 2 }),
      asRatio: maybe(fc.constant(false)),
      groupBy: maybe(fc.constant('SpanName')),
    }),
    fc.record({
      displayType: fc.constantFrom('pie', 'bar'),
      sourceId: source,
      select: select.map((s) => [s]),
      groupBy: fc.constant('ServiceName'),
    }),
    fc.record({
      displayType: fc.constant('search'),
      sourceId: source,
      select: fc.constantFrom('Body', ''),
      where,
      whereLanguage: language,
    }),
    fc.record({
      displayType: fc.constant('heatmap'),
      sourceId: fc.constant(DEMO_IDS.traces),
      select: fc.constant([{ valueExpression: 'Duration' }]),
      where,
      whereLanguage: language,
    }),
    fc.record({ displayType: fc.constant('markdown'), markdown: maybe(fc.constantFrom('# Notes', '')) }),
    fc.record({
      configType: fc.constant('sql'),
      displayType: fc.constantFrom('line', 'table', 'number'),
      connectionId: fc.constant(DEMO_IDS.connection),
      sqlTemplate: fc.constant('SELECT 1'),
    }),
  )
  .map(defined);
const tile = fc.record({
  name: fc.constantFrom('Latency', 'Errors', 'Errors', '', 'p99 — Übersicht'),
  x: fc.integer({ min: 0, max: 12 }),
  y: fc.integer({ min: 0, max: 20 }),
  w: fc.integer({ min: 1, max: 12 }),
  h: fc.integer({ min: 1, max: 6 }),
  config,
});
const dashboard = fc.record({
  name: fc.constantFrom('API', 'Checkout', 'Checkout', 'Payments (prod)'),
  tags: maybe(fc.array(fc.constantFrom('team-a', 'prod'), { maxLength: 2 })),
  tiles: fc.array(tile, { minLength: 1, maxLength: 5 }),
  savedQuery: maybe(fc.constantFrom('level:error', '')),
  alert: fc.boolean(),
  offset: maybe(fc.integer({ min: 0, max: 4 })),
});
const search = fc.record({
  name: fc.constantFrom('Errors', 'Slow'),
  sourceId: source,
  where: maybe(fc.constantFrom('', 'level:error')),
  whereLanguage: language,
  orderBy: maybe(fc.constantFrom('', 'Timestamp DESC')),
  tags: maybe(fc.constant(['x'])),
});

type Generated<A> = A extends fc.Arbitrary<infer T> ? T : never;

async function seed(port: ServicePort, dashboards: Generated<typeof dashboard>[], searches: Generated<typeof search>[]): Promise<void> {
  const alerts = collectionOf(port, 'Alert');
  for (const d of dashboards) {
    const made = await collectionOf(port, 'Dashboard').create(
      defined({ name: d.name, tags: d.tags, tiles: d.tiles, savedQuery: d.savedQuery }),
    );
    const alertable = made.tiles.find(
      (t) => ['line', 'stacked_bar', 'number'].includes(t.config.displayType as string) && t.config.configType !== 'sql',
    );
    if (d.alert && alertable)
      await alerts.create(
        defined({
          source: 'tile',
          dashboardId: made.id,
          tileId: alertable.id,
          name: `${d.name} alert`,
          interval: '5m',
          threshold: 1,
          thresholdType: 'above',
          channel: { type: 'webhook', webhookId: DEMO_IDS.opsSlack },
          scheduleOffsetMinutes: d.offset,
        }),
      );
  }
  for (const s of searches) {
    const made = await collectionOf(port, 'SavedSearch').create(defined({ ...s, select: '', filters: [] }));
    await alerts.create({
      source: 'saved_search',
      savedSearchId: made.id,
      interval: '15m',
      threshold: 3,
      thresholdType: 'below',
      channel: { type: 'webhook', webhookId: DEMO_IDS.opsWebhook },
    });
  }
}

describe.each(['self-hosted', 'hosted'] as const)('export round trip on the %s variant (property)', (variant) => {
  it('plans any exported estate to zero changes (once owned, where natural keys are shared)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(dashboard, { minLength: 1, maxLength: 4 }),
        fc.array(search, { maxLength: 2 }),
        async (dashboards, searches) => {
          const port = inProcessPort(createObservabilityDomain({ seed: 'demo' }), variant, 'prop');
          const dir = mkdtempSync(join(tmpdir(), 'obsync-export-prop-'));
          try {
            await seed(port, dashboards, searches);
            // The in-process service has no pipes nor their SSH keys (the HTTP sandbox and the e2e tests cover them).
            const live = await readLive(
              port,
              REGISTRY.filter((d) => d.kind !== 'Pipe' && d.kind !== 'PipeSshKey' && port.collection(d.kind) !== null),
            );
            const result = exportLive({ objects: (k) => live.objects(k), owned: [] });
            expect(exportLive({ objects: (k) => live.objects(k), owned: [] }).manifests.map((m) => m.text)).toEqual(
              result.manifests.map((m) => m.text),
            );
            for (const m of result.manifests) {
              mkdirSync(dirname(join(dir, m.file)), { recursive: true });
              writeFileSync(join(dir, m.file), m.text);
            }
            const { resources, diagnostics } = loadManifests([dir], {
              env: Object.fromEntries(result.variables.map((v) => [v.name, v.value])),
            });
            expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
            // As export --adopt binds them: each manifest to the object it came from.
            const inventory = memoryInventory(
              'prop',
              result.manifests.map((m) => ({
                kind: m.kind,
                name: m.name,
                id: m.id,
                status: 'owned' as const,
                naturalKey: m.naturalKey,
                updatedAt: '2026-01-01T00:00:00Z',
              })),
            );
            const { plan } = await makePlan({ port, inventory, desired: resources, selection: SELECT_ALL, prune: false, maxDeletes: 10 });
            expect(plan.diagnostics).toEqual([]);
            expect(plan.steps.filter((s) => s.action !== 'noop').map((s) => ({ address: s.address, changes: s.changes }))).toEqual([]);
          } finally {
            rmSync(dir, { recursive: true, force: true });
          }
        },
      ),
      { numRuns: 25 },
    );
  });
});
