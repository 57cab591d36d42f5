/**
 * The fewest field edits that still bring a manifest to its live object. The candidate edits come
 * from the manifest written by the kind's export (./diff.ts), which spells some values otherwise
 * than the manifest (a default left out, a source named by its display name): an edit whose field
 * is equal once normalised changes nothing a plan sees, and must not be made. The judge is the
 * planner's own comparison (`changes`): first the edits that each take changes away are kept
 * (one pass, in document order); if that does not reach what all the edits reach, all of them are
 * taken and each is dropped in turn when the result stays the same.
 */
import type { Change } from '../core/plan.js';
import type { Edit } from './edits.js';

/** The changes a plan shows for the manifest with these edits made; undefined when the result is not a valid manifest. */
export type Judge = (edits: readonly Edit[]) => readonly Change[] | undefined;

export interface Minimal {
  edits: Edit[];
  /** What a plan would still show after the edits (empty when the manifest is brought up to date). */
  residual: readonly Change[];
}

export function minimalEdits(candidates: readonly Edit[], before: readonly Change[], judge: Judge): Minimal {
  const all = judge(candidates);
  if (!all) return { edits: [], residual: before };
  const target = signature(all);
  const kept: Edit[] = [];
  let current = before;
  for (const edit of candidates) {
    const next = judge([...kept, edit]);
    if (next && next.length < current.length && within(next, current)) {
      kept.push(edit);
      current = next;
      if (signature(current) === target) return { edits: kept, residual: current };
    }
  }
  let edits = [...candidates];
  for (const edit of candidates) {
    const without = edits.filter((e) => e !== edit);
    const result = judge(without);
    if (result && signature(result) === target) edits = without;
  }
  return { edits, residual: all };
}

function signature(changes: readonly Change[]): string {
  return JSON.stringify(changes.map((c) => [c.path, c.after ?? null]).sort());
}

/** Every change of `next` is one of `current` (nothing new was made different). */
function within(next: readonly Change[], current: readonly Change[]): boolean {
  const known = new Set(current.map((c) => `${c.path}\u0000${JSON.stringify(c.after ?? null)}`));
  return next.every((c) => known.has(`${c.path}\u0000${JSON.stringify(c.after ?? null)}`));
}
