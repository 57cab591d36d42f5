/**
 * Issue 52, item 3: the counts of a plan (and of its apply) add up to its objects in every format. After a rename
 * with previousNames, 4 objects read "1 to move, 4 unchanged": the moved one was counted twice
 * (an adoption likewise).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ApplyReport, StepResult } from '../applier/context.js';
import { summarize, type Action, type Address, type Plan, type PlanStep } from '../core/plan.js';
import type { RunReport } from '../engine/reconcile.js';
import { applyReportDocument } from './apply-json.js';
import { renderApplyText } from './apply-text.js';
import { planDocument } from './plan-json.js';
import { renderPlansMarkdown } from './plan-markdown.js';
import { renderPlansText } from './plan-text.js';
import { makeStyle } from './style.js';

const ORIGIN = { generatedAt: new Date('2026-01-02T03:04:05Z'), obsyncVersion: '0.1.0', manifests: [] };

interface StepShape {
  action: Action;
  adopt: boolean;
  moved: boolean;
}

function planOf(shapes: readonly StepShape[]): Plan {
  const steps: PlanStep[] = shapes.map((s, i) => ({
    address: `Dashboard/d${i}` as Address,
    kind: 'Dashboard',
    name: `d${i}`,
    action: s.action,
    reason:
      s.action === 'create' ? 'missing' : s.action === 'delete' ? 'not-declared' : s.action === 'update' ? 'spec-changed' : 'unchanged',
    ...(s.action === 'create' ? {} : { id: `id${i}` }),
    ...(s.adopt ? { adopt: true } : {}),
    ...(s.moved ? { movedFrom: `Dashboard/old${i}` as Address } : {}),
    changes: [],
    dependsOn: [],
  }));
  return {
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
}

/** The numbers of a summary line: `2 to create, …, 1 to move, 3 unchanged`. */
function lineCounts(text: string): number {
  const line = /Plan: [^\n]*unchanged\./.exec(text)?.[0] ?? '';
  return [...line.matchAll(/(\d+) (?:to create|to update|to delete|to ADOPT|to move|unchanged)/g)].reduce((n, m) => n + Number(m[1]), 0);
}

/** The numbers of an apply's line: `Apply complete: 1 created, …, 1 moved, 0 failed, …`. */
function applyLineCounts(text: string): number {
  const line = /Apply complete:[^\n]*/.exec(text)?.[0] ?? '';
  return [...line.matchAll(/(\d+) (?:created|updated|deleted|adopted|moved)\b/g)].reduce((n, m) => n + Number(m[1]), 0);
}

function reportOf(plan: Plan): RunReport {
  const results: StepResult[] = plan.steps.map((s) => ({
    address: s.address,
    action: s.action,
    outcome: s.action === 'noop' ? 'unchanged' : 'applied',
    ...(s.movedFrom ? { movedFrom: s.movedFrom } : {}),
    durationMs: 1,
  }));
  const apply: ApplyReport = { target: plan.target, results, summary: { applied: 0, unchanged: 0, failed: 0, skipped: 0, refused: 0 } };
  return { target: plan.target, variant: plan.variant, plan, apply } as unknown as RunReport;
}

const shape: fc.Arbitrary<StepShape> = fc.record({
  action: fc.constantFrom<Action>('create', 'update', 'delete', 'noop'),
  adopt: fc.boolean(),
  moved: fc.boolean(),
});

describe('plan counts', () => {
  it('a rename among 4 objects: 1 to move, 3 unchanged', () => {
    const plan = planOf([
      { action: 'noop', adopt: false, moved: true },
      { action: 'noop', adopt: false, moved: false },
      { action: 'noop', adopt: false, moved: false },
      { action: 'noop', adopt: false, moved: false },
    ]);
    expect(renderPlansText([plan], { color: false })).toContain('Plan: 0 to create, 0 to update, 0 to delete, 1 to move, 3 unchanged.');
    expect(planDocument([plan], ORIGIN).summary).toEqual({ create: 0, update: 0, delete: 0, noop: 3, adopt: 0, move: 1 });
  });

  it('add up to the number of objects in text, markdown, JSON and the apply report', () => {
    fc.assert(
      fc.property(fc.array(shape, { maxLength: 12 }), (shapes) => {
        const plan = planOf(shapes);
        const n = shapes.length;
        const sum = (s: Record<string, number>) => Object.values(s).reduce((a, b) => a + b, 0);
        expect(lineCounts(renderPlansText([plan], { color: false }))).toBe(n);
        expect(lineCounts(renderPlansMarkdown([plan]))).toBe(n);
        expect(sum(planDocument([plan], ORIGIN).summary)).toBe(n);
        const report = reportOf(plan);
        expect(sum(applyReportDocument([report], ORIGIN).summary)).toBe(n);
        // The apply text has no unchanged count: what it names adds up to the objects that are not plainly unchanged.
        const plain = shapes.filter((s) => s.action === 'noop' && !s.adopt && !s.moved).length;
        expect(applyLineCounts(renderApplyText(report.apply as ApplyReport, plan, makeStyle(false)))).toBe(n - plain);
      }),
    );
  });
});
