import { describe, expect, it } from 'vitest';
import { summarize, type Plan, type PlanStep } from '../core/plan.js';
import type { TargetIdentity } from '../core/target.js';
import { checkSavedPlan, checkSavedTarget, PlanTargetMismatch } from './saved-plan.js';

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

describe('checkSavedTarget', () => {
  const prod: TargetIdentity = { name: 't', variant: 'hosted', baseUrl: 'https://api.example.com', organizationId: 'o', serviceId: 's' };
  const made = { ...plan([]), identity: prod };

  it('lets a plan through only to the service it was made for', () => {
    expect(() => checkSavedTarget(made, { ...prod })).not.toThrow();
    for (const other of [
      { ...prod, baseUrl: 'https://api.other.example.com' },
      { ...prod, serviceId: 's2' },
      { ...prod, organizationId: 'o2' },
      { ...prod, variant: 'self-hosted' as const },
      { ...prod, name: 'staging' },
    ])
      expect(() => checkSavedTarget(made, other)).toThrow(PlanTargetMismatch);
  });

  it('names both services and what differs', () => {
    expect(() => checkSavedTarget(made, { ...prod, baseUrl: 'https://evil.example.com' })).toThrow(
      "the saved plan was made for target 't' (hosted at https://api.example.com, organisation o, service " +
        "s), but this apply would write to target 't' (hosted at https://evil.example.com, organisation o, " +
        'service s) (baseUrl differ)',
    );
  });

  it('refuses a plan that does not say where it was made', () => {
    expect(() => checkSavedTarget(plan([]), prod)).toThrow(/does not say which service it was made for/);
  });
});
