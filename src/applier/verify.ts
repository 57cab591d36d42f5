/** After a write, the object the service stored is compared again with the desired one. */
import type { NonConvergentField } from '../core/inventory.js';
import type { Change } from '../core/plan.js';
import type { DesiredResource } from '../core/resource.js';
import type { KindDefinition, MatchContext } from '../kinds/kind.js';
import { diffCanonical, valueAt } from '../planner/diff.js';

export interface Verification {
  changes: Change[];
  fields: NonConvergentField[];
}

export function verifyWrite<Live extends { id: string }>(
  def: KindDefinition<unknown, Live>,
  res: DesiredResource,
  live: Live,
  ctx: MatchContext,
  fingerprints: Record<string, string>,
): Verification {
  const desired = def.canonicalDesired(res, ctx.lookups, fingerprints);
  if (!desired.ok) return { changes: [], fields: [] };
  const changes = diffCanonical(def.canonicalLive(live, ctx, res), desired.value);
  const fields = changes.map((c) => ({ path: c.path, desired: valueAt(desired.value, c.path) ?? null }));
  return { changes, fields };
}
