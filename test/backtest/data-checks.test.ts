/**
 * Issue 47, "Prove it": a saved search whose where has a typo (a level nothing has) matches no
 * rows over the backtest window, and the plan's policy check says so at the alert's file:line —
 * "this alert can never fire"; the same alert on the where without the typo is not flagged. A
 * groupBy over more groups than policy.maxAlertGroups is flagged; the source checks ride on the
 * plan's request budget. In-process on the sandbox (its telemetry is deterministic).
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Plan } from '../../src/core/plan.js';
import { loadManifests } from '../../src/manifests/load.js';
import { checkPolicy } from '../../src/policy/check.js';
import type { PolicySettings } from '../../src/policy/settings.js';
import { TrustHarness } from '../support/reconcile.js';

const NOW = new Date(Date.UTC(2026, 10, 26, 12, 3, 17));
const BACKTEST = { windowMs: 86_400_000, window: '1d', budget: 20, perAlert: 2, now: NOW };

let h: TrustHarness;
beforeAll(async () => {
  h = await TrustHarness.start();
});
afterAll(() => h.close());

const doc = (kind: string, name: string, spec: string) =>
  `apiVersion: obsync/v1\nkind: ${kind}\nmetadata: {name: ${name}}\nspec: ${spec}\n---\n`;

/** A saved search and an alert on it; the alert's document starts on line 6 of alerts.yaml. */
function manifests(where: string, groupBy = ''): Record<string, string> {
  return {
    'alerts.yaml':
      doc('SavedSearch', 'errors', `{name: Errors, source: Logs, where: '${where}'}`) +
      doc(
        'Alert',
        'errors-high',
        `{savedSearch: errors, threshold: 1, thresholdType: above, interval: 5m, channel: {type: webhook, webhook: ops-slack}, name: ` +
          `errors high${groupBy}}`,
      ),
  };
}

async function planned(files: Record<string, string>, settings?: PolicySettings, budget = BACKTEST.budget) {
  h.manifests(files);
  const report = await h.run({ mode: 'plan', backtest: { ...BACKTEST, budget } });
  const { resources } = loadManifests([join(h.dir, 'manifests')], { env: {} });
  const findings = checkPolicy({ resources, rules: [], settings, target: { name: 'sb', variant: 'self-hosted' }, plan: report.plan });
  return { plan: report.plan, findings };
}

const backtest = (plan: Plan) => plan.steps.find((s) => s.address === 'Alert/errors-high')?.backtest;

describe('data checks in the plan', () => {
  it('flags a where that matches nothing at the alert’s file:line; the same alert with data is not flagged', async () => {
    const typo = await planned(manifests('SeverityText:eror'));
    expect(backtest(typo.plan)).toMatchObject({ status: 'ok', firing: 0, data: { matched: 0 } });
    expect(typo.findings).toContainEqual(
      expect.objectContaining({
        rule: 'empty-query',
        severity: 'warning',
        address: 'Alert/errors-high',
        file: join(h.dir, 'manifests', 'alerts.yaml'),
        line: 6,
        message: expect.stringMatching(/matched no rows over the last 1d: this alert can never fire/) as unknown,
      }),
    );

    const fixed = await planned(manifests('SeverityText:error'));
    expect(backtest(fixed.plan)?.data?.matched).toBeGreaterThan(0);
    expect(fixed.findings.map((f) => f.rule)).not.toContain('empty-query');
    // The sandbox's sources have data up to now: asked (one count per source, within the budget), not stale.
    expect(fixed.plan.backtest).toMatchObject({ requests: 2 });
    expect(fixed.findings.map((f) => f.rule)).not.toContain('stale-source');
  });

  it('policy.rules makes it an error; the source check is skipped when the alerts spent the budget', async () => {
    const strict = await planned(manifests('SeverityText:eror'), { rules: { 'empty-query': 'error' } }, 1);
    expect(strict.findings).toContainEqual(expect.objectContaining({ rule: 'empty-query', severity: 'error' }));
    expect(strict.plan.backtest).toMatchObject({ requests: 1, skipped: 0 });
  });

  it('flags a groupBy with more groups than policy.maxAlertGroups', async () => {
    const files = manifests('SeverityText:error', ', groupBy: ServiceName');
    const over = await planned(files, { maxAlertGroups: 2 });
    expect(backtest(over.plan)?.data?.groups).toBe(3);
    expect(over.findings).toContainEqual(
      expect.objectContaining({
        rule: 'group-cardinality',
        message: expect.stringContaining('3 groups over the last 1d (more than 2)') as unknown,
      }),
    );
    const within = await planned(files, { maxAlertGroups: 3 });
    expect(within.findings.map((f) => f.rule)).not.toContain('group-cardinality');
  });
});
