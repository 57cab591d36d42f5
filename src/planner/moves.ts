/**
 * Renames (Terraform's `moved` blocks): a declared object whose `metadata.previousNames` names an
 * address the inventory owns takes that entry over, so the object is matched by its recorded id
 * (kept, with everything that refers to it) instead of being created again. The step says where
 * it moved from; the apply records the move. Never a guess: a previous name still declared or
 * claimed twice, owned as another kind, two previous names owned at once, or a new name that
 * already owns another object are refused, each with the way out.
 */
import { entryAddress, type InventoryEntry } from '../core/inventory.js';
import type { Address } from '../core/plan.js';
import type { DesiredResource } from '../core/resource.js';
import { previousNameProblems } from '../kinds/previous-names.js';

export interface MovePlan {
  /** Inventory entries by the address each object is planned under: a taken-over entry under its new address. */
  entries: Map<Address, InventoryEntry>;
  /** New address → the address it moves from. */
  from: Map<Address, Address>;
  /** Declared objects that cannot be planned, with why (the planner reports them as errors). */
  refused: Map<Address, { code: string; message: string }[]>;
  /** Previous names with nothing left to move on this target: the plan says they can go. */
  done: Map<Address, string>;
}

export function planMoves(desired: readonly DesiredResource[], inventory: readonly InventoryEntry[]): MovePlan {
  const entries = new Map<Address, InventoryEntry>();
  for (const e of inventory) entries.set(entryAddress(e), e);
  const moves: MovePlan = { entries, from: new Map(), refused: new Map(), done: new Map() };
  const renamed = desired.filter((r) => r.previousNames !== undefined && r.previousNames.length > 0);
  if (renamed.length === 0) return moves;

  const refuse = (res: DesiredResource, code: string, message: string) => {
    const list = moves.refused.get(res.address);
    if (list) list.push({ code, message });
    else moves.refused.set(res.address, [{ code, message }]);
  };
  for (const p of previousNameProblems(desired)) refuse(p.resource, p.code, `metadata.previousNames: ${p.message}`);
  const declared = new Set(desired.map((r) => r.address));
  for (const res of renamed) {
    if (moves.refused.has(res.address)) continue;
    const decision = decide(res, entries, inventory, declared);
    if (decision.kind === 'refuse') refuse(res, decision.code, decision.message);
    else if (decision.kind === 'done') moves.done.set(res.address, decision.message);
    else if (decision.kind === 'move') {
      const old = entries.get(decision.from);
      if (!old) continue;
      entries.delete(decision.from);
      entries.set(res.address, old);
      moves.from.set(res.address, decision.from);
    }
  }
  return moves;
}

type Decision =
  | { kind: 'move'; from: Address }
  | { kind: 'none' }
  | { kind: 'done'; message: string }
  | { kind: 'refuse'; code: string; message: string };

function decide(
  res: DesiredResource,
  entries: ReadonlyMap<Address, InventoryEntry>,
  inventory: readonly InventoryEntry[],
  declared: ReadonlySet<Address>,
): Decision {
  const previous = res.previousNames ?? [];
  const own = entries.get(res.address);
  const found = previous.flatMap((name) => {
    const old: Address = `${res.kind}/${name}`;
    const entry = entries.get(old);
    return entry ? [{ name, old, entry }] : [];
  });
  const [first] = found;
  if (!first) {
    if (own?.status === 'owned')
      return {
        kind: 'done',
        message:
          `metadata.previousNames (${previous.join(', ')}) has nothing left to move on this target: ${res.address} owns the ` +
          `object (id ${own.id ?? '?'}); remove previousNames once every target has applied the rename`,
      };
    if (own) return { kind: 'none' };
    const other = otherKind(res, previous, inventory, declared);
    return other ? { kind: 'refuse', code: 'previous-name-kind', message: other } : { kind: 'none' };
  }
  if (found.length > 1)
    return {
      kind: 'refuse',
      code: 'previous-name-ambiguous',
      message:
        `metadata.previousNames: ${found.map((f) => `${f.old} (id ${f.entry.id ?? 'in flight'})`).join(' and ')} are all ` +
        `owned on this target, and obsync will not guess which one ${res.address} takes over; keep only that one in previousNames ` +
        `(\`obsync state rm\` forgets the other without deleting it)`,
    };
  if (own)
    return {
      kind: 'refuse',
      code: 'previous-name-occupied',
      message:
        `metadata.previousNames: ${res.address} already owns an object (id ${own.id ?? 'in flight'}), so it cannot also take ` +
        `over ${first.old} (id ${first.entry.id ?? 'in flight'}); remove '${first.name}' from previousNames, or \`obsync state rm ` +
        `${res.address}\` first to keep ${first.old}'s object under the new name`,
    };
  return { kind: 'move', from: first.old };
}

/**
 * A previous name owned only as another kind, by an object no manifest declares: a rename keeps
 * the kind, so the name (or the kind) in the manifest is wrong, and taking the object over would
 * be a guess. An object of another kind that is still declared is merely a namesake.
 */
function otherKind(
  res: DesiredResource,
  previous: readonly string[],
  inventory: readonly InventoryEntry[],
  declared: ReadonlySet<Address>,
): string | null {
  for (const name of previous) {
    const entry = inventory.find((e) => e.name === name && e.kind !== res.kind && !declared.has(entryAddress(e)));
    if (entry)
      return (
        `metadata.previousNames: '${name}' is owned on this target as ${entryAddress(entry)}, not as a ${res.kind}; a rename ` +
        `keeps the kind, so ${res.address} cannot take it over; correct the name, or remove it from previousNames (to change the ` +
        `kind, delete the old object and create the new one)`
      );
  }
  return null;
}
