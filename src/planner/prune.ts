/**
 * Prune (DESIGN §4): only inventory entries missing from the manifests, and refused as a whole
 * when any guard trips — an empty kind that the inventory still owns, more deletes than the
 * limit, or a run that had an error or an invalid manifest.
 */
import type { InventoryEntry } from '../core/inventory.js';
import { entryAddress } from '../core/inventory.js';
import type { Address, Kind, PruneReport } from '../core/plan.js';

export interface PruneInput {
  requested: boolean;
  maxDeletes: number;
  /** Every declared address (before --selector/--only narrowing). */
  declared: ReadonlySet<Address>;
  /** Kinds that have at least one declared object. */
  declaredKinds: ReadonlySet<Kind>;
  /** Entries eligible for this run (matching the selection). */
  eligible: (entry: InventoryEntry) => boolean;
  inventory: readonly InventoryEntry[];
  deletableKinds: ReadonlySet<Kind>;
  /** Live ids per kind: an entry whose object is already gone needs no delete. */
  liveIds: (kind: Kind) => ReadonlySet<string> | undefined;
  /** Problems that forbid pruning in this run. */
  blockers: readonly string[];
}

export interface PruneDecision {
  report: PruneReport;
  /** Entries to delete (empty when refused or not requested). */
  deletes: InventoryEntry[];
}

export function decidePrune(input: PruneInput): PruneDecision {
  const candidates = input.inventory.filter(
    (e) =>
      e.status === 'owned' &&
      e.id !== null &&
      input.deletableKinds.has(e.kind) &&
      !input.declared.has(entryAddress(e)) &&
      input.eligible(e) &&
      input.liveIds(e.kind)?.has(e.id) === true,
  );
  const report: PruneReport = { requested: input.requested, candidates: candidates.map(entryAddress).sort(), refused: [] };
  if (!input.requested || candidates.length === 0) return { report, deletes: [] };

  const refused = [...input.blockers];
  for (const kind of new Set(candidates.map((c) => c.kind))) {
    if (input.declaredKinds.has(kind)) continue;
    const owned = input.inventory.filter((e) => e.kind === kind && e.status === 'owned').length;
    refused.push(
      `no ${kind} is declared but obsync owns ${owned}: refusing to delete them all (is the manifest path right?); declare at least one ${kind}, or delete them by hand`,
    );
  }
  if (candidates.length > input.maxDeletes) {
    refused.push(`${candidates.length} deletes exceed the limit of ${input.maxDeletes}; raise it with --max-deletes if this is intended`);
  }
  report.refused = refused;
  return { report, deletes: refused.length > 0 ? [] : candidates };
}
