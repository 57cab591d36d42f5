/** Field changes seen the other way round: drift goes from what obsync applied to what the service has now. */
import type { Change } from '../core/plan.js';

export function invertChanges(changes: readonly Change[]): Change[] {
  return changes.map((c) => {
    const out: Change = { path: c.path };
    if (c.after !== undefined) out.before = c.after;
    if (c.before !== undefined) out.after = c.before;
    if (c.sensitive) out.sensitive = true;
    return out;
  });
}
