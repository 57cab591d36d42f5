/**
 * The checks of `metadata.previousNames` that need only the manifests (obsync validate reports
 * them with their position; the planner refuses the same objects when it is handed them): a
 * previous name must not still be declared, and only one manifest may take over an old name.
 * Those that need the inventory (another kind owns the name, both names owned) are the planner's.
 */
import type { Address } from '../core/plan.js';
import type { DesiredResource } from '../core/resource.js';

export interface PreviousNameProblem {
  resource: DesiredResource;
  /** Index in metadata.previousNames. */
  index: number;
  code: 'previous-name-declared' | 'previous-name-claimed';
  message: string;
}

export function previousNameProblems(resources: readonly DesiredResource[]): PreviousNameProblem[] {
  const renamed = resources.filter((r) => r.previousNames !== undefined && r.previousNames.length > 0);
  if (renamed.length === 0) return [];
  const declared = new Map<Address, DesiredResource>(resources.map((r) => [r.address, r]));
  const claims = new Map<Address, DesiredResource[]>();
  for (const r of renamed)
    for (const previous of r.previousNames ?? []) {
      const old: Address = `${r.kind}/${previous}`;
      const list = claims.get(old);
      if (list) list.push(r);
      else claims.set(old, [r]);
    }
  const out: PreviousNameProblem[] = [];
  for (const r of renamed) {
    (r.previousNames ?? []).forEach((previous, index) => {
      const old: Address = `${r.kind}/${previous}`;
      const still = declared.get(old);
      if (still) {
        out.push({
          resource: r,
          index,
          code: 'previous-name-declared',
          message:
            `previous name '${previous}' is still declared (${old} at ${still.source.file}:${still.source.line}): a rename ` +
            `moves the object away from a name no manifest declares any more; remove that manifest, or '${previous}' from previousNames`,
        });
        return;
      }
      const others = (claims.get(old) ?? []).filter((o) => o !== r);
      if (others.length > 0)
        out.push({
          resource: r,
          index,
          code: 'previous-name-claimed',
          message:
            `previous name '${previous}' is also claimed by ` +
            `${others.map((o) => `${o.address} (${o.source.file}:${o.source.line})`).join(', ')}: only one object can take over ` +
            `${old}; keep it in one manifest's previousNames`,
        });
    });
  }
  return out;
}
