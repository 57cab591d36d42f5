import { describe, expect, it } from 'vitest';
import { summarize, type Plan, type PlanStep } from '../core/plan.js';
import { checkSavedPlan } from './saved-plan.js';

function step(address: `Dashboard/${string}`, action: PlanStep['action'], liveVersion?: string, after: string = 'x'): PlanStep {
  return {
    address,
    kind: 'Dashboard',
    name: address.slice(10),
    action,
    reason: action === 'create' ? 'missing' : 'spec-changed',
    changes: action === 'noop' ? [] : [{ path: 'name', after }],
    dependsOn: [],
    ...(liveVersion ? { id: 'i', liveVersion } : {}),
  };
}

function plan(steps: PlanStep[]): Plan {
  return {
    formatVersion: 2,
    target: 't',
    variant: 'hosted',
    steps,
    summary: summarize(steps),
    prune: { requested: false, cascade: false, candidates: [], refused: [], blocked: [] },
    forget: [],
    diagnostics: [],
    errored: false,
  };
}

describe('checkSavedPlan', () => {
  it('applies the saved steps whose object and manifest did not move, refuses the others', () => {
    const saved = plan([
      step('Dashboard/a', 'update', 'v1'),
      step('Dashboard/b', 'update', 'v1'),
      step('Dashboard/c', 'create'),
      step('Dashboard/d', 'update', 'v1'),
    ]);
    const current = plan([
      step('Dashboard/a', 'update', 'v1'),
      step('Dashboard/b', 'update', 'v2'),
      step('Dashboard/c', 'noop', 'v9'),
      step('Dashboard/d', 'update', 'v1', 'y'),
      step('Dashboard/e', 'create'),
    ]);
    const { plan: out, refused } = checkSavedPlan(saved, current);
    expect(out.steps.map((s) => s.address)).toEqual(['Dashboard/a', 'Dashboard/b', 'Dashboard/c', 'Dashboard/d']);
    expect([...refused.keys()]).toEqual(['Dashboard/b', 'Dashboard/c', 'Dashboard/d']);
    expect(refused.get('Dashboard/b')).toMatch(/live object changed/);
    expect(refused.get('Dashboard/d')).toMatch(/manifests changed/);
  });
});
