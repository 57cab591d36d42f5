/**
 * Rows of the state the store left out (not readable, or a second owner of one object): the
 * object they name is not planned — neither created again nor adopted — until the row is repaired
 * or forgotten, and the run reports an error, so prune is off. The rest of the target is planned.
 */
import type { Diagnostic } from '../core/diagnostics.js';
import { skippedRowText, type SkippedRow } from '../core/inventory.js';
import type { Address } from '../core/plan.js';
import type { DesiredResource } from '../core/resource.js';
import type { MovePlan } from './moves.js';

const CODE = 'state-row-skipped';

/**
 * Refuses (in the move plan, which the planner reports per object) every declared object whose address, or a previous one, has a skipped
 * row.
 */
export function refuseSkipped(desired: readonly DesiredResource[], skipped: readonly SkippedRow[], moves: MovePlan): void {
  if (skipped.length === 0) return;
  const rows = new Map(skipped.map((r) => [r.key, r]));
  for (const res of desired) {
    const addresses: string[] = [res.address, ...(res.previousNames ?? []).map((n) => `${res.kind}/${n}`)];
    const row = addresses.map((a) => rows.get(a)).find((r) => r !== undefined);
    if (!row) continue;
    const refusal = { code: CODE, message: `not planned: ${skippedRowText(row)}` };
    const list = moves.refused.get(res.address);
    if (list) list.push(refusal);
    else moves.refused.set(res.address, [refusal]);
  }
}

/** An error for each skipped row no declared object names (it still blocks prune: what it owned is unknown). */
export function undeclaredSkipped(desired: readonly DesiredResource[], skipped: readonly SkippedRow[]): Diagnostic[] {
  if (skipped.length === 0) return [];
  const named = new Set<string>(
    desired.flatMap((r): string[] => [r.address, ...(r.previousNames ?? []).map((n): Address => `${r.kind}/${n}`)]),
  );
  return skipped.filter((r) => !named.has(r.key)).map((r) => ({ severity: 'error', code: CODE, message: skippedRowText(r) }));
}
