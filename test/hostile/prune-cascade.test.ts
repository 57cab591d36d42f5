/**
 * Issue 13, item 1: pruning a dashboard makes the service delete the alerts on its tiles, also
 * a hand-made one obsync does not own. Every delete step lists what goes with it; an unowned
 * object there keeps the delete back (message naming it and the way out) unless
 * --prune-cascade; what goes along is backed up and counted against --max-deletes. An update
 * that drops (or makes non-alertable) a tile with an unowned alert on it is refused the same way.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { alertYaml, dashboardYaml, TrustHarness } from '../support/reconcile.js';

let h: TrustHarness;

beforeEach(async () => {
  h = await TrustHarness.start();
  h.manifests({
    'keep.yaml': dashboardYaml('keep', 'Keep', [{ key: 'lat' }]) + '---\n' + alertYaml('keep-slow', 'keep', 'lat'),
    'doomed.yaml':
      dashboardYaml('doomed', 'Doomed', [{ key: 'lat' }, { key: 'err' }]) + '---\n' + alertYaml('doomed-slow', 'doomed', 'lat'),
  });
  const first = await h.run();
  expect(first.apply?.summary.failed).toBe(0);
});

afterEach(() => h.close());

/** Drops the doomed dashboard and its owned alert from the manifests. */
function dropDoomed(): void {
  h.manifests({ 'keep.yaml': dashboardYaml('keep', 'Keep', [{ key: 'lat' }]) + '---\n' + alertYaml('keep-slow', 'keep', 'lat') });
}

describe('prune and what the service deletes along', () => {
  it('lists the cascade on the delete step and keeps the delete back while an unowned object is in it', async () => {
    const handMade = await h.handMadeAlert(await h.dashboard('Doomed'), 'err', 'Made by hand');
    dropDoomed();

    const report = await h.run({ prune: true });
    const blocked = report.plan.prune.blocked.find((b) => b.address === 'Dashboard/doomed');
    expect(blocked?.reason).toMatch(/Made by hand/);
    expect(blocked?.reason).toContain(handMade.id);
    expect(blocked?.reason).toMatch(/does not own/);
    expect(blocked?.reason).toMatch(/--prune-cascade/);
    expect(report.plan.steps.filter((s) => s.action === 'delete').map((s) => s.address)).toEqual(['Alert/doomed-slow']);
    expect(report.apply?.summary.failed).toBe(0);

    expect((await h.alerts()).map((a) => a.id)).toContain(handMade.id);
    expect((await h.dashboards()).map((d) => d.name)).toContain('Doomed');
  });

  it('with --prune-cascade deletes it, backing up every object that goes along', async () => {
    const handMade = await h.handMadeAlert(await h.dashboard('Doomed'), 'err', 'Made by hand');
    dropDoomed();

    const plan = await h.run({ mode: 'plan', prune: true, pruneCascade: true });
    const step = plan.plan.steps.find((s) => s.address === 'Dashboard/doomed');
    expect(step?.action).toBe('delete');
    expect(step?.cascade?.map((c) => [c.id, c.owned])).toEqual(expect.arrayContaining([[handMade.id, false]]));

    const report = await h.run({ prune: true, pruneCascade: true });
    expect(report.apply?.summary.failed).toBe(0);
    expect((await h.alerts()).map((a) => a.id)).not.toContain(handMade.id);
    expect(h.backups().some((text) => text.includes(handMade.id) && text.includes('Made by hand'))).toBe(true);
  });

  it("refuses a saved plan's delete when the service would now take more along than the plan showed", async () => {
    dropDoomed();
    const saved = await h.run({ mode: 'plan', prune: true, pruneCascade: true });
    expect(saved.plan.steps.find((s) => s.address === 'Dashboard/doomed')?.action).toBe('delete');
    const lateComer = await h.handMadeAlert(await h.dashboard('Doomed'), 'err', 'Made after the plan');

    const report = await h.run({ prune: true, pruneCascade: true, saved: saved.plan });
    const result = report.apply?.results.find((r) => r.address === 'Dashboard/doomed');
    expect(result?.outcome).toBe('refused');
    expect(result?.message).toContain(lateComer.id);
    expect((await h.alerts()).map((a) => a.id)).toContain(lateComer.id);
  });

  it('counts what goes along against --max-deletes', async () => {
    await h.handMadeAlert(await h.dashboard('Doomed'), 'err', 'Made by hand');
    dropDoomed();
    // Two owned objects are pruned; the service would delete a third with the dashboard.
    const report = await h.run({ prune: true, pruneCascade: true, maxDeletes: 2 });
    expect(report.plan.prune.refused.join(' ')).toMatch(/3 deletes .*exceed the limit of 2/);
    expect(report.plan.steps.filter((s) => s.action === 'delete')).toEqual([]);
    expect((await h.dashboards()).map((d) => d.name)).toContain('Doomed');
  });
});

describe('updates that drop a tile', () => {
  it('refuse to take an unowned alert along, name it, and change nothing', async () => {
    const handMade = await h.handMadeAlert(await h.dashboard('Doomed'), 'err', 'On the err tile');
    h.manifests({
      'keep.yaml': dashboardYaml('keep', 'Keep', [{ key: 'lat' }]) + '---\n' + alertYaml('keep-slow', 'keep', 'lat'),
      'doomed.yaml': dashboardYaml('doomed', 'Doomed', [{ key: 'lat' }]) + '---\n' + alertYaml('doomed-slow', 'doomed', 'lat'),
    });
    const report = await h.run();
    const error = report.plan.diagnostics.find((d) => d.address === 'Dashboard/doomed');
    expect(error?.code).toBe('cascade-blocked');
    expect(error?.message).toMatch(/On the err tile/);
    expect(error?.message).toMatch(/--prune-cascade/);
    expect(report.plan.steps.find((s) => s.address === 'Dashboard/doomed')).toBeUndefined();
    expect((await h.alerts()).map((a) => a.id)).toContain(handMade.id);
    expect((await h.dashboard('Doomed')).tiles.map((t) => t.name).sort()).toEqual(['err', 'lat']);
  });

  it('refuse the same when a tile becomes non-alertable', async () => {
    const handMade = await h.handMadeAlert(await h.dashboard('Doomed'), 'err', 'On the err tile');
    h.manifests({
      'keep.yaml': dashboardYaml('keep', 'Keep', [{ key: 'lat' }]) + '---\n' + alertYaml('keep-slow', 'keep', 'lat'),
      'doomed.yaml':
        dashboardYaml('doomed', 'Doomed', [{ key: 'lat' }, { key: 'err', display: 'table' }]) +
        '---\n' +
        alertYaml('doomed-slow', 'doomed', 'lat'),
    });
    const report = await h.run();
    expect(report.plan.diagnostics.map((d) => d.code)).toContain('cascade-blocked');
    expect((await h.alerts()).map((a) => a.id)).toContain(handMade.id);
  });

  it('go ahead with --prune-cascade, backing the alert up first', async () => {
    const handMade = await h.handMadeAlert(await h.dashboard('Doomed'), 'err', 'On the err tile');
    h.manifests({
      'keep.yaml': dashboardYaml('keep', 'Keep', [{ key: 'lat' }]) + '---\n' + alertYaml('keep-slow', 'keep', 'lat'),
      'doomed.yaml': dashboardYaml('doomed', 'Doomed', [{ key: 'lat' }]) + '---\n' + alertYaml('doomed-slow', 'doomed', 'lat'),
    });
    const report = await h.run({ pruneCascade: true });
    const step = report.plan.steps.find((s) => s.address === 'Dashboard/doomed');
    expect(step?.action).toBe('update');
    expect(step?.cascade?.map((c) => c.id)).toEqual([handMade.id]);
    expect(report.apply?.summary.failed).toBe(0);
    expect((await h.alerts()).map((a) => a.id)).not.toContain(handMade.id);
    expect(h.backups().some((text) => text.includes(handMade.id))).toBe(true);
    // The owned alert on the kept tile survived the update.
    expect((await h.alerts()).map((a) => a.name)).toContain('doomed-slow');
  });
});
