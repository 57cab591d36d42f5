/**
 * The field changes a notification shows beside each updated object (issue 52 item 2), in the
 * domain words the status page and the pull-request comment use (`threshold 1500 → 900`, a
 * dashboard's tile rows), from the masked forms of the plan's steps: a sensitive value reads
 * `(sensitive)`. Events carry no values; this reads the plan the run was made from.
 */
import type { Plan } from '../core/plan.js';
import type { PartChange } from '../kinds/summary.js';
import { domainSummary } from '../render/domain.js';

/** Lines per object at most (the rest is counted). */
export const MAX_CHANGE_LINES = 10;

/** What a notifier asks of the daemon: the field changes of these objects in the target's last plan. */
export type ChangesLookup = (target: string, addresses: readonly string[]) => ReadonlyMap<string, readonly string[]>;

export function planChanges(plan: Plan | undefined, addresses: readonly string[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  if (!plan || addresses.length === 0) return out;
  const wanted = new Set(addresses);
  for (const step of plan.steps) {
    // A create or a delete is the whole object: its address says it; an update says what changed.
    if (step.action !== 'update' || !wanted.has(step.address)) continue;
    const summary = domainSummary(step);
    const noun = summary.parts?.noun ?? 'part';
    const lines = [...summary.sentences, ...(summary.parts?.rows ?? []).map((row) => partLine(noun, row))];
    out.set(
      step.address,
      lines.length > MAX_CHANGE_LINES
        ? [...lines.slice(0, MAX_CHANGE_LINES - 1), `and ${lines.length - MAX_CHANGE_LINES + 1} more`]
        : lines,
    );
  }
  return out;
}

function partLine(noun: string, row: PartChange): string {
  const details = row.details.filter(Boolean);
  return (
    `${noun} ${row.key}${row.name ? ` (${row.name})` : ''}: ` +
    `${row.changes.join(', ')}${details.length > 0 ? `; ${details.join('; ')}` : ''}`
  );
}
