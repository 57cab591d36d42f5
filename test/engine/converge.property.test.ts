/**
 * Property: for any valid desired state d, plan(d) against the live state that apply(d)
 * produced has no changes (no perpetual diff), and applying twice creates nothing twice.
 */
import { requireCollection } from '../../src/core/ports.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { DesiredResource } from '../../src/core/resource.js';
import { applyPlanned, makePlan } from '../../src/engine/run.js';
import { SELECT_ALL } from '../../src/engine/selection.js';
import { memoryInventory } from '../../src/inventory/memory-store.js';
import { dashboardSpecSchema } from '../../src/kinds/dashboard/schema.js';
import { alertSpecSchema } from '../../src/kinds/alert/schema.js';
import { SENSITIVE_PATHS } from '../../src/kinds/sensitive-paths.js';
import { createObservabilityDomain } from '../../src/sandbox/domain/index.js';
import { inProcessPort } from '../../src/sandbox/in-process-port.js';

const source = fc.constantFrom('Logs', 'Traces', 'Metrics');
const aggSelect = fc.oneof(
  fc.record({ aggFn: fc.constant('count'), where: fc.constantFrom('', 'level:error', 'ServiceName:api') }, { requiredKeys: ['aggFn'] }),
  fc.record({ aggFn: fc.constantFrom('avg', 'max', 'min', 'sum'), valueExpression: fc.constantFrom('Duration', 'Value'), alias: fc.constantFrom('a', 'b') }, { requiredKeys: ['aggFn', 'valueExpression'] }),
  fc.record({ aggFn: fc.constant('quantile'), level: fc.constantFrom(0.5, 0.9, 0.95, 0.99), valueExpression: fc.constant('Duration') }),
);
const config = fc.oneof(
  fc.record({ displayType: fc.constant('line'), source, select: fc.array(aggSelect, { minLength: 1, maxLength: 3 }), fillNulls: fc.boolean(), groupBy: fc.constantFrom('ServiceName', 'SpanName') }, { requiredKeys: ['displayType', 'source', 'select'] }),
  fc.record({ displayType: fc.constant('number'), source, select: aggSelect.map((s) => [s]) }),
  fc.record({ displayType: fc.constant('table'), source, select: fc.array(aggSelect, { minLength: 1, maxLength: 2 }), groupBy: fc.constant('ServiceName') }, { requiredKeys: ['displayType', 'source', 'select'] }),
  fc.record({ displayType: fc.constant('markdown'), markdown: fc.constantFrom('# Notes', 'runbook: see wiki') }),
  fc.record({ displayType: fc.constant('search'), source: fc.constantFrom('Logs', 'Traces'), select: fc.constantFrom('Body', 'ServiceName, Body'), where: fc.constantFrom('', 'level:error') }, { requiredKeys: ['displayType', 'source', 'select'] }),
);
const tile = fc.record({ name: fc.constantFrom('Latency', 'Errors', 'Throughput', 'Notes', 'Log lines'), x: fc.integer({ min: 0, max: 23 }), y: fc.integer({ min: 0, max: 20 }), w: fc.integer({ min: 1, max: 24 }), h: fc.integer({ min: 1, max: 6 }), config });
const dashboard = fc.record({
  name: fc.constantFrom('API', 'Checkout', 'Payments', 'Search'),
  tags: fc.array(fc.constantFrom('team-a', 'team-b', 'prod'), { maxLength: 4 }),
  tiles: fc.array(tile, { minLength: 1, maxLength: 5 }),
});

function resources(specs: { name: string; tags: string[]; tiles: { name: string; config: { displayType: string } }[] }[]): DesiredResource[] {
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
      const alertSpec = alertSpecSchema.parse({ dashboard: name, tile: `t${alertable}`, threshold: 5, thresholdType: 'above', interval: '5m', channel: { type: 'webhook', webhook: 'ops-slack' }, name: `alert on ${raw.name}` });
      out.push({ kind: 'Alert', name: `a${i}`, address: `Alert/a${i}`, labels: {}, spec: alertSpec, source: { file: 'gen.yaml', line: 1, col: 1 } });
    }
  });
  return out;
}

describe('convergence property', () => {
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
        expect((await requireCollection(port, 'Dashboard').list()).length).toBe(new Set(specs.map((s) => s.name)).size);
      }),
      { numRuns: 60 },
    );
  });
});
