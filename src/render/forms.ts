/**
 * What every plan output shows of a step: the whole object before and after it (the kinds'
 * comparable forms, in manifest terms) with sensitive values masked, and which steps are
 * adoptions or drift. Shared by the text, markdown and JSON renderers so they cannot disagree.
 */
import type { StepResult } from '../applier/context.js';
import { countKey, isMove, type CountKey, type IgnoredChange, type Plan, type PlanStep } from '../core/plan.js';
import { SENSITIVE } from '../core/secret.js';
import type { Json } from '../core/wire.js';
import { managedDefinition } from '../kinds/registry.js';
import { isPlainObject, isSensitive } from '../planner/diff.js';
import { setOwn } from '../core/json.js';
import { inlineValue } from './value.js';

/** Where a value holds sensitive parts, as Terraform's `before_sensitive`: `true` at a masked value, `false` where nothing is. */
export type Sensitivity = boolean | Sensitivity[] | { [key: string]: Sensitivity };

export interface Masked {
  value: Json;
  sensitive: Sensitivity;
}

/** The value with every sensitive part replaced by `(sensitive)`, and where those parts were. */
export function mask(value: Json): Masked {
  if (isSensitive(value)) return { value: SENSITIVE, sensitive: true };
  if (Array.isArray(value)) {
    const items = value.map(mask);
    const any = items.some((i) => i.sensitive !== false);
    return { value: items.map((i) => i.value), sensitive: any ? items.map((i) => i.sensitive) : false };
  }
  if (isPlainObject(value)) {
    const out: { [key: string]: Json } = {};
    const where: { [key: string]: Sensitivity } = {};
    let any = false;
    for (const [key, item] of Object.entries(value)) {
      const m = mask(item);
      setOwn(out, key, m.value);
      if (m.sensitive !== false) {
        setOwn(where, key, m.sensitive);
        any = true;
      }
    }
    return { value: out, sensitive: any ? where : false };
  }
  return { value, sensitive: false };
}

/** The object before and after the step, masked; null where there is none (before a create, after a delete). */
export interface StepForms {
  before: Masked | null;
  after: Masked | null;
}

export function stepForms(step: PlanStep): StepForms {
  const before = step.action === 'create' ? undefined : step.current;
  const after = step.action === 'delete' ? undefined : step.expected?.value;
  return { before: before === undefined ? null : mask(before), after: after === undefined ? null : mask(after) };
}

/** A live object obsync did not create is taken over (matched by natural key): every output says so loudly. */
export function isAdoption(step: PlanStep): boolean {
  return step.adopt === true;
}

/** Drift: the service changed the object, the manifest did not (the update puts it back). */
export function isDrift(step: PlanStep): boolean {
  return step.action === 'update' && step.reason === 'drifted';
}

/** Steps a reviewer must see: changes, adoptions and renames (each changes ownership even when the object does not change). */
export function reviewedSteps(plan: Plan): PlanStep[] {
  return plan.steps.filter((s) => s.action !== 'noop' || isAdoption(s) || isMove(s));
}

/** Unchanged objects that differ only at fields ignore rules leave out (issue 48): every output shows them, so nothing is hidden. */
export function ignoredOnlySteps(plan: Plan): PlanStep[] {
  return plan.steps.filter((s) => s.action === 'noop' && !isAdoption(s) && !isMove(s) && (s.ignored?.length ?? 0) > 0);
}

/** `tiles.p99.x: ignored by rule tiles[*].x (defaults.ignore.Dashboard) — the service has 6, the manifest 0` */
export function ignoredSentence(c: IgnoredChange): string {
  const has = (value: IgnoredChange['before']) => (value === undefined ? 'nothing' : inlineValue(value));
  return (
    `${c.path || '(object)'}: ignored by rule ${c.rule} (${c.from}) — ` + `the service has ${has(c.before)}, the manifest ${has(c.after)}`
  );
}

/** `Dashboard/old → Dashboard/new`, and each renamed part key: `tile p99 → latency-p99`. */
export function moveLines(step: PlanStep): string[] {
  const lines: string[] = [];
  if (step.movedFrom !== undefined) lines.push(`${step.movedFrom} → ${step.address}`);
  const noun = managedDefinition(step.kind)?.parts?.noun ?? 'part';
  for (const m of step.movedParts ?? []) lines.push(`${noun} ${m.from} → ${m.to}`);
  return lines;
}

/** Objects per count, each counted once (core/plan.ts countKey). */
export type OutputSummary = Record<CountKey, number>;

export function planSummary(plans: readonly Plan[]): OutputSummary {
  const s: OutputSummary = { create: 0, update: 0, delete: 0, noop: 0, adopt: 0, move: 0 };
  for (const plan of plans) for (const step of plan.steps) s[countKey(step.action, isAdoption(step), isMove(step))] += 1;
  return s;
}

/**
 * What an apply did, per count: each object once, as its plan counts it (core/plan.ts countKey);
 * failed, skipped and refused steps are not counted.
 */
export function applySummary(results: readonly StepResult[], plan: Plan): OutputSummary {
  const steps = new Map(plan.steps.map((step) => [step.address, step]));
  const s: OutputSummary = { create: 0, update: 0, delete: 0, noop: 0, adopt: 0, move: 0 };
  for (const r of results) {
    if (r.outcome !== 'applied' && r.outcome !== 'unchanged') continue;
    const step = steps.get(r.address);
    const action = r.outcome === 'applied' && step ? step.action : 'noop';
    const moved = r.movedFrom !== undefined || (r.movedParts?.length ?? 0) > 0;
    s[countKey(action, step !== undefined && isAdoption(step), moved)] += 1;
  }
  return s;
}

/**
 * Objects the service deletes along with the plan's steps (a dashboard's tile alerts, a saved
 * search's alerts), each counted once; an object that has a delete step of its own is counted
 * there, not here. `only`: the steps to count (an apply's applied steps).
 */
export function deletedAlong(plan: Plan, only?: (step: PlanStep) => boolean): number {
  const ownDeletes = new Set(plan.steps.filter((s) => s.action === 'delete' && s.id !== undefined).map((s) => `${s.kind}\u0000${s.id}`));
  const along = new Set<string>();
  for (const step of plan.steps) {
    if (only && !only(step)) continue;
    for (const item of step.cascade ?? []) {
      const key = `${item.kind}\u0000${item.id}`;
      if (!ownDeletes.has(key)) along.add(key);
    }
  }
  return along.size;
}

/** ` (and 2 the service deletes with them)`, or nothing. */
export function alongText(count: number, verb: 'deletes' | 'deleted'): string {
  if (count === 0) return '';
  return verb === 'deletes' ? ` (and ${count} the service deletes with them)` : ` (and ${count} the service deleted with them)`;
}

/** Errors of a plan: what could not be planned, a refused prune, deletes kept back (each exits 1). */
export function planErrorCount(plan: Plan): number {
  return plan.diagnostics.filter((d) => d.severity === 'error').length + plan.prune.refused.length + plan.prune.blocked.length;
}

export function hasWrites(plan: Plan): boolean {
  return plan.steps.some((s) => s.action !== 'noop');
}
