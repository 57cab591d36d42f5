/**
 * After a write, the object the service stored is compared again with the step's expected form,
 * in the same terms the planner used: managed references through the applier's id map, the
 * others through the names the plan recorded.
 */
import type { IdMap } from '../core/id-map.js';
import type { NonConvergentField } from '../core/inventory.js';
import type { LiveObject } from '../core/live.js';
import { nameOf, type AnyKind, type Change, type NamedRef, type PlanStep } from '../core/plan.js';
import type { Json } from '../core/wire.js';
import type { ManagedKind } from '../kinds/kind.js';
import type { RefToken, TokenContext } from '../kinds/refs.js';
import { diffCanonical, valueAt } from '../planner/diff.js';

export interface Verification {
  changes: Change[];
  fields: NonConvergentField[];
}

/**
 * `fingerprint`: the keyed fingerprint of a value, as the plan compared sensitive values. `parts`:
 * the object's part ids when they are not in the id map yet (a create being proven).
 */
export function verifyWrite(
  def: ManagedKind,
  step: PlanStep,
  live: LiveObject,
  ids: IdMap,
  fingerprint: (value: Json) => string,
  parts?: ReadonlyMap<string, string>,
): Verification {
  const expected = step.expected;
  if (!expected) return { changes: [], fields: [] };
  const view = {
    tokens: new ApplyTokens(ids, expected.names),
    parts: parts ?? ids.parts(step.address),
    expected: expected.value,
    secrets: step.record?.secrets ?? {},
    fingerprint,
  };
  const changes = diffCanonical(def.canonicalLive(live, view), expected.value);
  const fields = changes.map((c) => ({ path: c.path, desired: valueAt(expected.value, c.path) ?? null }));
  return { changes, fields };
}

class ApplyTokens implements TokenContext {
  readonly #names = new Map<string, RefToken>();

  constructor(
    private readonly ids: IdMap,
    names: readonly NamedRef[],
  ) {
    for (const n of names) this.#names.set(`${n.kind}\u0000${n.id}`, savedToken(n));
  }

  token(kind: AnyKind, id: string): RefToken {
    const address = this.ids.addressOf(kind, id);
    return address ? nameOf(address) : (this.#names.get(`${kind}\u0000${id}`) ?? { id });
  }

  partToken(kind: AnyKind, parentId: string, partId: string): RefToken {
    const address = this.ids.addressOf(kind, parentId);
    return (address && this.ids.partKey(address, partId)) ?? { id: partId };
  }
}

/** A token as the plan carried it (a saved plan's JSON too): the name, or the id with the display name beside it. */
function savedToken(n: NamedRef): RefToken {
  if (typeof n.token === 'string') return n.token;
  const name = typeof n.token === 'object' && n.token !== null && !Array.isArray(n.token) ? n.token.name : undefined;
  return typeof name === 'string' ? { id: n.id, name } : { id: n.id };
}
