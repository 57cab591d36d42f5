/**
 * Issue 13, item 2: after a create whose answer was lost and a SIGKILL, the inventory holds a
 * pending entry. It must never make an object prunable: it resolves only while a manifest still
 * declares the object (an adoption the plan shows), and is forgotten otherwise — a lookalike made
 * by hand afterwards is never taken, let alone deleted.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { collectionOf } from '../../src/kinds/registry.js';
import { dashboardYaml, TrustHarness } from '../support/reconcile.js';

let h: TrustHarness;

const KEEP = dashboardYaml('keep', 'Keep', [{ key: 'lat' }]);

beforeEach(async () => {
  h = await TrustHarness.start();
  h.manifests({ 'keep.yaml': KEEP });
  expect((await h.run()).apply?.summary.failed).toBe(0);
  // What the applier writes just before POSTing Dashboard/ghost; then the process was killed.
  await h.inventory.put({
    kind: 'Dashboard',
    name: 'ghost',
    id: null,
    status: 'pending',
    naturalKey: 'name:Lookalike',
    updatedAt: new Date().toISOString(),
  });
  await h.inventory.flush();
});

afterEach(() => h.close());

describe('a pending entry left by a crash', () => {
  it('never takes a hand-made lookalike once no manifest declares the object, and is forgotten', async () => {
    const lookalike = await collectionOf(h.port, 'Dashboard').create({ name: 'Lookalike', tiles: [] });

    const plan = await h.run({ mode: 'plan', prune: true });
    expect(plan.plan.forget).toEqual(['Dashboard/ghost']);
    expect(plan.plan.prune.candidates).toEqual([]);
    // `plan` writes nothing.
    expect(h.inventory.get('Dashboard/ghost')?.status).toBe('pending');

    for (let run = 0; run < 2; run++) {
      const report = await h.run({ prune: true });
      expect(report.plan.steps.filter((s) => s.action === 'delete')).toEqual([]);
    }
    expect(h.inventory.get('Dashboard/ghost')).toBeUndefined();
    expect(h.inventory.entries().some((e) => e.id === lookalike.id)).toBe(false);
    expect((await h.dashboards()).map((d) => d.id)).toContain(lookalike.id);
  });

  it('resolves while a manifest still declares the object, as an adoption the plan shows', async () => {
    const created = await collectionOf(h.port, 'Dashboard').create({ name: 'Lookalike', tiles: [] });
    h.manifests({ 'keep.yaml': KEEP, 'ghost.yaml': dashboardYaml('ghost', 'Lookalike', [{ key: 'lat' }]) });

    const report = await h.run();
    const step = report.plan.steps.find((s) => s.address === 'Dashboard/ghost');
    expect(step?.adopt).toBe(true);
    expect(step?.id).toBe(created.id);
    expect(h.inventory.get('Dashboard/ghost')).toMatchObject({ status: 'owned', id: created.id });
  });
});
