/** How far each declared target is resolved (its level), and which target's settings a diagnostic is about. */
import type { Diagnostic } from '../core/diagnostics.js';
import type { DeclaredTarget } from './declared-targets.js';

/** Target fields resolved whether the target is selected or not: they say which target it is. */
export const IDENTITY = new Set(['name', 'variant', 'api']);

/** Target fields that shape its manifest tree. */
export const TREE = new Set(['manifests', 'vars']);

export type Level = 'full' | 'tree' | 'declared';

/**
 * The errors of selected targets that are confined to their own settings, by target index —
 * only when more than one target is selected, at least one of them has no error, and every
 * error of the file is such a target's (anything else fails the whole command, as before).
 */
export function isolatedFailures(
  diagnostics: readonly Diagnostic[],
  declared: readonly DeclaredTarget[],
  levels: readonly Level[],
): Map<number, Diagnostic[]> {
  const byTarget = new Map<number, Diagnostic[]>();
  const selected = levels.filter((l) => l === 'full').length;
  for (const d of diagnostics) {
    if (d.severity !== 'error') continue;
    const at = targetField(pathOf(d));
    if (!at || levels[at.index] !== 'full' || IDENTITY.has(at.field) || declared[at.index] === undefined)
      return new Map<number, Diagnostic[]>();
    byTarget.set(at.index, [...(byTarget.get(at.index) ?? []), d]);
  }
  return selected > 1 && byTarget.size < selected ? byTarget : new Map<number, Diagnostic[]>();
}

/** A diagnostic's document path back as segments (`targets[1].vars.x` → ['targets', 1, 'vars', 'x']). */
export function pathOf(d: Diagnostic): PropertyKey[] {
  return (d.path ?? '')
    .split(/\.|(?=\[)/)
    .filter(Boolean)
    .map((seg) => (/^\[\d+\]$/.test(seg) ? Number(seg.slice(1, -1)) : seg));
}

/** Where a path is inside `targets[index]`, naming the target's field. */
export function targetField(path: readonly PropertyKey[]): { index: number; field: string } | undefined {
  const [root, index, field] = path;
  return root === 'targets' && typeof index === 'number' && field !== undefined ? { index, field: String(field) } : undefined;
}
