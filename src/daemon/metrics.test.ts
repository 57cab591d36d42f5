import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ApplyReport, StepOutcomeKind } from '../applier/context.js';
import { PLAN_FORMAT_VERSION, summarize, type Action, type Address, type Kind, type Plan, type PlanStep } from '../core/plan.js';
import type { ObsyncEvent } from '../events/vocabulary.js';
import { DaemonMetrics } from './metrics.js';
import { resourceCounts } from './resource-counts.js';
import { RunSlots } from './slots.js';

function step(address: Address, action: Action): PlanStep {
  const [kind, name] = address.split('/') as [Kind, string];
  return { address, kind, name, action, reason: action === 'noop' ? 'unchanged' : 'drifted', changes: [], dependsOn: [] };
}

function plan(steps: PlanStep[], unplannable: Address[] = []): Plan {
  const diagnostics = unplannable.map((address) => ({ severity: 'error' as const, code: 'ambiguous', message: 'two candidates', address }));
  return {
    formatVersion: PLAN_FORMAT_VERSION,
    target: 't',
    variant: 'self-hosted',
    steps,
    summary: summarize(steps),
    prune: { requested: false, cascade: false, candidates: [], refused: [], blocked: [] },
    forget: [],
    diagnostics,
    errored: diagnostics.length > 0,
  };
}

function applied(outcomes: [Address, StepOutcomeKind][]): ApplyReport {
  const summary = { applied: 0, unchanged: 0, failed: 0, skipped: 0, refused: 0 };
  for (const [, o] of outcomes) summary[o] += 1;
  return { target: 't', results: outcomes.map(([address, outcome]) => ({ address, action: 'x', outcome, durationMs: 1 })), summary };
}

const steps = [
  step('Dashboard/same', 'noop'),
  step('Dashboard/healed', 'update'),
  step('Dashboard/new', 'create'),
  step('Dashboard/gone', 'delete'),
  step('Alert/broken', 'update'),
  step('Alert/waiting', 'create'),
  step('Alert/moved', 'update'),
];

describe('obsync_resources after a run', () => {
  it('counts what the apply healed as in sync, not as the drift the plan saw', () => {
    const report = applied([
      ['Dashboard/healed', 'applied'],
      ['Dashboard/new', 'applied'],
      ['Dashboard/gone', 'applied'],
      ['Alert/broken', 'failed'],
      ['Alert/waiting', 'skipped'],
      ['Alert/moved', 'refused'],
    ]);
    expect(resourceCounts(plan(steps, ['Alert/twice']), report)).toEqual({
      Dashboard: { in_sync: 3, drifted: 0, error: 0 },
      Alert: { in_sync: 0, drifted: 2, error: 2 },
    });
  });

  it('counts every change as drifted when nothing was applied (plan mode)', () => {
    expect(resourceCounts(plan(steps))).toEqual({
      Dashboard: { in_sync: 1, drifted: 3, error: 0 },
      Alert: { in_sync: 0, drifted: 3, error: 0 },
    });
  });

  it('replaces the previous run in the exposition', async () => {
    const metrics = new DaemonMetrics('test');
    metrics.setResources('t', resourceCounts(plan([step('Dashboard/a', 'create')])));
    metrics.setResources('t', resourceCounts(plan([step('Dashboard/a', 'create')]), applied([['Dashboard/a', 'applied']])));
    const text = await metrics.text();
    expect(text).toMatch(/obsync_resources\{target="t",kind="Dashboard",state="in_sync"\} 1\n/);
    expect(text).toMatch(/obsync_resources\{target="t",kind="Dashboard",state="drifted"\} 0\n/);
  });

  it("replaces only that target's series: another target's stay", async () => {
    const metrics = new DaemonMetrics('test');
    metrics.setResources('staging', resourceCounts(plan([step('Dashboard/a', 'create')])));
    metrics.setResources('production', resourceCounts(plan([step('Alert/b', 'create')])));
    metrics.setResources('staging', resourceCounts(plan([step('Pipe/p', 'create')])));
    const text = await metrics.text();
    expect(text).toMatch(/obsync_resources\{target="production",kind="Alert",state="drifted"\} 1\n/);
    expect(text).toMatch(/obsync_resources\{target="staging",kind="Pipe",state="drifted"\} 1\n/);
    expect(text).not.toMatch(/obsync_resources\{target="staging",kind="Dashboard"/);
  });

  it('reports at each scrape how many runs go on and wait for a slot of the process', async () => {
    const metrics = new DaemonMetrics('test');
    const slots = new RunSlots(2);
    metrics.observeSlots(slots);
    const releases = [slots.tryTake(), slots.tryTake()];
    const waiting = new AbortController();
    const third = slots.take(waiting.signal);
    let text = await metrics.text();
    expect(text).toMatch(/^obsync_runs_running 2$/m);
    expect(text).toMatch(/^obsync_runs_queued 1$/m);
    expect(text).toMatch(/^obsync_parallel_runs 2$/m);
    for (const release of releases) release?.();
    (await third)();
    text = await metrics.text();
    expect(text).toMatch(/^obsync_runs_running 0$/m);
    expect(text).toMatch(/^obsync_runs_queued 0$/m);
  });
});

describe('obsync_drift_total', () => {
  const series = async (metrics: DaemonMetrics) =>
    [...(await metrics.text()).matchAll(/^obsync_drift_total\{target="(\w+)",kind="(\w+)"\} (\d+)$/gm)]
      .map((m) => `${m[1]} ${m[2]} ${m[3]}`)
      .sort();

  it('counts drift events and nothing else: a first apply that creates 7 objects counts none', async () => {
    const metrics = new DaemonMetrics('test');
    for (let i = 0; i < 7; i++) metrics.observeEvent(event('t', 'created', `Dashboard/d${i}`));
    expect(await series(metrics)).toEqual([]);
  });

  it('whatever the events, each (target, kind) counts exactly its drift events', async () => {
    const names = ['created', 'updated', 'healed', 'drift', 'adopted', 'deleted'] as const;
    const arb = fc.array(
      fc.record({ target: fc.constantFrom('a', 'b'), name: fc.constantFrom(...names), kind: fc.constantFrom('Dashboard', 'Alert') }),
      { maxLength: 40 },
    );
    await fc.assert(
      fc.asyncProperty(arb, async (events) => {
        const metrics = new DaemonMetrics('test');
        for (const e of events) metrics.observeEvent(event(e.target, e.name, `${e.kind}/x`));
        const expected = new Map<string, number>();
        for (const e of events)
          if (e.name === 'drift') expected.set(`${e.target} ${e.kind}`, (expected.get(`${e.target} ${e.kind}`) ?? 0) + 1);
        expect(await series(metrics)).toEqual([...expected].map(([k, n]) => `${k} ${n}`).sort());
      }),
      { numRuns: 25 },
    );
  });
});

function event(target: string, name: 'created' | 'updated' | 'healed' | 'drift' | 'adopted' | 'deleted', address: string): ObsyncEvent {
  const envelope = { seq: 1, time: '2026-11-26T12:00:00.000Z', target };
  if (name === 'drift') return { ...envelope, event: 'drift', address, action: 'update', reason: 'drifted', paths: ['name'] };
  if (name === 'updated' || name === 'healed') return { ...envelope, event: name, address, paths: ['name'] };
  if (name === 'adopted') return { ...envelope, event: 'adopted', address, id: '1', paths: [] };
  return { ...envelope, event: name, address };
}
