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
