import { describe, expect, it } from 'vitest';
import type { Backtest } from '../core/backtest.js';
import { summarize, type Plan, type PlanStep } from '../core/plan.js';
import { checkPolicy } from './check.js';
import type { PolicySettings } from './settings.js';
import { alert, webhook } from './test-resources.js';
import type { DesiredResource } from '../core/resource.js';

function step(address: PlanStep['address'], action: PlanStep['action'], extra: Partial<PlanStep> = {}): PlanStep {
  const [kind = '', name = ''] = address.split('/');
  return { address, kind: kind as PlanStep['kind'], name, action, reason: 'missing', changes: [], dependsOn: [], ...extra };
}

function plan(target: string, steps: PlanStep[]): Plan {
  return {
    formatVersion: 2,
    target,
    variant: 'self-hosted',
    steps,
    summary: summarize(steps),
    prune: { requested: true, cascade: false, candidates: [], refused: [], blocked: [] },
    forget: [],
    diagnostics: [],
    errored: false,
  };
}

const backtest = (counts: Partial<Backtest>): Backtest => ({
  status: 'ok',
  window: '7d',
  evaluated: 2016,
  firing: 10,
  episodes: 3,
  ...counts,
});
const resources: DesiredResource[] = [alert('a', 'ops'), webhook('ops')];
const check = (p: Plan, settings?: PolicySettings) =>
  checkPolicy({ resources, rules: [], settings, target: { name: p.target, variant: p.variant }, plan: p }).map(
    (f) => `${f.rule} ${f.address}`,
  );

describe('built-in plan rules', () => {
  it('protected-delete: a delete on a protected target fails; the same on another target, or no delete, passes', () => {
    const settings = { protectedTargets: ['prod'] };
    expect(check(plan('prod', [step('Dashboard/old', 'delete', { record: { source: 'manifests/old.yaml' } })]), settings)).toEqual([
      'protected-delete Dashboard/old',
    ]);
    expect(check(plan('staging', [step('Dashboard/old', 'delete')]), settings)).toEqual([]);
    expect(check(plan('prod', [step('Alert/a', 'update')]), settings)).toEqual([]);
  });

  it('noisy-alert: a backtest firing in more than the share of windows, or more episodes a day, fails', () => {
    expect(check(plan('t', [step('Alert/a', 'create', { backtest: backtest({ firing: 900 }) })]))).toEqual(['noisy-alert Alert/a']);
    expect(check(plan('t', [step('Alert/a', 'create', { backtest: backtest({ episodes: 70 }) })]))).toEqual(['noisy-alert Alert/a']);
    expect(check(plan('t', [step('Alert/a', 'create', { backtest: backtest({}) })]))).toEqual([]);
    expect(
      check(plan('t', [step('Alert/a', 'create', { backtest: backtest({ firing: 900 }) })]), { noisyAlert: { maxFiringShare: 0.5 } }),
    ).toEqual([]);
  });

  it('dead-alert: a backtest that never fires fails; one not evaluated (unavailable) says nothing', () => {
    expect(check(plan('t', [step('Alert/a', 'create', { backtest: backtest({ firing: 0, episodes: 0 }) })]))).toEqual([
      'dead-alert Alert/a',
    ]);
    expect(check(plan('t', [step('Alert/a', 'create', { backtest: { status: 'unavailable', window: '7d' } })]))).toEqual([]);
  });
});

describe('data checks (issue 47)', () => {
  const messages = (b: Backtest, settings?: PolicySettings) =>
    checkPolicy({
      resources,
      rules: [],
      settings,
      target: { name: 't', variant: 'self-hosted' },
      plan: plan('t', [step('Alert/a', 'create', { backtest: b })]),
    })
      .filter((f) => ['empty-query', 'stale-source', 'group-cardinality'].includes(f.rule))
      .map((f) => `${f.severity} ${f.message}`);

  it('stale-source names the time the source last had data, or the whole window; fresh or not asked says nothing', () => {
    expect(messages(backtest({ data: { matched: 40, noDataSince: '2026-11-25T14:00:00.000Z' } }))).toEqual([
      'warning Alert/a: its source has had no data since 2026-11-25 14:00 UTC',
    ]);
    expect(messages(backtest({ data: { matched: 0, noDataSince: null }, firing: 0 }), { rules: { 'empty-query': 'off' } })).toEqual([
      'warning Alert/a: its source has had no data over the last 7d',
    ]);
    expect(messages(backtest({ data: { matched: 40 } }))).toEqual([]);
  });

  it('empty-query says a below alert that fires on no data alone fires only because of it', () => {
    expect(messages(backtest({ data: { matched: 0 }, firing: 2016 }))).toEqual([
      'warning Alert/a: its query matched no rows over the last 7d: it fires only because there is no data — check its where and source',
    ]);
  });
});
