/**
 * Issue 13, item 4 (the planner's half): a run that finds no manifests at all while the
 * inventory owns objects (an empty mount, a failed checkout) refuses to prune, and says why.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { alertYaml, dashboardYaml, TrustHarness } from '../support/reconcile.js';

let h: TrustHarness;

beforeEach(async () => {
  h = await TrustHarness.start();
  h.manifests({ 'a.yaml': dashboardYaml('a', 'Dash A', [{ key: 'lat' }]) + '---\n' + alertYaml('a-slow', 'a', 'lat') });
  expect((await h.run()).apply?.summary.failed).toBe(0);
});

afterEach(() => h.close());

describe('no manifests at all', () => {
  it('refuses to prune what obsync owns, and says it found no manifests', async () => {
    h.manifests({});
    const report = await h.run({ prune: true, maxDeletes: 100 });
    expect(report.plan.prune.candidates).toEqual(['Alert/a-slow', 'Dashboard/a']);
    expect(report.plan.prune.refused.join(' ')).toMatch(/no manifests were found \(0 objects declared\) but obsync owns 2 object\(s\)/);
    expect(report.plan.steps.filter((s) => s.action === 'delete')).toEqual([]);
    expect((await h.dashboards()).map((d) => d.name)).toContain('Dash A');
    expect((await h.alerts()).map((a) => a.name)).toContain('a-slow');
  });
});

describe('--allow-empty-kind: deleting the last objects of a kind is confirmed, never guessed', () => {
  it('a kind with no manifest left keeps its objects unless that kind is confirmed; then exactly those go', async () => {
    h.manifests({ 'a.yaml': dashboardYaml('a', 'Dash A', [{ key: 'lat' }]) });
    const refused = await h.run({ prune: true });
    expect(refused.plan.prune.refused).toEqual([
      'no Alert is declared but obsync owns 1: refusing to delete them all (is the manifest path right?); declare at least one Alert, or ' +
        'confirm deleting the last ones with --allow-empty-kind Alert',
    ]);
    expect((await h.alerts()).map((a) => a.name)).toContain('a-slow');
    // Confirming another kind does not confirm this one.
    expect((await h.run({ prune: true, allowEmptyKinds: ['Dashboard'] })).plan.prune.refused).toHaveLength(1);
    const confirmed = await h.run({ prune: true, allowEmptyKinds: ['Alert'] });
    expect(confirmed.plan.prune.refused).toEqual([]);
    expect(confirmed.plan.prune.allowEmptyKinds).toEqual(['Alert']);
    expect(confirmed.plan.steps.filter((s) => s.action === 'delete').map((s) => s.address)).toEqual(['Alert/a-slow']);
    expect((await h.alerts()).map((a) => a.name)).not.toContain('a-slow');
    expect((await h.dashboards()).map((d) => d.name)).toContain('Dash A');
  });

  it('with no manifests at all, every kind that would be emptied must be confirmed', async () => {
    h.manifests({});
    const half = await h.run({ prune: true, maxDeletes: 100, allowEmptyKinds: ['Alert'] });
    expect(half.plan.prune.refused.join(' ')).toContain('confirm with --allow-empty-kind Alert --allow-empty-kind Dashboard');
    expect((await h.dashboards()).map((d) => d.name)).toContain('Dash A');
    const all = await h.run({ prune: true, maxDeletes: 100, allowEmptyKinds: ['Alert', 'Dashboard'] });
    expect(all.plan.prune.refused).toEqual([]);
    expect(all.apply?.summary.failed).toBe(0);
    expect((await h.dashboards()).map((d) => d.name)).not.toContain('Dash A');
    expect(await h.alerts()).toEqual([]);
  });

  it('lifts only the empty-kind guard: --max-deletes still counts', async () => {
    h.manifests({});
    const report = await h.run({ prune: true, maxDeletes: 1, allowEmptyKinds: ['Alert', 'Dashboard'] });
    expect(report.plan.prune.refused.join(' ')).toMatch(/exceed the limit of 1/);
    expect((await h.dashboards()).map((d) => d.name)).toContain('Dash A');
  });
});
