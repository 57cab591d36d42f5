/**
 * Issue 40 item 5: an interrupted apply said "Apply finished with errors" with 0 failed; a step's
 * time included obsync's own rate-limit waits without saying so. Text and JSON say both.
 */
import { describe, expect, it } from 'vitest';
import type { ApplyReport, StepResult } from '../applier/context.js';
import { summarize, type Address, type Plan, type PlanStep } from '../core/plan.js';
import type { RunReport } from '../engine/reconcile.js';
import { applyReportDocument } from './apply-json.js';
import { renderApplyText, stepTime } from './apply-text.js';
import { makeStyle } from './style.js';

const step = (i: number, action: 'create' | 'noop'): PlanStep =>
  ({
    address: `Dashboard/d${i}` as Address,
    kind: 'Dashboard',
    name: `d${i}`,
    action,
    reason: action === 'create' ? 'missing' : 'unchanged',
    changes: [],
    dependsOn: [],
  }) as unknown as PlanStep;

const steps = [step(0, 'create'), step(1, 'create'), step(2, 'create'), step(3, 'noop')];
const plan = {
  formatVersion: 1,
  target: 't',
  variant: 'self-hosted',
  steps,
  summary: summarize(steps),
  prune: { requested: false, cascade: false, candidates: [], refused: [], blocked: [] },
  forget: [],
  diagnostics: [],
  errored: false,
} as unknown as Plan;

const stopped = { outcome: 'skipped', message: 'the run was interrupted', durationMs: 0, notStarted: true } as const;
const results: StepResult[] = [
  { address: 'Dashboard/d0', action: 'create', outcome: 'applied', durationMs: 1200, rateLimitWaitMs: 1000 },
  { address: 'Dashboard/d1', action: 'create', ...stopped },
  { address: 'Dashboard/d2', action: 'create', ...stopped },
  { address: 'Dashboard/d3', action: 'noop', ...stopped },
];
const interrupted: ApplyReport = {
  target: 't',
  results,
  summary: { applied: 1, unchanged: 0, failed: 0, skipped: 3, refused: 0 },
  interrupted: true,
};

describe('the end of an apply', () => {
  it('says an interrupted apply was interrupted, with what was applied and what was not started (unchanged ones not counted)', () => {
    const text = renderApplyText(interrupted, plan, makeStyle(false));
    expect(text).toContain('Apply interrupted: 1 created, 0 updated, 0 deleted, 0 failed, 0 refused, 0 skipped, 2 not started.');
    expect(text).not.toContain('errors');
    const done: ApplyReport = { target: 't', results: results.slice(0, 1), summary: { ...interrupted.summary, skipped: 0 } };
    expect(renderApplyText(done, plan, makeStyle(false))).toContain(
      'Apply complete: 1 created, 0 updated, 0 deleted, 0 failed, 0 refused, 0 skipped.',
    );
  });

  it("says how much of a step's time was a wait for the rate limit, in text and JSON", () => {
    expect(stepTime(results[0] as StepResult)).toBe('1200 ms, 1000 ms of it waiting for the rate limit');
    expect(stepTime({ durationMs: 30 })).toBe('30 ms');
    const report = { target: 't', variant: 'self-hosted', plan, apply: interrupted } as unknown as RunReport;
    const doc = applyReportDocument([report], { generatedAt: new Date(0), obsyncVersion: '0' });
    expect(doc.targets[0]).toMatchObject({ interrupted: true });
    expect(doc.targets[0]?.results[0]).toMatchObject({ duration_ms: 1200, rate_limit_wait_ms: 1000 });
    expect(doc.targets[0]?.results[1]).toMatchObject({ outcome: 'skipped', not_started: true });
    expect(doc.targets[0]?.results[1]).not.toHaveProperty('rate_limit_wait_ms');
  });
});
