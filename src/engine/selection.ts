/** `--selector k=v` and `--only Kind/name`: which declared objects a run plans, and which owned ones it may prune. */
import type { InventoryEntry } from '../core/inventory.js';
import { entryAddress } from '../core/inventory.js';
import type { Address } from '../core/plan.js';
import type { DesiredResource } from '../core/resource.js';

export interface Selection {
  /** Every label must match. */
  labels: Record<string, string>;
  /** When non-empty, only these addresses. */
  only: readonly Address[];
}

export const SELECT_ALL: Selection = { labels: {}, only: [] };

export function isNarrowed(sel: Selection): boolean {
  return sel.only.length > 0 || Object.keys(sel.labels).length > 0;
}

function labelsMatch(labels: Record<string, string> | undefined, wanted: Record<string, string>): boolean {
  return Object.entries(wanted).every(([k, v]) => labels?.[k] === v);
}

export function selectedAddresses(desired: readonly DesiredResource[], sel: Selection): Set<Address> | undefined {
  if (!isNarrowed(sel)) return undefined;
  return new Set(
    desired
      .filter((r) => (sel.only.length === 0 || sel.only.includes(r.address)) && labelsMatch(r.labels, sel.labels))
      .map((r) => r.address),
  );
}

export function pruneEligibility(sel: Selection): (entry: InventoryEntry) => boolean {
  return (entry) => (sel.only.length === 0 || sel.only.includes(entryAddress(entry))) && labelsMatch(entry.labels, sel.labels);
}
