/**
 * Sources refer to each other (a log source to its trace source, and back): references resolve by
 * name whichever is planned first, two existing sources that name each other update in one run,
 * and two new ones that name each other are reported, not left to fail at apply.
 */
import { describe, expect, it } from 'vitest';
import type { DesiredResource } from '../../src/core/resource.js';
import { applyPlanned, makePlan } from '../../src/engine/run.js';
import { SELECT_ALL } from '../../src/engine/selection.js';
import { memoryInventory } from '../../src/inventory/memory-store.js';
import { sourceSpecSchema } from '../../src/kinds/source/schema.js';
import { createObservabilityDomain } from '../../src/sandbox/domain/index.js';
import { inProcessPort } from '../../src/sandbox/in-process-port.js';

const connection = { id: '5eed00000000000000000002' };
const from = { databaseName: 'default', tableName: 't' };

function logSource(name: string, extra: Record<string, unknown> = {}): DesiredResource {
  const spec = sourceSpecSchema.parse({
    kind: 'log',
    name: `Log ${name}`,
    connection,
    from,
    timestampValueExpression: 'T',
    defaultTableSelectExpression: 'Body',
    ...extra,
  });
  return { kind: 'Source', name, address: `Source/${name}`, labels: {}, spec, source: { file: 'gen.yaml', line: 1, col: 1 } };
}

function setup() {
  const port = inProcessPort(createObservabilityDomain({ seed: 'demo' }), 'self-hosted', 'src');
  const inventory = memoryInventory('src');
  const plan = (desired: DesiredResource[]) => makePlan({ port, inventory, desired, selection: SELECT_ALL, prune: false, maxDeletes: 10 });
  const apply = async (desired: DesiredResource[]) => {
    const planned = await plan(desired);
    const report = await applyPlanned(planned, { port, inventory, concurrency: 2 });
    return { planned, report };
  };
  return { plan, apply };
}

const changes = (steps: { action: string; address: string }[]) =>
  steps.filter((s) => s.action !== 'noop').map((s) => `${s.action} ${s.address}`);

describe('sources that name each other', () => {
  it('create in dependency order in one run and then plan nothing, whichever sorts first', async () => {
    const { plan, apply } = setup();
    // a-logs is planned before b-logs, which it names.
    const desired = [logSource('a-logs', { traceSource: 'b-logs' }), logSource('b-logs')];
    const { planned, report } = await apply(desired);
    expect(planned.plan.diagnostics).toEqual([]);
    expect(planned.plan.steps.find((s) => s.address === 'Source/a-logs')?.dependsOn).toEqual(['Source/b-logs']);
    expect(report.summary.failed).toBe(0);
    expect(changes((await plan(desired)).plan.steps)).toEqual([]);
  });

  it('update together in one run when both exist', async () => {
    const { plan, apply } = setup();
    await apply([logSource('a-logs'), logSource('b-logs', { traceSource: 'a-logs' })]);
    const linked = [
      logSource('a-logs', { traceSource: 'b-logs', bodyExpression: 'Body' }),
      logSource('b-logs', { traceSource: 'a-logs', bodyExpression: 'Body' }),
    ];
    const { planned, report } = await apply(linked);
    expect(changes(planned.plan.steps)).toEqual(['update Source/a-logs', 'update Source/b-logs']);
    expect(report.summary).toMatchObject({ applied: 2, failed: 0, skipped: 0 });
    expect(changes((await plan(linked)).plan.steps)).toEqual([]);
  });

  it('are reported when none of them exists yet, and the rest goes ahead', async () => {
    const { apply } = setup();
    const { planned, report } = await apply([
      logSource('a-logs', { traceSource: 'b-logs' }),
      logSource('b-logs', { traceSource: 'a-logs' }),
      logSource('c-logs'),
    ]);
    expect(planned.plan.diagnostics.map((d) => [d.address, d.code])).toEqual([
      ['Source/a-logs', 'reference-cycle'],
      ['Source/b-logs', 'reference-cycle'],
    ]);
    expect(planned.plan.diagnostics[0]?.message).toMatch(
      /refers to Source\/b-logs, which refers back to it.*create one without the reference first/,
    );
    expect(changes(planned.plan.steps)).toEqual(['create Source/c-logs']);
    expect(report.summary.failed).toBe(0);
  });
});
