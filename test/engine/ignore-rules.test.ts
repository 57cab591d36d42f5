/**
 * Ignore rules (issue 48) through the engine: a UI edit of an ignored field is not planned, and an
 * update for another field sends the UI's value back (not the manifest's): it is not reverted.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { collectionOf } from '../../src/kinds/registry.js';
import { World } from '../support/world.js';

const dashboard = (name: string, ignore: string) => `apiVersion: obsync/v1
kind: Dashboard
metadata:
  name: checkout
  ignore: ${ignore}
spec:
  name: ${name}
  tiles:
    - {key: p99, name: p99 latency, x: 0, y: 0, w: 6, h: 4, config: {displayType: line, source: Traces, select: [{aggFn: avg, valueExpression: Duration}]}}
    - {key: errors, name: Errors, x: 6, y: 0, w: 6, h: 4, config: {displayType: number, source: Traces, select: [{aggFn: count}]}}
`;

describe('ignore rules in a plan', () => {
  const world = new World('self-hosted');
  afterAll(() => world.close());

  it('leaves an ignored UI edit out of the plan, and an update sends the live value back', async () => {
    const rules = '["tiles[*].x", "tiles[*].y"]';
    const first = await world.apply({ 'd.yaml': dashboard('Checkout', rules) });
    expect(first.report.summary.failed).toBe(0);
    const id = first.plan.steps[0]?.id ?? first.report.results[0]?.id ?? '';
    const dashboards = collectionOf(world.port, 'Dashboard');
    const live = (await dashboards.list())[0];
    if (!live) throw new Error('no dashboard');
    // The UI moves a tile and renames the other.
    const [p99, errors] = live.tiles;
    if (!p99 || !errors) throw new Error('no tiles');
    await dashboards.update(live.id, {
      ...live,
      tiles: [
        { ...p99, x: 6, y: 4 },
        { ...errors, name: 'Errors (UI)' },
      ],
    } as never);
    const plan = await world.plan({ 'd.yaml': dashboard('Checkout', rules) });
    const step = plan.steps.find((s) => s.address === 'Dashboard/checkout');
    expect(step?.action).toBe('update');
    expect(step?.changes.map((c) => c.path)).toEqual(['tiles.errors.name']);
    expect(step?.ignored?.map((c) => [c.path, c.rule, c.from])).toEqual([
      ['tiles.p99.x', 'tiles[*].x', 'metadata.ignore'],
      ['tiles.p99.y', 'tiles[*].y', 'metadata.ignore'],
    ]);
    const applied = await world.apply({ 'd.yaml': dashboard('Checkout', rules) });
    expect(applied.report.summary.failed).toBe(0);
    const after = (await dashboards.list()).find((d) => d.id === live.id);
    expect(after?.tiles.map((t) => [t.name, t.x, t.y])).toEqual([
      ['p99 latency', 6, 4],
      ['Errors', 6, 0],
    ]);
    const again = await world.plan({ 'd.yaml': dashboard('Checkout', rules) });
    expect(again.summary).toMatchObject({ create: 0, update: 0, delete: 0 });
    expect(again.steps[0]?.ignored?.length).toBe(2);
    void id;
  });
});
