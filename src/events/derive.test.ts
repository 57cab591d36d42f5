import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { StepResult } from '../applier/context.js';
import type { Plan, PlanStep } from '../core/plan.js';
import type { RunReport } from '../engine/reconcile.js';
import { eventsOfRun, firstFailure, runCounts } from './derive.js';

function step(address: `Dashboard/${string}` | `Alert/${string}`, over: Partial<PlanStep>): PlanStep {
  const [kind, name] = address.split('/') as ['Dashboard' | 'Alert', string];
  return {
    address,
    kind,
    name,
    action: 'update',
    reason: 'drifted',
    changes: [{ path: 'name', before: 'a', after: 'b' }],
    dependsOn: [],
    ...over,
  };
}

function report(steps: PlanStep[], results: StepResult[] | undefined, over: Partial<Plan> = {}): RunReport {
  const plan: Plan = {
    formatVersion: 2,
    target: 't',
    variant: 'self-hosted',
    steps,
    summary: { create: 0, update: 0, delete: 0, noop: 0, move: 0 },
    prune: { requested: false, cascade: false, candidates: [], refused: [], blocked: [] },
    forget: [],
    diagnostics: [],
    errored: false,
    ...over,
  };
  for (const s of steps) plan.summary[s.action] += 1;
  return {
    target: 't',
    variant: 'self-hosted',
    mode: results ? 'apply' : 'plan',
    plan,
    ...(results
      ? {
          apply: {
            target: 't',
            results,
            summary: {
              applied: results.filter((r) => r.outcome === 'applied').length,
              unchanged: results.filter((r) => r.outcome === 'unchanged').length,
              failed: results.filter((r) => r.outcome === 'failed').length,
              skipped: 0,
              refused: results.filter((r) => r.outcome === 'refused').length,
            },
          },
        }
      : {}),
    timings: { readMs: 0, planMs: 0, applyMs: 0, totalMs: 0 },
    requests: { total: 0, writes: 0, retries: 0, throttled: 0 },
  };
}

const applied = (address: string, action: string, more: Partial<StepResult> = {}): StepResult =>
  ({ address, action, outcome: 'applied', id: 'id-1', durationMs: 1, ...more }) as StepResult;
const none = { ownedBefore: new Set<string>() };

describe('eventsOfRun', () => {
  it('apply mode: a hand-made change is drift, then healed; a manifest change is only an update', () => {
    const events = eventsOfRun(
      report(
        [
          step('Dashboard/hand', { reason: 'drifted', id: 'id-1' }),
          step('Dashboard/edit', { reason: 'spec-changed', id: 'id-2', changes: [{ path: 'tags', before: [], after: ['x'] }] }),
        ],
        [applied('Dashboard/hand', 'update'), applied('Dashboard/edit', 'update', { id: 'id-2' })],
      ),
      none,
    );
    expect(events).toEqual([
      { event: 'drift', address: 'Dashboard/hand', action: 'update', reason: 'drifted', paths: ['name'] },
      { event: 'updated', address: 'Dashboard/hand', id: 'id-1', paths: ['name'] },
      { event: 'healed', address: 'Dashboard/hand', id: 'id-1', paths: ['name'] },
      { event: 'updated', address: 'Dashboard/edit', id: 'id-2', paths: ['tags'] },
    ]);
  });

  it('apply mode: an owned object deleted on the service is drift when recreated; a new manifest is only created', () => {
    const steps = [
      step('Dashboard/gone', { action: 'create', reason: 'missing' }),
      step('Dashboard/new', { action: 'create', reason: 'missing' }),
    ];
    const events = eventsOfRun(report(steps, [applied('Dashboard/gone', 'create'), applied('Dashboard/new', 'create', { id: 'id-9' })]), {
      ownedBefore: new Set(['Dashboard/gone']),
    });
    expect(events.map((e) => `${e.event} ${'address' in e ? e.address : ''}`)).toEqual([
      'drift Dashboard/gone',
      'created Dashboard/gone',
      'healed Dashboard/gone',
      'created Dashboard/new',
    ]);
  });

  it('plan mode: every pending change is drift, nothing is created or healed', () => {
    const events = eventsOfRun(
      report(
        [
          step('Dashboard/new', { action: 'create', reason: 'missing' }),
          step('Alert/edit', { reason: 'spec-changed' }),
          step('Dashboard/same', { action: 'noop', reason: 'unchanged', changes: [] }),
        ],
        undefined,
      ),
      none,
    );
    expect(events.map((e) => e.event === 'drift' && `${e.address} ${e.reason}`)).toEqual([
      'Dashboard/new missing',
      'Alert/edit spec-changed',
    ]);
  });

  it('announces an adoption with the changes it made, even when nothing changed', () => {
    const events = eventsOfRun(
      report(
        [
          step('Dashboard/a', { adopt: true, id: 'x1', reason: 'spec-changed' }),
          step('Dashboard/b', { adopt: true, id: 'x2', action: 'noop', reason: 'unchanged', changes: [] }),
        ],
        [applied('Dashboard/a', 'update', { id: 'x1' }), { address: 'Dashboard/b', action: 'noop', outcome: 'unchanged', durationMs: 0 }],
      ),
      none,
    );
    expect(events.filter((e) => e.event === 'adopted')).toEqual([
      { event: 'adopted', address: 'Dashboard/a', id: 'x1', paths: ['name'] },
      { event: 'adopted', address: 'Dashboard/b', id: 'x2', paths: [] },
    ]);
  });

  it('failures, refusals and non-convergence, with codes; the first failure names the run', () => {
    const r = report(
      [step('Dashboard/bad', { reason: 'spec-changed' }), step('Alert/flaky', { reason: 'spec-changed' })],
      [
        { address: 'Dashboard/bad', action: 'update', outcome: 'failed', code: 'API', message: 'PUT /x failed: HTTP 400', durationMs: 3 },
        applied('Alert/flaky', 'update', { nonConvergent: [{ path: 'groupBy', before: 'a', after: null }] }),
      ],
      {
        diagnostics: [
          { severity: 'error', code: 'adoption-not-allowed', message: 'exists as id 7', address: 'Dashboard/hand' },
          { severity: 'error', code: 'unresolved-reference', message: 'no webhook ops', address: 'Alert/x' },
          { severity: 'warning', code: 'w', message: 'only a warning' },
        ],
        prune: { requested: true, cascade: false, candidates: [], refused: ['3 deletes exceed the limit of 1'], blocked: [] },
        errored: true,
      },
    );
    const events = eventsOfRun(r, none);
    expect(events.filter((e) => e.event !== 'updated')).toEqual([
      { event: 'failed', address: 'Dashboard/bad', code: 'API', message: 'PUT /x failed: HTTP 400' },
      { event: 'non-convergent', address: 'Alert/flaky', paths: ['groupBy'] },
      { event: 'refused', guard: 'adoption', address: 'Dashboard/hand', message: 'exists as id 7' },
      { event: 'failed', address: 'Alert/x', code: 'unresolved-reference', message: 'no webhook ops' },
      { event: 'refused', guard: 'prune', message: '3 deletes exceed the limit of 1' },
    ]);
    expect(firstFailure(events)).toBe('Dashboard/bad: PUT /x failed: HTTP 400');
    expect(runCounts(r)).toEqual({ create: 0, update: 1, delete: 0, unchanged: 0, adopted: 0, failed: 3 });
  });
});

describe('renames', () => {
  it('a recorded rename is one moved event, with the old address and the renamed parts, besides its update', () => {
    const events = eventsOfRun(
      report(
        [
          step('Dashboard/checkout-service', { reason: 'spec-changed', id: 'd1' }),
          step('Alert/b', { action: 'noop', reason: 'unchanged', changes: [], id: 'a1' }),
        ],
        [
          applied('Dashboard/checkout-service', 'update', {
            id: 'd1',
            movedFrom: 'Dashboard/checkout',
            movedParts: [{ from: 'p99', to: 'latency' }],
          }),
          { address: 'Alert/b', action: 'noop', outcome: 'unchanged', id: 'a1', movedFrom: 'Alert/a', durationMs: 0 },
        ],
      ),
      none,
    );
    expect(events.filter((e) => e.event === 'moved')).toEqual([
      {
        event: 'moved',
        address: 'Dashboard/checkout-service',
        from: 'Dashboard/checkout',
        parts: [{ from: 'p99', to: 'latency' }],
        id: 'd1',
      },
      { event: 'moved', address: 'Alert/b', from: 'Alert/a', id: 'a1' },
    ]);
  });
});

describe('runCounts', () => {
  const shape = fc.record({
    action: fc.constantFrom<PlanStep['action']>('create', 'update', 'delete', 'noop'),
    adopt: fc.boolean(),
    moved: fc.boolean(),
    outcome: fc.constantFrom<StepResult['outcome']>('applied', 'unchanged', 'failed'),
  });

  it('count each object once, as every output does: a rename with previousNames or an adoption is not also unchanged or updated', () => {
    fc.assert(
      fc.property(fc.array(shape, { maxLength: 10 }), (shapes) => {
        const steps = shapes.map((s, i) =>
          step(`Dashboard/d${i}`, {
            action: s.action,
            ...(s.adopt ? { adopt: true } : {}),
            ...(s.moved ? { movedFrom: `Dashboard/old${i}` } : {}),
          }),
        );
        const results = shapes.map(
          (s, i): StepResult =>
            s.outcome === 'unchanged'
              ? { address: `Dashboard/d${i}`, action: s.action, outcome: 'unchanged', durationMs: 0 }
              : applied(`Dashboard/d${i}`, s.action, { outcome: s.outcome }),
        );
        const sum = (c: ReturnType<typeof runCounts>) => c.create + c.update + c.delete + c.unchanged + c.adopted;
        expect(sum(runCounts(report(steps, undefined)))).toBe(shapes.length);
        expect(sum(runCounts(report(steps, results)))).toBe(shapes.filter((s) => s.outcome !== 'failed').length);
      }),
    );
    const renamed = report(
      [step('Dashboard/new', { action: 'noop', reason: 'unchanged', movedFrom: 'Dashboard/old', changes: [] })],
      undefined,
    );
    expect(runCounts(renamed)).toEqual({ create: 0, update: 0, delete: 0, unchanged: 1, adopted: 0, failed: 0 });
    const adopted = report([step('Dashboard/hand', { adopt: true, id: 'x1' })], [applied('Dashboard/hand', 'update', { id: 'x1' })]);
    expect(runCounts(adopted)).toEqual({ create: 0, update: 0, delete: 0, unchanged: 0, adopted: 1, failed: 0 });
  });
});
