/**
 * Ignore rules (issue 48) through the engine: a UI edit of an ignored field is not planned; an
 * update for another field in the same edit sends the UI's value back (it is not reverted); pull
 * brings the other field into the manifest and leaves the ignored one alone; every plan output
 * shows the ignored difference.
 */
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { SELECT_ALL } from '../../src/engine/selection.js';
import { pullInput } from '../../src/engine/pull-input.js';
import { collectionOf } from '../../src/kinds/registry.js';
import { renderPlansMarkdown } from '../../src/render/plan-markdown.js';
import { renderPlansText } from '../../src/render/plan-text.js';
import { computePull } from '../../src/writeback/pull.js';
import { World } from '../support/world.js';

const RULES = '["tiles[*].x", "tiles[*].y"]';
const manifest = `apiVersion: obsync/v1
kind: Dashboard
metadata:
  name: checkout
  ignore: ${RULES}
spec:
  name: Checkout
  tiles:
    - key: p99
      name: p99 latency
      x: 0
      y: 0
      w: 6
      h: 4
      config: {displayType: line, source: Traces, select: [{aggFn: avg, valueExpression: Duration}]}
    - key: errors
      name: Errors
      x: 6
      y: 0
      w: 6
      h: 4
      config: {displayType: number, source: Traces, select: [{aggFn: count}]}
`;
const files = { 'd.yaml': manifest };

describe('ignore rules in a plan, an apply and a pull', () => {
  const world = new World('self-hosted');
  afterAll(() => world.close());

  it('leaves an ignored UI edit out, heals the other field without reverting it, and pull leaves it alone', async () => {
    const first = await world.apply(files);
    expect(first.report.summary.failed).toBe(0);
    const dashboards = collectionOf(world.port, 'Dashboard');
    const live = (await dashboards.list())[0];
    const [p99, errors] = live?.tiles ?? [];
    if (!live || !p99 || !errors) throw new Error('no dashboard');
    // The UI moves a tile (ignored) and renames the other (not ignored).
    await dashboards.update(live.id, {
      ...live,
      tiles: [
        { ...p99, x: 6, y: 4 },
        { ...errors, name: 'Errors (UI)' },
      ],
    } as never);

    const plan = await world.plan(files);
    const step = plan.steps.find((s) => s.address === 'Dashboard/checkout');
    expect(step?.action).toBe('update');
    expect(step?.changes.map((c) => c.path)).toEqual(['tiles.errors.name']);
    expect(step?.ignored?.map((c) => [c.path, c.before, c.after, c.rule, c.from])).toEqual([
      ['tiles.p99.x', 6, 0, 'tiles[*].x', 'metadata.ignore'],
      ['tiles.p99.y', 4, 0, 'tiles[*].y', 'metadata.ignore'],
    ]);

    // pull: the renamed tile comes into the manifest, the moved one does not.
    const { resources } = world.load(files);
    const file = resources[0]?.source.file ?? '';
    const req = { port: world.port, inventory: world.inventory, desired: resources, selection: SELECT_ALL, prune: false, maxDeletes: 0 };
    const input = await pullInput(req, { allKinds: false });
    const pulled = computePull([{ target: 'world', adopt: 'by-name', input }], (p) => readFileSync(p, 'utf8'), { prune: false });
    expect(pulled.conflicts).toEqual([]);
    const after = pulled.files.find((f) => f.file === file)?.after ?? '';
    expect(after).toBe(manifest.replace('name: Errors\n', 'name: Errors (UI)\n'));

    const applied = await world.apply(files);
    expect(applied.report.summary.failed).toBe(0);
    const healed = (await dashboards.list()).find((d) => d.id === live.id);
    expect(healed?.tiles.map((t) => [t.name, t.x, t.y])).toEqual([
      ['p99 latency', 6, 4],
      ['Errors', 6, 0],
    ]);

    const again = await world.plan(files);
    expect(again.summary).toMatchObject({ create: 0, update: 0, delete: 0 });
    expect(again.steps[0]?.ignored?.map((c) => c.path)).toEqual(['tiles.p99.x', 'tiles.p99.y']);
    const text = renderPlansText([again], { color: false, width: 200 });
    expect(text).toContain('No changes.');
    expect(text).toContain('= tiles.p99.x: ignored by rule tiles[*].x (metadata.ignore) — the service has 6, the manifest 0');
    expect(renderPlansMarkdown([again])).toContain('tiles.p99.y: ignored by rule tiles[*].y (metadata.ignore)');
  });

  it('sends the manifest’s value on create', async () => {
    const fresh = new World('self-hosted');
    try {
      await fresh.apply(files);
      const made = (await collectionOf(fresh.port, 'Dashboard').list())[0];
      expect(made?.tiles.map((t) => [t.x, t.y])).toEqual([
        [0, 0],
        [6, 0],
      ]);
    } finally {
      await fresh.close();
    }
  });
});
